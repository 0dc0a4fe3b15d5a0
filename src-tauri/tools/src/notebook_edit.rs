//! `NotebookEdit`: replace, insert or delete one cell of a Jupyter notebook.
//!
//! Cells are addressed by id (nbformat ≥ 4.5), or by position as `cell-N`
//! or `N` (0-based) for notebooks without ids. `insert` puts the new cell
//! after the addressed cell (at the start when no cell is given). The same
//! stale-write rule as Edit applies. The notebook is written back in
//! nbformat's conventions — keys sorted, the file's indentation (one space
//! by default), sources as lists of lines, a trailing newline if it had one
//! — and replacing a code cell's source clears its outputs and execution
//! count, as Jupyter does.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult, ToolUseContext, TypedTool};
use gatehouse_protocol::diff::FileDiff;
use gatehouse_protocol::event::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::change;
use crate::file_state::FileStateCache;
use crate::paths;
use crate::read::backfill_path;
use crate::read::notebook::cell_id;

/// The `NotebookEdit` tool.
#[derive(Debug, Clone)]
pub struct NotebookEditTool {
    state: Arc<FileStateCache>,
}

impl NotebookEditTool {
    /// A NotebookEdit tool checking against and recording into `state`.
    pub fn new(state: Arc<FileStateCache>) -> Self {
        Self { state }
    }
}

/// What to do with the cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditMode {
    /// Replace the cell's source (the default).
    #[default]
    Replace,
    /// Insert a new cell after the addressed one.
    Insert,
    /// Delete the cell.
    Delete,
}

/// A cell's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    /// Code.
    Code,
    /// Markdown.
    Markdown,
}

/// The input of `NotebookEdit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditInput {
    /// The absolute path of the .ipynb file.
    pub notebook_path: String,
    /// The cell's id (as Read shows it), or its 0-based index as "cell-N"
    /// or "N". For insert: the new cell goes after this one (omit to insert
    /// at the start).
    #[serde(default)]
    pub cell_id: Option<String>,
    /// The new source of the cell (ignored for delete).
    #[serde(default)]
    pub new_source: String,
    /// The cell type: required for insert; for replace, changes the type.
    #[serde(default)]
    pub cell_type: Option<CellType>,
    /// "replace" (default), "insert" or "delete".
    #[serde(default)]
    pub edit_mode: Option<EditMode>,
}

/// What `NotebookEdit` returns.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookEditOutput {
    /// The canonical path changed.
    pub notebook_path: String,
    /// The mode applied.
    pub edit_mode: EditMode,
    /// The id of the cell replaced, inserted or deleted.
    pub cell_id: String,
    /// Its index after the edit (before, for delete).
    pub index: usize,
    /// The change to the file, for the UI.
    pub diff: FileDiff,
}

impl change::Changed for NotebookEditOutput {
    fn diff(&self) -> &FileDiff {
        &self.diff
    }
}

const DESCRIPTION: &str = "Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb). \
`notebook_path` must be absolute; the notebook must have been read with Read in this session and \
not changed since. Address the cell by `cell_id` as Read shows it (or \"cell-N\" for the 0-based \
index). `edit_mode`: \"replace\" (default), \"insert\" (after `cell_id`, or at the start without \
one; `cell_type` required) or \"delete\".";

/// nbformat's "multiline string": a list of lines, each but the last
/// ending in a newline.
fn source_lines(source: &str) -> Value {
    Value::Array(
        source
            .split_inclusive('\n')
            .map(|l| Value::String(l.to_owned()))
            .collect(),
    )
}

/// A fresh cell id: 8 hex digits, unique in the notebook.
fn new_cell_id(cells: &[Value]) -> String {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut n = (seed as u64) ^ (cells.len() as u64).rotate_left(32);
    loop {
        let id = format!("{:08x}", n & 0xFFFF_FFFF);
        if !cells.iter().enumerate().any(|(i, c)| cell_id(c, i) == id) {
            return id;
        }
        n = n.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    }
}

