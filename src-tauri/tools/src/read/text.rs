//! Text files: streamed line by line, so reading 2000 lines of a huge file
//! costs no more than those lines.

use std::fmt::Write as _;
use std::fs::File;
use std::hash::Hasher;
use std::io::{BufRead, BufReader};
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

/// UTF-16LE files (with their `FF FE` mark): decoded as they are read, a
/// chunk at a time, under the same caps as UTF-8 reads ([`MAX_OUTPUT_CHARS`]
/// of output, `limit` lines, [`MAX_LINE_CHARS`] per line, and no more than
/// one line's shown part held), so a huge file costs no more than the
/// lines shown.
fn read_utf16(
    state: &FileStateCache,
    path: &Path,
    meta: &std::fs::Metadata,
    mut reader: BufReader<File>,
    start: u64,
    limit: u64,
) -> Result<TextOutput, ToolError> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut lines = Utf16Lines::default();
    let mut content = String::new();
    let mut number = 0_u64;
    let mut shown = 0_u64;
    let mut truncated_lines = 0_u64;
    let mut stopped_early = false;
    let mut budget_hit = false;
    let mut bom = true;
    let mut finished = false;
    'read: while !finished {
        let chunk = reader
            .fill_buf()
            .map_err(|e| paths::io_error("read", path, e))?;
        let taken = chunk.len();
        hasher.write(chunk);
        let mut bytes = chunk;
        if bom {
            bytes = bytes.strip_prefix(b"\xFF\xFE").unwrap_or(bytes);
            bom = false;
        }
        let mut complete_lines = Vec::new();
        if taken == 0 {
            finished = true;
            complete_lines.extend(lines.finish());
        } else {
            lines.feed(bytes, &mut complete_lines);
        }
        reader.consume(taken);
        for line in complete_lines {
            number += 1;
            if number < start {
                continue;
            }
            if shown >= limit || content.len() >= MAX_OUTPUT_CHARS {
                budget_hit = content.len() >= MAX_OUTPUT_CHARS && shown < limit;
                stopped_early = true;
                break 'read;
            }
            let _ = write!(content, "{number:>6}\t{}", line.shown);
            if line.chars > MAX_LINE_CHARS {
                let _ = write!(content, "… [line truncated: {} characters]", line.chars);
                truncated_lines += 1;
            }
            content.push('\n');
            shown += 1;
        }
    }
    let invalid = lines.invalid;

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
    let total = number;
    let mut notes = Vec::new();
    if total == 0 {
        notes.push("The file exists but is empty.".to_owned());
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
    } else if shown == 0 && total > 0 {
        notes.push(format!(
            "The file has only {total} lines; offset {start} is past its end."
        ));
    }
    if invalid {
        notes.push(
            "The file is not valid UTF-16LE; invalid units are shown as U+FFFD. Edit and Write will refuse to change it."
                .to_owned(),
        );
    }
    Ok(TextOutput {
        file_path: path.display().to_string(),
        content,
        start_line: start,
        num_lines: shown,
        total_lines: (!stopped_early).then_some(total),
        complete,
        truncated_lines,
        note: (!notes.is_empty()).then(|| notes.join(" ")),
    })
}

/// One decoded line: at most [`MAX_LINE_CHARS`] characters of it kept,
/// and how many it had.
struct Utf16Line {
    shown: String,
    chars: usize,
}

/// Splits UTF-16LE bytes, fed in chunks of any size, into lines (`\n`,
/// with a `\r` before it dropped), decoding surrogate pairs across
/// chunks and keeping only the shown part of each line.
#[derive(Default)]
struct Utf16Lines {
    /// A byte left over from the previous chunk (odd length).
    odd: Option<u8>,
    /// A high surrogate waiting for its pair.
    high: Option<u16>,
    /// The line being read.
    shown: String,
    chars: usize,
    /// A `\r` not yet known to end the line.
    pending_cr: bool,
    /// Whether any unit could not be decoded.
    invalid: bool,
}

