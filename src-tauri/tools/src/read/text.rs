//! Text files: streamed line by line, so reading 2000 lines of a huge file
//! costs no more than those lines.

use std::fmt::Write as _;
use std::fs::File;
use std::hash::Hasher;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use gatehouse_core::ToolError;
use serde::Serialize;

use super::{DEFAULT_LINE_LIMIT, MAX_LINE_CHARS, MAX_OUTPUT_CHARS, binary_error};
use crate::encoding::{self, Encoding};
use crate::file_state::{FileState, FileStateCache};
use crate::paths;

/// The numbered lines of a text file.
#[derive(Debug, Clone, Serialize)]
pub struct TextOutput {
    /// The canonical path read.
    pub file_path: String,
    /// `cat -n` style lines: `{n:>6}\t{text}`, one per line.
    pub content: String,
    /// The first line shown (1-based).
    pub start_line: u64,
    /// How many lines are shown.
    pub num_lines: u64,
    /// Total lines in the file, when the whole file was scanned.
    pub total_lines: Option<u64>,
    /// Whether the whole file is shown.
    pub complete: bool,
    /// How many lines were cut at [`MAX_LINE_CHARS`].
    pub truncated_lines: u64,
    /// A note for the model (more to read, empty file, invalid UTF-8 …).
    pub note: Option<String>,
}

impl TextOutput {
    /// The tool_result text.
    pub fn render(&self) -> String {
        match &self.note {
            Some(note) if self.content.is_empty() => {
                format!("<system-reminder>{note}</system-reminder>")
            }
            Some(note) => format!(
                "{}\n\n<system-reminder>{note}</system-reminder>",
                self.content
            ),
            None => self.content.clone(),
        }
    }
}

/// Appends one numbered line, truncating long ones. Returns whether it was
/// truncated.
fn push_line(out: &mut String, number: u64, line: &str) -> bool {
    let _ = write!(out, "{number:>6}\t");
    let cut = line.char_indices().nth(MAX_LINE_CHARS).map(|(i, _)| i);
    match cut {
        Some(i) => {
            out.push_str(&line[..i]);
            let _ = write!(
                out,
                "… [line truncated: {} characters]",
                line.chars().count()
            );
            out.push('\n');
            true
        }
        None => {
            out.push_str(line);
            out.push('\n');
            false
        }
    }
}

fn strip_terminator(mut line: &[u8]) -> &[u8] {
    if let Some(rest) = line.strip_suffix(b"\n") {
        line = rest;
    }
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Reads `[offset, offset + limit)` of a text file and records the read.
pub fn read_text(
    state: &FileStateCache,
    path: &Path,
    meta: &std::fs::Metadata,
    offset: Option<u64>,
    limit: Option<u64>,
) -> Result<TextOutput, ToolError> {
    let start = offset.unwrap_or(1).max(1);
    let limit = limit.map_or(DEFAULT_LINE_LIMIT as u64, |l| l.max(1));
    let file = File::open(path).map_err(|e| paths::io_error("read", path, e))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader
        .fill_buf()
        .map_err(|e| paths::io_error("read", path, e))?;
    if encoding::looks_binary(head) {
        return Err(binary_error(path));
    }
    if encoding::detect_encoding(head) == Encoding::Utf16Le {
        return read_utf16(state, path, meta, reader, start, limit);
    }
    let skip_bom = encoding::detect_encoding(head) == Encoding::Utf8Bom;

    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut buf = Vec::with_capacity(256);
    let mut content = String::new();
    let mut number = 0_u64;
    let mut shown = 0_u64;
    let mut truncated_lines = 0_u64;
    let mut invalid_utf8 = false;
    let mut stopped_early = false;
    let mut budget_hit = false;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| paths::io_error("read", path, e))?;
        if n == 0 {
            break;
        }
        hasher.write(&buf);
        number += 1;
        if number < start {
            continue;
        }
        if shown >= limit || content.len() >= MAX_OUTPUT_CHARS {
            budget_hit = content.len() >= MAX_OUTPUT_CHARS && shown < limit;
            stopped_early = true;
            break;
        }
        let mut bytes = strip_terminator(&buf);
        if number == 1 && skip_bom {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let line = match std::str::from_utf8(bytes) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => {
                invalid_utf8 = true;
                String::from_utf8_lossy(bytes)
            }
        };
        if push_line(&mut content, number, &line) {
            truncated_lines += 1;
        }
        shown += 1;
    }

    let complete = !stopped_early && start == 1;
    state.record(
        path,
        FileState {
            mtime: meta.modified().ok(),
            len: meta.len(),
            content_hash: complete.then(|| hasher.finish()),
            partial: !complete,
        },
    );
    let total_lines = (!stopped_early).then_some(number);
    let mut notes = Vec::new();
    if number == 0 {
        notes.push("The file exists but is empty.".to_owned());
    } else if shown == 0 && !stopped_early {
        notes.push(format!(
            "The file has only {number} lines; offset {start} is past its end."
        ));
    }
    if stopped_early {
        let next = start + shown;
        let why = if budget_hit {
            format!("the output reached {MAX_OUTPUT_CHARS} characters")
        } else {
            format!("{shown} lines were shown")
        };
        notes.push(format!(
            "The file has more lines: {why} (lines {start}–{}). To read further, call Read again with offset={next}.",
            next - 1
        ));
    }
    if truncated_lines > 0 {
        notes.push(format!(
            "{truncated_lines} line(s) longer than {MAX_LINE_CHARS} characters were truncated."
        ));
    }
    if invalid_utf8 {
        notes.push(
            "The file is not valid UTF-8; invalid bytes are shown as U+FFFD. Edit and Write will refuse to change it."
                .to_owned(),
        );
    }
    Ok(TextOutput {
        file_path: path.display().to_string(),
        content,
        start_line: start,
        num_lines: shown,
        total_lines,
        complete,
        truncated_lines,
        note: (!notes.is_empty()).then(|| notes.join(" ")),
    })
}

/// UTF-16LE files are small in practice: decoded whole, then windowed.
fn read_utf16(
    state: &FileStateCache,
    path: &Path,
    meta: &std::fs::Metadata,
    mut reader: BufReader<File>,
    start: u64,
    limit: u64,
) -> Result<TextOutput, ToolError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| paths::io_error("read", path, e))?;
    let file = encoding::decode(&bytes)
        .map_err(|e| ToolError::failed(format!("cannot read {}: {e}", path.display())))?;
    let lines: Vec<&str> = file.text.lines().collect();
    let total = lines.len() as u64;
    let mut content = String::new();
    let mut truncated_lines = 0;
    let from = usize::try_from(start - 1).unwrap_or(usize::MAX);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut shown = 0_u64;
    for (i, line) in lines.iter().enumerate().skip(from).take(take) {
        if push_line(&mut content, i as u64 + 1, line) {
            truncated_lines += 1;
        }
        shown += 1;
    }
    let complete = start == 1 && shown == total;
    if complete {
        state.record_full(path, meta, &bytes);
    } else {
        state.record(
            path,
            FileState {
                mtime: meta.modified().ok(),
                len: meta.len(),
                content_hash: None,
                partial: true,
            },
        );
    }
    let note = (!complete && start + shown <= total).then(|| {
        format!(
            "The file has {total} lines; lines {start}–{} were shown. To read further, call Read again with offset={}.",
            start + shown - 1,
            start + shown
        )
    });
    Ok(TextOutput {
        file_path: path.display().to_string(),
        content,
        start_line: start,
        num_lines: shown,
        total_lines: Some(total),
        complete,
        truncated_lines,
        note,
    })
}
