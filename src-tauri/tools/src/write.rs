//! `Write`: creates a file or replaces its whole content.
//!
//! Overwriting an existing file requires a full Read of it in this session
//! that is still current (see [`crate::file_state`]); a new file needs none.
//! Parent directories are created. The write is atomic (temp file + rename,
//! permissions kept) and an existing file's encoding (UTF-8 with or without
//! BOM, UTF-16LE) is kept; the content's line endings are written as given.
//! The result carries a structured diff for the UI.

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult, ToolUseContext, TypedTool};
use gatehouse_protocol::diff::FileDiff;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::change;
use crate::encoding::{self, Encoding, LineEnding};
use crate::file_state::FileStateCache;
use crate::paths;
use crate::read::backfill_path;

/// The `Write` tool.
#[derive(Debug, Clone)]
pub struct WriteTool {
    state: Arc<FileStateCache>,
}

impl WriteTool {
    /// A Write tool checking against and recording into `state`.
    pub fn new(state: Arc<FileStateCache>) -> Self {
        Self { state }
    }
}

/// The input of `Write`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// The absolute path of the file to write.
    pub file_path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// Whether a Write created or replaced its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// The file did not exist.
    Create,
    /// The file existed and was replaced.
    Update,
}

/// What `Write` returns.
#[derive(Debug, Clone, Serialize)]
pub struct WriteOutput {
    /// Created or replaced.
    #[serde(rename = "type")]
    pub kind: WriteKind,
    /// The canonical path written.
    pub file_path: String,
    /// The change, for the UI.
    pub diff: FileDiff,
}

impl change::Changed for WriteOutput {
    fn diff(&self) -> &FileDiff {
        &self.diff
    }
}

const DESCRIPTION: &str = "Writes a file to the local file system, creating it (and missing parent \
directories) or replacing its whole content. `file_path` must be absolute. To overwrite an existing \
file you must have read all of it with Read in this session, and it must not have changed since. \
Prefer Edit for changing part of an existing file.";

#[async_trait]
impl TypedTool for WriteTool {
    type Input = WriteInput;
    type Output = WriteOutput;

    fn name(&self) -> &str {
        "Write"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("create or overwrite files")
    }
    fn is_destructive(&self, input: &WriteInput) -> bool {
        std::path::Path::new(&input.file_path).exists()
    }
    async fn validate_input(
        &self,
        input: &WriteInput,
        ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        paths::require_absolute("file_path", &input.file_path)?;
        // Overwriting needs a current full read; a directory or an
        // undecodable file cannot be written: found before anyone is asked.
        let path = input.file_path.clone();
        change::validate(&self.state, ctx, "write", path, |state, path| {
            plan_write(state, path).map(drop)
        })
        .await
    }
    fn permission_subject(
        &self,
        input: &WriteInput,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        change::write_subject(&input.file_path)
    }
    fn backfill_observable_input(&self, input: &mut serde_json::Value) {
        backfill_path(input, "file_path");
    }
    async fn call(
        &self,
        input: WriteInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<WriteOutput>, ToolError> {
        change::run(&self.state, &cx, "write", input, write).await
    }
    fn map_result(
        &self,
        output: &WriteOutput,
        _tool_use_id: &str,
    ) -> Vec<gatehouse_protocol::event::ContentBlock> {
        let text = match output.kind {
            WriteKind::Create => format!(
                "File created successfully at: {} ({} lines)",
                output.file_path, output.diff.additions
            ),
            WriteKind::Update => format!(
                "The file {} has been updated (+{} −{} lines).",
                output.file_path, output.diff.additions, output.diff.deletions
            ),
        };
        vec![gatehouse_protocol::event::ContentBlock::Text { text }]
    }
}

/// The file a Write replaces, as it is now: its canonical path, its text
/// (`None`: the file is new) and the encoding to keep.
type WriteTarget = (std::path::PathBuf, Option<String>, Encoding);

/// Checks that `file_path` may be written (blocking): an existing file must
/// have been read in full in this session and be unchanged since, and be
/// text Write can re-encode. Used by `validate_input` and by the call.
fn plan_write(state: &FileStateCache, file_path: &str) -> Result<WriteTarget, ToolError> {
    let path = paths::resolve("file_path", file_path)?;
    let current = change::load_fresh(state, &path, true)?;
    let (old_text, encoding) = match &current {
        None => (None, Encoding::Utf8),
        Some(cur) => {
            let file = encoding::decode(&cur.bytes).map_err(|e| {
                ToolError::failed(format!("cannot overwrite {}: {e}", path.display()))
            })?;
            // The diff compares what the model sees: LF text.
            (Some(file.text), file.encoding)
        }
    };
    Ok((path, old_text, encoding))
}

/// Does the write (blocking).
pub fn write(state: &FileStateCache, input: &WriteInput) -> Result<WriteOutput, ToolError> {
    let (path, old_text, encoding) = plan_write(state, &input.file_path)?;
    let existed = old_text.is_some();
    let bytes = encoding::encode(&input.content, encoding, LineEnding::Lf);
    let new_text = input.content.replace("\r\n", "\n");
    let diff = change::commit(state, &path, old_text.as_deref(), &new_text, &bytes)?;
    Ok(WriteOutput {
        kind: if existed {
            WriteKind::Update
        } else {
            WriteKind::Create
        },
        file_path: path.display().to_string(),
        diff,
    })
}
