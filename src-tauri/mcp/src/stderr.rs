//! The tail of a stdio server's stderr, kept for the UI and error messages.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Lines kept.
pub const MAX_LINES: usize = 200;
/// The longest line kept (longer lines are cut).
pub const MAX_LINE_CHARS: usize = 2_000;

/// A ring buffer of the last [`MAX_LINES`] stderr lines; cheap to clone
/// (clones share the buffer).
#[derive(Debug, Clone, Default)]
pub struct StderrLog(Arc<Mutex<VecDeque<String>>>);

impl StderrLog {
    /// Adds a line, dropping the oldest when full.
    pub fn push(&self, mut line: String) {
        if line.chars().count() > MAX_LINE_CHARS {
            line = line.chars().take(MAX_LINE_CHARS).collect::<String>() + "…";
        }
        let mut lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == MAX_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_and_cuts_long_ones() {
        let log = StderrLog::default();
        for i in 0..(MAX_LINES + 5) {
            log.push(format!("line {i}"));
        }
        let lines = log.lines();
        assert_eq!(lines.len(), MAX_LINES);
        assert_eq!(lines[0], "line 5");
        log.push("x".repeat(MAX_LINE_CHARS + 10));
        assert_eq!(
            log.lines().last().unwrap().chars().count(),
            MAX_LINE_CHARS + 1
        );
    }
}