/// Finds the addressed cell's index.
fn find_cell(cells: &[Value], id: &str) -> Option<usize> {
    if let Some(i) = cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
    {
        return Some(i);
    }
    let index = id
        .strip_prefix("cell-")
        .unwrap_or(id)
        .parse::<usize>()
        .ok()?;
    (index < cells.len()).then_some(index)
}

/// The indentation of a JSON document (nbformat uses one space).
fn detect_indent(text: &str) -> usize {
    text.lines()
        .nth(1)
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .filter(|n| *n > 0)
        .unwrap_or(1)
}

/// Serialises `value` with `indent` spaces, keys sorted (serde_json's map
/// is ordered by key), non-ASCII kept as is.
fn to_json(value: &Value, indent: usize) -> Result<String, ToolError> {
    let pad = vec![b' '; indent];
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&pad);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value
        .serialize(&mut ser)
        .map_err(|e| ToolError::failed(format!("cannot serialise the notebook: {e}")))?;
    String::from_utf8(out)
        .map_err(|e| ToolError::failed(format!("cannot serialise the notebook: {e}")))
}

#[async_trait]
impl TypedTool for NotebookEditTool {
    type Input = NotebookEditInput;
    type Output = NotebookEditOutput;

    fn name(&self) -> &str {
        "NotebookEdit"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("edit Jupyter notebook cells")
    }
    fn is_destructive(&self, input: &NotebookEditInput) -> bool {
        input.edit_mode == Some(EditMode::Delete)
    }
    async fn validate_input(
        &self,
        input: &NotebookEditInput,
        ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        paths::require_absolute("notebook_path", &input.notebook_path)?;
        if !Path::new(&input.notebook_path)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
        {
            return Err(ToolError::invalid(format!(
                "{} is not a Jupyter notebook (.ipynb); use Edit for other files",
                input.notebook_path
            )));
        }
        let mode = input.edit_mode.unwrap_or_default();
        if mode == EditMode::Insert && input.cell_type.is_none() {
            return Err(ToolError::invalid(
                "`cell_type` is required when inserting a cell",
            ));
        }
        if mode != EditMode::Insert && input.cell_id.is_none() {
            return Err(ToolError::invalid(
                "`cell_id` is required to replace or delete a cell",
            ));
        }
        // The notebook must have been read, be unchanged and hold the cell:
        // checked now, so nobody is asked about an edit that cannot work.
        change::validate(
            &self.state,
            ctx,
            "notebook edit",
            input.clone(),
            |state, input| plan_notebook_edit(state, input).map(drop),
        )
        .await
    }
    fn permission_subject(
        &self,
        input: &NotebookEditInput,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        change::write_subject(&input.notebook_path)
    }
    fn backfill_observable_input(&self, input: &mut Value) {
        backfill_path(input, "notebook_path");
    }
    async fn call(
        &self,
        input: NotebookEditInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<NotebookEditOutput>, ToolError> {
        change::run(&self.state, &cx, "notebook edit", input, notebook_edit).await
    }
    fn map_result(&self, output: &NotebookEditOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        let what = match output.edit_mode {
            EditMode::Replace => "Updated",
            EditMode::Insert => "Inserted",
            EditMode::Delete => "Deleted",
        };
        vec![ContentBlock::Text {
            text: format!(
                "{what} cell {} (index {}) in {}.",
                output.cell_id, output.index, output.notebook_path
            ),
        }]
    }
}

/// A notebook edit worked out against the file as it is now, not yet
/// written.
#[derive(Debug)]
struct PlannedNotebookEdit {
    path: std::path::PathBuf,
    old_text: String,
    new_text: String,
    mode: EditMode,
    cell_id: String,
    index: usize,
}

/// Works the edit out (blocking): the notebook was read and is unchanged
/// since, parses, and has the addressed cell. Used by `validate_input` (so
/// such a call never reaches the permission prompt) and by the call.
fn plan_notebook_edit(
    state: &FileStateCache,
    input: &NotebookEditInput,
) -> Result<PlannedNotebookEdit, ToolError> {
    let path = paths::resolve("notebook_path", &input.notebook_path)?;
    let Some(current) = change::load_fresh(state, &path, false)? else {
        return Err(ToolError::failed(format!(
            "{} does not exist",
            path.display()
        )));
    };
    let old_text = String::from_utf8(current.bytes)
        .map_err(|_| ToolError::failed(format!("{} is not valid UTF-8", path.display())))?;
    let mut notebook: Value = serde_json::from_str(&old_text).map_err(|e| {
        ToolError::failed(format!(
            "{} is not valid notebook JSON: {e}",
            path.display()
        ))
    })?;
    let nb_minor = notebook
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let nb_major = notebook
        .get("nbformat")
        .and_then(Value::as_u64)
        .unwrap_or(4);
    let with_ids = nb_major > 4 || (nb_major == 4 && nb_minor >= 5);
    let cells = notebook
        .get_mut("cells")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| ToolError::failed(format!("{} has no `cells` array", path.display())))?;
    let mode = input.edit_mode.unwrap_or_default();
    let addressed = match &input.cell_id {
        Some(id) => Some(find_cell(cells, id).ok_or_else(|| {
            ToolError::failed(format!(
                "no cell {id:?} in {} ({} cells; ids are shown by Read, or use cell-N for index N)",
                path.display(),
                cells.len()
            ))
        })?),
        None => None,
    };
    let (index, id) = match mode {
        EditMode::Replace => {
            let i = addressed
                .ok_or_else(|| ToolError::invalid("`cell_id` is required to replace a cell"))?;
            let cell = cells[i].as_object_mut().ok_or_else(|| {
                ToolError::failed(format!("cell {i} of {} is not an object", path.display()))
            })?;
            cell.insert("source".into(), source_lines(&input.new_source));
            if let Some(t) = input.cell_type {
                cell.insert("cell_type".into(), json!(t));
            }
            if cell.get("cell_type").and_then(Value::as_str) == Some("code") {
                cell.insert("outputs".into(), json!([]));
                cell.insert("execution_count".into(), Value::Null);
            } else {
                cell.remove("outputs");
                cell.remove("execution_count");
            }
            (i, cell_id(&cells[i], i))
        }
        EditMode::Insert => {
            let at = addressed.map_or(0, |i| i + 1);
            let mut cell = Map::new();
            let kind = input.cell_type.unwrap_or(CellType::Code);
            cell.insert("cell_type".into(), json!(kind));
            cell.insert("metadata".into(), json!({}));
            cell.insert("source".into(), source_lines(&input.new_source));
            if kind == CellType::Code {
                cell.insert("outputs".into(), json!([]));
                cell.insert("execution_count".into(), Value::Null);
            }
            if with_ids {
                cell.insert("id".into(), Value::String(new_cell_id(cells)));
            }
            cells.insert(at, Value::Object(cell));
            (at, cell_id(&cells[at], at))
        }
        EditMode::Delete => {
            let i = addressed
                .ok_or_else(|| ToolError::invalid("`cell_id` is required to delete a cell"))?;
            let id = cell_id(&cells[i], i);
            cells.remove(i);
            (i, id)
        }
    };
    let mut new_text = to_json(&notebook, detect_indent(&old_text))?;
    if old_text.ends_with('\n') {
        new_text.push('\n');
    }
    Ok(PlannedNotebookEdit {
        path,
        old_text,
        new_text,
        mode,
        cell_id: id,
        index,
    })
}

/// Does the edit (blocking): [`plan_notebook_edit`] against the notebook as
/// it is now, then the atomic write.
pub fn notebook_edit(
    state: &FileStateCache,
    input: &NotebookEditInput,
) -> Result<NotebookEditOutput, ToolError> {
    let planned = plan_notebook_edit(state, input)?;
    let diff = change::commit(
        state,
        &planned.path,
        Some(&planned.old_text),
        &planned.new_text,
        planned.new_text.as_bytes(),
    )?;
    Ok(NotebookEditOutput {
        notebook_path: planned.path.display().to_string(),
        edit_mode: planned.mode,
        cell_id: planned.cell_id,
        index: planned.index,
        diff,
    })
}
