//! `Glob`: file paths matching a glob pattern, newest first.
//!
//! The walk is ripgrep's (`ignore` crate, parallel): `.gitignore`,
//! `.ignore`, `.rgignore`, `.git/info/exclude` and the global git excludes
//! are honoured (gitignore files only inside a git repository, as in `rg`),
//! and hidden files and directories are skipped — unless the pattern itself
//! names a hidden component (`.github/**/*.yml`), as `rg --glob` users
//! expect. The pattern is matched against the path relative to the search
//! root with `globset` (`*` does not cross `/`; `**` does; `{a,b}` and
//! `[ab]` work). Results are sorted by modification time, newest first
//! (ties by path), and capped at `limit` with a `truncated` flag.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult, ToolUseContext, TypedTool};
use gatehouse_protocol::event::ContentBlock;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::paths;

/// Paths returned when no `limit` is given.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest `limit` accepted.
pub const MAX_LIMIT: usize = 10_000;

/// The `Glob` tool.
#[derive(Debug, Clone, Default)]
pub struct GlobTool;

impl GlobTool {
    /// The Glob tool.
    pub fn new() -> Self {
        Self
    }
}

/// The input of `Glob`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// The glob pattern, relative to `path`, e.g. "**/*.rs" or
    /// "src/**/*.{ts,tsx}".
    pub pattern: String,
    /// The absolute directory to search in. Defaults to the working
    /// directory.
    #[serde(default)]
    pub path: Option<String>,
    /// At most this many paths (default 100).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// What `Glob` returns.
#[derive(Debug, Clone, Serialize)]
pub struct GlobOutput {
    /// The canonical search root.
    pub root: String,
    /// Matching file paths (absolute), newest first.
    pub filenames: Vec<String>,
    /// How many files matched in total.
    pub num_matches: usize,
    /// Whether `filenames` was cut at the limit.
    pub truncated: bool,
    /// Wall time of the search.
    pub duration_ms: u64,
}

const DESCRIPTION: &str = "Finds files by glob pattern (e.g. \"**/*.js\", \"src/**/*.{ts,tsx}\"), \
matched against paths relative to `path` (default: the working directory). Honours .gitignore and \
skips hidden files unless the pattern names them. Returns absolute paths sorted by modification \
time, newest first, at most `limit` (default 100).";

/// Whether a pattern names a hidden path component explicitly.
fn names_hidden(pattern: &str) -> bool {
    pattern
        .split('/')
        .any(|c| c.starts_with('.') && c != "." && c != "..")
}

/// Compiles a glob with ripgrep-like options, as a one-glob `GlobSet`
/// (whose literal, extension and prefix strategies avoid running a regex
/// on every path, unlike a lone `GlobMatcher`).
pub(crate) fn compile(pattern: &str) -> Result<GlobSet, ToolError> {
    let invalid =
        |e: globset::Error| ToolError::invalid(format!("invalid glob pattern {pattern:?}: {e}"));
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(invalid)?;
    GlobSetBuilder::new().add(glob).build().map_err(invalid)
}

/// Resolves the search root: `path`, or the context's working directory.
pub(crate) fn search_root(path: Option<&str>, ctx: &ToolUseContext) -> Result<PathBuf, ToolError> {
    let raw = match path {
        Some(p) if !p.is_empty() => {
            paths::require_absolute("path", p)?;
            PathBuf::from(p)
        }
        _ => {
            if ctx.cwd.as_os_str().is_empty() {
                return Err(ToolError::invalid(
                    "no `path` given and no working directory is set",
                ));
            }
            ctx.cwd.clone()
        }
    };
    let root = raw
        .canonicalize()
        .map_err(|e| paths::io_error("search", &raw, e))?;
    Ok(root)
}

#[async_trait]
impl TypedTool for GlobTool {
    type Input = GlobInput;
    type Output = GlobOutput;

