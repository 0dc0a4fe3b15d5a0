//! `Read`: a file's content for the model.
//!
//! * text: `cat -n` style numbered lines (`{n:>6}\t{line}`), `offset`
//!   (1-based first line) and `limit`, a default cap of
//!   [`DEFAULT_LINE_LIMIT`] lines with a note on how to read further, lines
//!   longer than [`MAX_LINE_CHARS`] characters truncated with a marker;
//! * images (png, jpeg, gif, webp): an image content block, downscaled
//!   when large ([`image`]);
//! * PDFs: text per page, `pages` selects a range ([`pdf`]);
//! * notebooks (`.ipynb`): cells with their outputs ([`notebook`]);
//! * anything else binary is refused with a clear message.
//!
//! Every successful read is recorded in the session's
//! [`crate::FileStateCache`] (canonical path, mtime,
//! content hash, partial or not) for the stale-write checks of Write, Edit
//! and NotebookEdit.

pub mod image;
pub mod notebook;
pub mod pdf;
pub mod text;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult, ToolUseContext, TypedTool};
use gatehouse_protocol::event::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::file_state::FileStateCache;
use crate::paths;

pub use self::image::ImageOutput;
pub use self::notebook::NotebookOutput;
pub use self::pdf::PdfOutput;
pub use self::text::TextOutput;

/// Lines returned when no `limit` is given.
pub const DEFAULT_LINE_LIMIT: usize = 2000;
/// Longer lines are cut here (in characters) with a marker.
pub const MAX_LINE_CHARS: usize = 2000;
/// At most this many characters of numbered text per call; the rest is
/// left for a later call with `offset`.
pub const MAX_OUTPUT_CHARS: usize = 256_000;

/// Extensions of formats that are binary and not otherwise supported.
const BINARY_EXTENSIONS: &[&str] = &[
    "7z", "a", "avi", "bin", "bmp", "bz2", "class", "dat", "db", "dll", "dmg", "doc", "docx",
    "dylib", "eot", "exe", "flac", "gz", "ico", "iso", "jar", "lib", "mkv", "mov", "mp3", "mp4",
    "o", "obj", "otf", "pyc", "pyo", "rar", "so", "sqlite", "tar", "tgz", "tif", "tiff", "ttf",
    "wasm", "wav", "woff", "woff2", "xls", "xlsx", "xz", "zip", "zst",
];

/// The `Read` tool.
#[derive(Debug, Clone)]
pub struct ReadTool {
    state: Arc<FileStateCache>,
}

impl ReadTool {
    /// A Read tool recording into `state` (the session's cache).
    pub fn new(state: Arc<FileStateCache>) -> Self {
        Self { state }
    }
}

/// The input of `Read`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// The absolute path of the file to read.
    pub file_path: String,
    /// The line number to start reading from (1-based). Only for text
    /// files too large to read at once.
    #[serde(default)]
    pub offset: Option<u64>,
    /// The number of lines to read. Only for text files too large to read
    /// at once.
    #[serde(default)]
    pub limit: Option<u64>,
    /// PDF only: the pages to read, e.g. "3", "1-5" or "10-" (at most 20
    /// pages per call).
    #[serde(default)]
    pub pages: Option<String>,
}

/// What `Read` returns, by kind of file.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReadOutput {
    /// Numbered text lines.
    Text(TextOutput),
    /// An image.
    Image(ImageOutput),
    /// PDF text by page.
    Pdf(PdfOutput),
    /// Notebook cells.
    Notebook(NotebookOutput),
}

/// The kinds of file Read handles differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Image,
    Pdf,
    Notebook,
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

fn kind_of(path: &Path) -> Kind {
    match extension(path).as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" => Kind::Image,
        "pdf" => Kind::Pdf,
        "ipynb" => Kind::Notebook,
        _ => Kind::Text,
    }
}

const DESCRIPTION: &str = "Reads a file from the local file system. `file_path` must be an absolute path. \
By default up to 2000 lines are returned from the start of the file, numbered like `cat -n` \
(line number, tab, text); use `offset` (1-based line) and `limit` to read further in long files. \
Lines longer than 2000 characters are truncated. Images (png, jpeg, gif, webp) are returned as \
images; PDFs as text per page (use `pages`, e.g. \"1-5\", for long documents); Jupyter notebooks \
as cells with their outputs. Binary files are refused. Reading a directory fails: use Glob or Bash \
`ls` for that. A file must be read before it is edited or overwritten.";

/// Parses and checks the PDF `pages` argument.
fn validate_pages(pages: &str) -> Result<(), ToolError> {
    pdf::parse_pages(pages).map(|_| ())
}

#[async_trait]
impl TypedTool for ReadTool {
    type Input = ReadInput;
    type Output = ReadOutput;

