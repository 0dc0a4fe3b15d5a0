//! The per-file sink: turns the searcher's matches and context lines into
//! ripgrep's output lines (`path:12:text`, `path-13-context`, `--`).

use std::io;

use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use super::OutputMode;

/// What one file's search produced.
#[derive(Debug, Default)]
pub struct FileResult {
    /// Rendered lines (content mode).
    pub lines: Vec<String>,
    /// Matching lines (count mode; 1 when any match in files mode).
    pub count: u64,
}

/// Collects one file's results.
pub struct Collect<'a> {
    /// The output mode.
    pub mode: OutputMode,
    /// The path as printed.
    pub path: &'a str,
    /// Prefix lines with their numbers.
    pub line_numbers: bool,
    /// What was found so far.
    pub result: FileResult,
}

fn strip(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Appends the decimal digits of `n` without going through `fmt`.
fn push_number(out: &mut String, mut n: u64) {
    let mut digits = [0_u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

impl Collect<'_> {
    /// Renders one line as rg does: `path{sep}number{sep}text`.
    fn push(&mut self, sep: char, number: Option<u64>, line: &[u8]) {
        let line = strip(line);
        let mut rendered = String::with_capacity(self.path.len() + line.len() + 12);
        rendered.push_str(self.path);
        rendered.push(sep);
        if let (true, Some(n)) = (self.line_numbers, number) {
            push_number(&mut rendered, n);
            rendered.push(sep);
        }
        match std::str::from_utf8(line) {
            Ok(text) => rendered.push_str(text),
            Err(_) => rendered.push_str(&String::from_utf8_lossy(line)),
        }
        self.result.lines.push(rendered);
    }
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        match self.mode {
            OutputMode::FilesWithMatches => {
                self.result.count = 1;
                Ok(false)
            }
            OutputMode::Count => {
                self.result.count += m.lines().count().max(1) as u64;
                Ok(true)
            }
            OutputMode::Content => {
                self.result.count += 1;
                let mut number = m.line_number();
                for line in m.lines() {
                    self.push(':', number, line);
                    number = number.map(|n| n + 1);
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _searcher: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.mode == OutputMode::Content {
            self.push('-', c.line_number(), c.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        if self.mode == OutputMode::Content {
            self.result.lines.push("--".to_owned());
        }
        Ok(true)
    }
}