    fn name(&self) -> &str {
        "Glob"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("find files by name pattern or wildcard")
    }
    fn is_concurrency_safe(&self, _input: &GlobInput) -> bool {
        true
    }
    fn is_read_only(&self, _input: &GlobInput) -> bool {
        true
    }
    async fn validate_input(
        &self,
        input: &GlobInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        if let Some(p) = &input.path {
            paths::require_absolute("path", p)?;
        }
        if input.limit == Some(0) {
            return Err(ToolError::invalid("`limit` must be at least 1"));
        }
        compile(&input.pattern).map(|_| ())
    }
    fn permission_subject(&self, input: &GlobInput) -> Option<PermissionSubject> {
        input
            .path
            .as_deref()
            .map(|p| PermissionSubject::ReadPath(paths::subject_path(p)))
    }
    async fn call(
        &self,
        input: GlobInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<GlobOutput>, ToolError> {
        let root = search_root(input.path.as_deref(), cx.ctx)?;
        let output = tokio::task::spawn_blocking(move || glob(&root, &input.pattern, input.limit))
            .await
            .map_err(|e| ToolError::failed(format!("the glob task failed: {e}")))??;
        Ok(ToolResult::new(output))
    }
    fn map_result(&self, output: &GlobOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        let mut text = if output.filenames.is_empty() {
            "No files found".to_owned()
        } else {
            output.filenames.join("\n")
        };
        if output.truncated {
            text.push_str(&format!(
                "\n(Results are truncated: {} of {} files shown. Use a more specific path or pattern.)",
                output.filenames.len(),
                output.num_matches
            ));
        }
        vec![ContentBlock::Text { text }]
    }
}

/// Per-thread results of a parallel walk, appended to the shared list in
/// batches (and when the thread's visitor is dropped at the end).
pub(crate) struct Batch<'a, T> {
    local: Vec<T>,
    sink: &'a Mutex<Vec<T>>,
}

impl<'a, T> Batch<'a, T> {
    /// An empty batch flushing into `sink`.
    pub(crate) fn new(sink: &'a Mutex<Vec<T>>) -> Self {
        Self {
            local: Vec::new(),
            sink,
        }
    }

    /// Adds one result.
    pub(crate) fn push(&mut self, item: T) {
        self.local.push(item);
        if self.local.len() >= 256 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let mut all = self
            .sink
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.append(&mut self.local);
    }
}

impl<T> Drop for Batch<'_, T> {
    fn drop(&mut self) {
        if !self.local.is_empty() {
            self.flush();
        }
    }
}

/// Runs a glob search under `root` (blocking).
pub fn glob(root: &Path, pattern: &str, limit: Option<usize>) -> Result<GlobOutput, ToolError> {
    let started = std::time::Instant::now();
    let limit = limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    // An absolute pattern under the root is made relative to it.
    let pattern = match Path::new(pattern).strip_prefix(root) {
        Ok(rel) if Path::new(pattern).is_absolute() => rel.to_string_lossy().into_owned(),
        _ => pattern.trim_start_matches("./").to_owned(),
    };
    let matcher = compile(&pattern)?;
    let found: Mutex<Vec<(Option<SystemTime>, PathBuf)>> = Mutex::new(Vec::new());
    let walker = WalkBuilder::new(root)
        .hidden(!names_hidden(&pattern))
        .threads(0)
        .build_parallel();
    walker.run(|| {
        let matcher = &matcher;
        let mut batch = Batch::new(&found);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if entry.file_type().is_some_and(|t| t.is_file()) {
                let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
                if matcher.is_match(rel) {
                    let mtime = entry.metadata().ok().and_then(|m| m.modified().ok());
                    batch.push((mtime, entry.path().to_path_buf()));
                }
            }
            WalkState::Continue
        })
    });
    let mut all = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Newest first; equal times by path so the order is stable.
    all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let num_matches = all.len();
    let truncated = num_matches > limit;
    all.truncate(limit);
    Ok(GlobOutput {
        root: root.display().to_string(),
        filenames: all
            .into_iter()
            .map(|(_, p)| p.display().to_string())
            .collect(),
        num_matches,
        truncated,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}
