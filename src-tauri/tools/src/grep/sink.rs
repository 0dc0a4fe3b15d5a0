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

impl Collect<'_> {
    fn push(&mut self, sep: char, number: Option<u64>, line: &[u8]) {
        let text = String::from_utf8_lossy(strip(line));
        let rendered = match (self.line_numbers, number) {
            (true, Some(n)) => format!("{}{sep}{n}{sep}{text}", self.path),
            _ => format!("{}{sep}{text}", self.path),
        };
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