    fn name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("read files, images, PDFs, notebooks")
    }
    fn is_concurrency_safe(&self, _input: &ReadInput) -> bool {
        true
    }
    fn is_read_only(&self, _input: &ReadInput) -> bool {
        true
    }
    fn max_result_size_chars(&self) -> usize {
        // Read caps its own output (MAX_OUTPUT_CHARS); spilling a read to
        // a file the model would then have to Read again is circular.
        usize::MAX
    }
    async fn validate_input(
        &self,
        input: &ReadInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        paths::require_absolute("file_path", &input.file_path)?;
        if input.limit == Some(0) {
            return Err(ToolError::invalid("`limit` must be at least 1"));
        }
        if let Some(pages) = &input.pages {
            validate_pages(pages)?;
        }
        // A missing file, a directory, a device or a binary format fails
        // now, before hooks and the permission prompt (SPEC §3 stage 4).
        let file_path = input.file_path.clone();
        tokio::task::spawn_blocking(move || check_target(&file_path).map(drop))
            .await
            .map_err(|e| ToolError::failed(format!("the read check failed: {e}")))?
    }
    fn permission_subject(
        &self,
        input: &ReadInput,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        Some(PermissionSubject::ReadPath(paths::subject_path(
            &input.file_path,
        )))
    }
    fn backfill_observable_input(&self, input: &mut serde_json::Value) {
        backfill_path(input, "file_path");
    }

    async fn call(
        &self,
        input: ReadInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<ReadOutput>, ToolError> {
        let state = FileStateCache::for_call(&self.state, cx.ctx);
        let output = tokio::task::spawn_blocking(move || read(&state, &input))
            .await
            .map_err(|e| ToolError::failed(format!("the read task failed: {e}")))??;
        Ok(ToolResult::new(output))
    }

    fn map_result(&self, output: &ReadOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        match output {
            ReadOutput::Text(t) => vec![ContentBlock::Text { text: t.render() }],
            ReadOutput::Image(i) => i.blocks(),
            ReadOutput::Pdf(p) => vec![ContentBlock::Text { text: p.render() }],
            ReadOutput::Notebook(n) => n.blocks(),
        }
    }
}

/// Replaces the observable input's path by its canonical form, so hooks
/// and rules see what the call will really touch.
pub(crate) fn backfill_path(input: &mut serde_json::Value, field: &str) {
    if let Some(serde_json::Value::String(p)) = input.get_mut(field)
        && Path::new(p.as_str()).is_absolute()
    {
        *p = paths::subject_path(p).display().to_string();
    }
}

/// Resolves `file_path` and checks it names a readable regular file.
pub(crate) fn open_target(file_path: &str) -> Result<(PathBuf, std::fs::Metadata), ToolError> {
    let path = paths::resolve("file_path", file_path)?;
    let meta = std::fs::metadata(&path).map_err(|e| {
        let hint = (e.kind() == std::io::ErrorKind::NotFound)
            .then(|| similar_name(&path))
            .flatten();
        match (paths::io_error("read", &path, e), hint) {
            (ToolError::Failed(msg), Some(h)) => {
                ToolError::failed(format!("{msg}. Did you mean {}?", h.display()))
            }
            (err, _) => err,
        }
    })?;
    if meta.is_dir() {
        return Err(ToolError::failed(format!(
            "{} is a directory, not a file. Use Glob to find files in it, or Bash `ls` to list it.",
            path.display()
        )));
    }
    if !meta.is_file() {
        // A FIFO or device would block or never end (/dev/zero, a pipe).
        return Err(ToolError::failed(format!(
            "{} is not a regular file (a device, socket or pipe) and cannot be read",
            path.display()
        )));
    }
    Ok((path, meta))
}

/// A file beside `path` whose name differs only in case or extension.
fn similar_name(path: &Path) -> Option<PathBuf> {
    let parent = path.parent()?;
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let stem = path.file_stem()?.to_string_lossy().to_lowercase();
    std::fs::read_dir(parent)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().to_lowercase());
            let s = p.file_stem().map(|s| s.to_string_lossy().to_lowercase());
            n.as_deref() == Some(name.as_str()) || s.as_deref() == Some(stem.as_str())
        })
}

/// Resolves `file_path` and checks that Read can show it: a readable
/// regular file of a kind Read supports (blocking; `validate_input` and the
/// call both check).
fn check_target(file_path: &str) -> Result<(PathBuf, std::fs::Metadata), ToolError> {
    paths::require_absolute("file_path", file_path)?;
    let (path, meta) = open_target(file_path)?;
    if kind_of(&path) == Kind::Text && BINARY_EXTENSIONS.contains(&extension(&path).as_str()) {
        return Err(binary_error(&path));
    }
    Ok((path, meta))
}

/// Does the read (blocking).
pub fn read(state: &FileStateCache, input: &ReadInput) -> Result<ReadOutput, ToolError> {
    let (path, meta) = check_target(&input.file_path)?;
    match kind_of(&path) {
        Kind::Image => image::read_image(state, &path, &meta).map(ReadOutput::Image),
        Kind::Pdf => {
            pdf::read_pdf(state, &path, &meta, input.pages.as_deref()).map(ReadOutput::Pdf)
        }
        Kind::Notebook => notebook::read_notebook(state, &path, &meta).map(ReadOutput::Notebook),
        Kind::Text => {
            text::read_text(state, &path, &meta, input.offset, input.limit).map(ReadOutput::Text)
        }
    }
}

/// The error for a binary file.
pub(crate) fn binary_error(path: &Path) -> ToolError {
    ToolError::failed(format!(
        "{} is a binary file and cannot be shown as text. Read supports text, images (png, jpeg, gif, webp), PDFs and notebooks.",
        path.display()
    ))
}
