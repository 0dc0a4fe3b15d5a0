//! Reading JSON lines with bounded memory.
//!
//! A line longer than the cap is not kept in memory: the reader skips to
//! its end and reports it, so one giant or binary line cannot exhaust
//! memory. A last line without its newline is only returned when it is
//! complete JSON (a transcript still being written ends mid-line; the next
//! incremental import reads it once it is finished).

use std::io::BufRead;

/// The longest line kept, in bytes (a tool result with a big image is a
/// few MB; anything beyond this is reported and skipped).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// One line read from a JSONL source.
#[derive(Debug)]
pub enum Line {
    /// A complete line, without its terminator.
    Text(Vec<u8>),
    /// A line over the cap, skipped; its length in bytes.
    TooLong(u64),
}

/// Reads lines from `reader`, tracking the byte offset and line number.
pub struct LineReader<R> {
    reader: R,
    max: usize,
    /// Leave a last line without its newline unread even when it is
    /// complete JSON (a file still being written: [`LineReader::strict`]).
    strict: bool,
    /// Bytes consumed so far (the start of the next line).
    pub offset: u64,
    /// Lines consumed so far.
    pub line: u64,
}

impl<R: BufRead> LineReader<R> {
    /// Starts reading at `offset` / `line` (the reader must already be
    /// positioned there).
    pub fn new(reader: R, offset: u64, line: u64) -> Self {
        Self::with_cap(reader, offset, line, MAX_LINE_BYTES)
    }

    /// Like [`LineReader::new`] with a custom cap (tests).
    pub fn with_cap(reader: R, offset: u64, line: u64, max: usize) -> Self {
        Self {
            reader,
            max,
            strict: false,
            offset,
            line,
        }
    }

    /// Like [`LineReader::with_cap`], but a line is only returned once its
    /// newline is there: in a file another process is appending to (a live
    /// transcript) the newline is the writer's mark that the line is whole,
    /// so the offset kept always lands on a boundary the writer made.
    pub fn strict(reader: R, offset: u64, line: u64, max: usize) -> Self {
        Self {
            strict: true,
            ..Self::with_cap(reader, offset, line, max)
        }
    }

    /// The next line, `None` at the end of the input (or before an
    /// unfinished last line, which is left unread).
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut buf = Vec::new();
        let mut len: u64 = 0;
        let mut too_long = false;
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                // End of input without a newline.
                if len == 0 {
                    return Ok(None);
                }
                if too_long
                    || self.strict
                    || serde_json::from_slice::<serde::de::IgnoredAny>(&buf).is_err()
                {
                    // Unfinished: leave it for the next read. The bytes were
                    // consumed from the reader but not from `offset`.
                    return Ok(None);
                }
                self.offset += len;
                self.line += 1;
                return Ok(Some(Line::Text(buf)));
            }
            let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], true),
                None => (available, false),
            };
            if !too_long {
                if buf.len() + chunk.len() > self.max {
                    too_long = true;
                    buf = Vec::new();
                } else {
                    buf.extend_from_slice(chunk);
                }
            }
            let used = chunk.len() + usize::from(found_newline);
            len += used as u64;
            self.reader.consume(used);
            if found_newline {
                self.offset += len;
                self.line += 1;
                if too_long {
                    return Ok(Some(Line::TooLong(len - 1)));
                }
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                return Ok(Some(Line::Text(buf)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &str, max: usize) -> (Vec<String>, u64, u64) {
        let mut r = LineReader::with_cap(input.as_bytes(), 0, 0, max);
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            out.push(match line {
                Line::Text(t) => String::from_utf8(t).unwrap(),
                Line::TooLong(n) => format!("<{n}>"),
            });
        }
        (out, r.offset, r.line)
    }

    #[test]
    fn lines_offsets_and_caps() {
        assert_eq!(
            all("{\"a\":1}\n\n{\"b\":2}\r\n", 100),
            (
                vec!["{\"a\":1}".into(), String::new(), "{\"b\":2}".into()],
                18,
                3
            )
        );
        assert_eq!(
            all("{\"a\":1}\n0123456789012\n{}\n", 10),
            (vec!["{\"a\":1}".into(), "<13>".into(), "{}".into()], 25, 3)
        );
        // A complete last line without newline is read; an unfinished one is not.
        assert_eq!(all("{}\n{\"x\":1}", 100).0, ["{}", "{\"x\":1}"]);
        assert_eq!(all("{}\n{\"x\":", 100), (vec!["{}".into()], 3, 1));
    }

    #[test]
    fn strict_reading_waits_for_the_newline() {
        let mut r = LineReader::strict("{}\n{\"x\":1}".as_bytes(), 0, 0, 100);
        assert!(matches!(r.next_line().unwrap(), Some(Line::Text(t)) if t == b"{}"));
        assert!(r.next_line().unwrap().is_none());
        assert_eq!((r.offset, r.line), (3, 1));
    }
}