impl Utf16Lines {
    fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Utf16Line>) {
        if let Some(first) = self.odd.take() {
            let Some((&second, rest)) = bytes.split_first() else {
                self.odd = Some(first);
                return;
            };
            self.unit(u16::from_le_bytes([first, second]), out);
            bytes = rest;
        }
        let mut pairs = bytes.chunks_exact(2);
        for pair in &mut pairs {
            self.unit(u16::from_le_bytes([pair[0], pair[1]]), out);
        }
        self.odd = pairs.remainder().first().copied();
    }

    fn unit(&mut self, unit: u16, out: &mut Vec<Utf16Line>) {
        let c = match (self.high.take(), unit) {
            (Some(high), 0xDC00..=0xDFFF) => {
                let code =
                    0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
            }
            (high, 0xD800..=0xDBFF) => {
                if high.is_some() {
                    self.invalid_char(out);
                }
                self.high = Some(unit);
                return;
            }
            (None, 0xDC00..=0xDFFF) => {
                self.invalid = true;
                char::REPLACEMENT_CHARACTER
            }
            (high, other) => {
                if high.is_some() {
                    self.invalid_char(out);
                }
                char::from_u32(u32::from(other)).unwrap_or(char::REPLACEMENT_CHARACTER)
            }
        };
        self.char(c, out);
    }

    fn invalid_char(&mut self, out: &mut Vec<Utf16Line>) {
        self.invalid = true;
        self.char(char::REPLACEMENT_CHARACTER, out);
    }

    fn char(&mut self, c: char, out: &mut Vec<Utf16Line>) {
        if self.pending_cr {
            self.pending_cr = false;
            if c == '\n' {
                self.end_line(out);
                return;
            }
            self.push('\r');
        }
        match c {
            '\n' => self.end_line(out),
            '\r' => self.pending_cr = true,
            c => self.push(c),
        }
    }

    fn push(&mut self, c: char) {
        if self.chars < MAX_LINE_CHARS {
            self.shown.push(c);
        }
        self.chars += 1;
    }

    fn end_line(&mut self, out: &mut Vec<Utf16Line>) {
        out.push(Utf16Line {
            shown: std::mem::take(&mut self.shown),
            chars: std::mem::take(&mut self.chars),
        });
    }

    /// The last line, when the file does not end with a line break.
    fn finish(&mut self) -> Option<Utf16Line> {
        if self.high.take().is_some() || self.odd.take().is_some() {
            self.invalid_char(&mut Vec::new());
        }
        if self.pending_cr {
            self.pending_cr = false;
            self.push('\r');
        }
        (self.chars > 0).then(|| Utf16Line {
            shown: std::mem::take(&mut self.shown),
            chars: std::mem::take(&mut self.chars),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn split(bytes: &[u8], chunk: usize) -> (Vec<String>, bool) {
        let mut lines = Utf16Lines::default();
        let mut out = Vec::new();
        for piece in bytes.chunks(chunk) {
            lines.feed(piece, &mut out);
        }
        out.extend(lines.finish());
        (out.into_iter().map(|l| l.shown).collect(), lines.invalid)
    }

    #[test]
    fn lines_decode_alike_whatever_the_chunk_boundaries() {
        let text = "a😀b\r\nsecond\rline\n\nlast 😀";
        let bytes = utf16(text);
        let want: Vec<String> = text.lines().map(str::to_owned).collect();
        for chunk in 1..=7 {
            assert_eq!(split(&bytes, chunk), (want.clone(), false), "chunk {chunk}");
        }
    }

    #[test]
    fn unpaired_surrogates_and_an_odd_byte_are_replaced_and_flagged() {
        let mut bytes: Vec<u8> = [0x61, 0xD800, 0x62, 0x0A, 0xDC00, 0x0A]
            .into_iter()
            .flat_map(u16::to_le_bytes)
            .collect();
        bytes.push(0x41);
        let (lines, invalid) = split(&bytes, 3);
        assert!(invalid);
        assert_eq!(lines, ["a\u{FFFD}b", "\u{FFFD}", "\u{FFFD}"]);
    }

    #[test]
    fn only_the_shown_part_of_a_long_line_is_kept() {
        let bytes = utf16(&"x".repeat(MAX_LINE_CHARS * 3));
        let mut lines = Utf16Lines::default();
        lines.feed(&bytes, &mut Vec::new());
        assert_eq!(lines.shown.chars().count(), MAX_LINE_CHARS);
        let line = lines.finish().unwrap();
        assert_eq!(line.chars, MAX_LINE_CHARS * 3);
    }
}
