//! Jupyter notebooks: every cell with its id, type, source and outputs
//! (stream text, results, errors; image outputs as image blocks).

use std::fmt::Write as _;
use std::path::Path;

use gatehouse_core::ToolError;
use gatehouse_protocol::event::{ContentBlock, ImageSource};
use serde::Serialize;
use serde_json::Value;

use crate::file_state::FileStateCache;
use crate::paths;

/// Notebooks larger than this are refused.
pub const MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;
/// Text of one output longer than this is cut.
const MAX_OUTPUT_TEXT: usize = 10_000;

/// One output of a code cell.
#[derive(Debug, Clone, Serialize)]
pub struct CellOutput {
    /// `stream`, `execute_result`, `display_data` or `error`.
    pub output_type: String,
    /// Its text, if any.
    pub text: Option<String>,
    /// An image (`image/png` or `image/jpeg`, base64), if any.
    pub image: Option<(String, String)>,
}

/// One cell.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookCell {
    /// 0-based position.
    pub index: usize,
    /// The cell's id (nbformat ≥ 4.5), or `cell-{index}` when it has none.
    pub id: String,
    /// `code`, `markdown` or `raw`.
    pub cell_type: String,
    /// The source text.
    pub source: String,
    /// The execution count of a code cell that ran.
    pub execution_count: Option<i64>,
    /// The outputs of a code cell.
    pub outputs: Vec<CellOutput>,
}

/// A notebook's cells.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookOutput {
    /// The canonical path read.
    pub file_path: String,
    /// The kernel language, when declared.
    pub language: Option<String>,
    /// The cells in order.
    pub cells: Vec<NotebookCell>,
}

/// Joins nbformat's "multiline string" (a string or a list of strings).
pub fn multiline(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn cut(mut text: String) -> String {
    if let Some((i, _)) = text.char_indices().nth(MAX_OUTPUT_TEXT) {
        text.truncate(i);
        text.push_str("… [output truncated]");
    }
    text
}

fn parse_output(output: &Value) -> CellOutput {
    let output_type = output
        .get("output_type")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned();
    let data = output.get("data");
    let text = match output_type.as_str() {
        "stream" => Some(multiline(output.get("text"))),
        "error" => {
            let name = output
                .get("ename")
                .and_then(Value::as_str)
                .unwrap_or("Error");
            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            Some(format!("{name}: {value}"))
        }
        _ => data
            .and_then(|d| d.get("text/plain"))
            .map(|t| multiline(Some(t))),
    }
    .map(cut);
    let image = ["image/png", "image/jpeg"].iter().find_map(|mime| {
        data.and_then(|d| d.get(*mime)).map(|v| {
            let b64: String = multiline(Some(v)).split_whitespace().collect();
            ((*mime).to_owned(), b64)
        })
    });
    CellOutput {
        output_type,
        text,
        image,
    }
}

/// The id of cell `index`: its own, or `cell-{index}`.
pub fn cell_id(cell: &Value, index: usize) -> String {
    cell.get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("cell-{index}"), str::to_owned)
}

/// Parses a notebook's JSON into cells.
pub fn parse(path: &Path, notebook: &Value) -> Result<NotebookOutput, ToolError> {
    let cells = notebook
        .get("cells")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ToolError::failed(format!(
                "{} is not a notebook: it has no `cells` array",
                path.display()
            ))
        })?;
    let language = notebook
        .pointer("/metadata/language_info/name")
        .or_else(|| notebook.pointer("/metadata/kernelspec/language"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let cells = cells
        .iter()
        .enumerate()
        .map(|(index, cell)| NotebookCell {
            index,
            id: cell_id(cell, index),
            cell_type: cell
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code")
                .to_owned(),
            source: multiline(cell.get("source")),
            execution_count: cell.get("execution_count").and_then(Value::as_i64),
            outputs: cell
                .get("outputs")
                .and_then(Value::as_array)
                .map(|o| o.iter().map(parse_output).collect())
                .unwrap_or_default(),
        })
        .collect();
    Ok(NotebookOutput {
        file_path: path.display().to_string(),
        language,
        cells,
    })
}

impl NotebookOutput {
    /// The tool_result content: the cells as text, image outputs as images.
    pub fn blocks(&self) -> Vec<ContentBlock> {
        let mut text = String::new();
        let mut images = Vec::new();
        for cell in &self.cells {
            let _ = writeln!(
                text,
                "<cell id=\"{}\" type=\"{}\">",
                cell.id, cell.cell_type
            );
            text.push_str(&cell.source);
            if !cell.source.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("</cell>\n");
            for output in &cell.outputs {
                if let Some(t) = &output.text {
                    let _ = writeln!(
                        text,
                        "<output cell=\"{}\" type=\"{}\">",
                        cell.id, output.output_type
                    );
                    text.push_str(t);
                    if !t.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str("</output>\n");
                }
                if let Some((mime, data)) = &output.image {
                    let _ = writeln!(
                        text,
                        "<output cell=\"{}\" type=\"image\">[image {} below]</output>",
                        cell.id,
                        images.len() + 1
                    );
                    images.push(ContentBlock::Image {
                        source: ImageSource {
                            kind: "base64".into(),
                            media_type: mime.clone(),
                            data: data.clone(),
                        },
                    });
                }
            }
        }
        if self.cells.is_empty() {
            text.push_str("<system-reminder>The notebook has no cells.</system-reminder>");
        }
        let mut blocks = vec![ContentBlock::Text { text }];
        blocks.extend(images);
        blocks
    }
}

/// Reads a notebook and records the read.
pub fn read_notebook(
    state: &FileStateCache,
    path: &Path,
    meta: &std::fs::Metadata,
) -> Result<NotebookOutput, ToolError> {
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::failed(format!(
            "{} is {} bytes; notebooks over {MAX_FILE_BYTES} bytes are not read",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| paths::io_error("read", path, e))?;
    let json: Value = serde_json::from_slice(&bytes).map_err(|e| {
        ToolError::failed(format!(
            "{} is not valid notebook JSON: {e}",
            path.display()
        ))
    })?;
    let output = parse(path, &json)?;
    state.record_full(path, meta, &bytes);
    Ok(output)
}
