//! The tail of a stdio server's stderr, kept for the UI and error messages.
//!
//! A server's stderr is outside input: it may be one endless line, or not
//! UTF-8 at all. So it is read as raw bytes in chunks into a byte-capped
//! ring buffer ([`MAX_BYTES`]) until EOF — the pipe is always drained, so the
//! child never blocks on a full pipe — and decoded (lossy UTF-8) only when
//! shown. Before issue 16 it was read with `lines()`: a line was buffered
//! whole before being cut, and the first invalid UTF-8 ended the reading.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncRead, AsyncReadExt};

/// Bytes kept: the newest ones.
pub const MAX_BYTES: usize = 64 * 1024;
/// Lines shown.
pub const MAX_LINES: usize = 200;
/// The longest line shown (longer lines are cut).
pub const MAX_LINE_CHARS: usize = 2_000;
/// One read from the pipe.
const CHUNK: usize = 8 * 1024;

#[derive(Debug, Default)]
struct Ring {
    bytes: VecDeque<u8>,
    /// Bytes dropped from the front (the shown tail then starts mid-stream).
    dropped: u64,
}

/// A ring buffer of the last [`MAX_BYTES`] bytes of stderr; cheap to clone
/// (clones share the buffer).
#[derive(Debug, Clone, Default)]
pub struct StderrLog(Arc<Mutex<Ring>>);

impl StderrLog {
    /// Appends raw bytes, dropping the oldest beyond [`MAX_BYTES`].
    pub fn push_bytes(&self, chunk: &[u8]) {
        let mut ring = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let chunk = if chunk.len() > MAX_BYTES {
            ring.dropped += (chunk.len() - MAX_BYTES) as u64;
            &chunk[chunk.len() - MAX_BYTES..]
        } else {
            chunk
        };
        let overflow = (ring.bytes.len() + chunk.len()).saturating_sub(MAX_BYTES);
        ring.bytes.drain(..overflow);
        ring.dropped += overflow as u64;
        ring.bytes.extend(chunk);
    }

    /// Appends one line (a newline is added).
    pub fn push(&self, line: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.push_bytes(&bytes);
    }

    /// Reads `stream` to its end in chunks, keeping the tail. Read errors
    /// other than an interruption end it (the pipe is gone).
    pub async fn drain(&self, mut stream: impl AsyncRead + Unpin) {
        let mut buf = vec![0_u8; CHUNK];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) => return,
                Ok(n) => self.push_bytes(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    }

    /// Bytes received so far (kept and dropped).
    pub fn total_bytes(&self) -> u64 {
        let ring = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        ring.dropped + ring.bytes.len() as u64
    }

    /// The last [`MAX_LINES`] lines kept, oldest first, decoded as lossy
    /// UTF-8 (invalid bytes become U+FFFD), each cut at [`MAX_LINE_CHARS`].
    /// When older bytes were dropped the first line starts with `…`.
    pub fn lines(&self) -> Vec<String> {
        let (bytes, dropped) = {
            let ring = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            (
                ring.bytes.iter().copied().collect::<Vec<u8>>(),
                ring.dropped,
            )
        };
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        if text.is_empty() {
            return Vec::new();
        }
        let all: Vec<&str> = text.split('\n').collect();
        let skip = all.len().saturating_sub(MAX_LINES);
        all[skip..]
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let line = line.strip_suffix('\r').unwrap_or(line);
                let mut shown: String = if line.chars().count() > MAX_LINE_CHARS {
                    line.chars().take(MAX_LINE_CHARS).collect::<String>() + "…"
                } else {
                    (*line).to_owned()
                };
                if i == 0 && skip == 0 && dropped > 0 {
                    shown.insert(0, '…');
                }
                shown
            })
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
            log.push(&format!("line {i}"));
        }
        let lines = log.lines();
        assert_eq!(lines.len(), MAX_LINES);
        assert_eq!(lines[0], "line 5");
        log.push(&"x".repeat(MAX_LINE_CHARS + 10));
        assert_eq!(
            log.lines().last().unwrap().chars().count(),
            MAX_LINE_CHARS + 1
        );
    }

    #[test]
    fn memory_is_capped_in_bytes_and_invalid_utf8_is_shown_lossy() {
        let log = StderrLog::default();
        // 10 MB without a newline, in pipe-sized chunks and one huge chunk.
        for _ in 0..1_000 {
            log.push_bytes(&[b'x'; 10_000]);
        }
        log.push_bytes(&vec![b'y'; 3 * MAX_BYTES]);
        assert_eq!(log.0.lock().unwrap().bytes.len(), MAX_BYTES);
        assert_eq!(log.total_bytes(), 10_000_000 + 3 * MAX_BYTES as u64);
        let lines = log.lines();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("…y"), "the cut front is marked");
        assert!(lines[0].chars().count() <= MAX_LINE_CHARS + 2);

        let log = StderrLog::default();
        log.push_bytes(b"bad \xff\xfe bytes\r\nnext\n");
        assert_eq!(log.lines(), ["bad \u{fffd}\u{fffd} bytes", "next"]);
    }

    #[tokio::test]
    async fn drain_reads_past_invalid_utf8_to_the_end() {
        let mut input = b"start \xc3\x28 invalid\n".to_vec();
        input.extend(std::iter::repeat_n(b'z', 200_000));
        input.extend_from_slice(b"\nthe end\n");
        let log = StderrLog::default();
        log.drain(&input[..]).await;
        assert_eq!(log.total_bytes(), input.len() as u64);
        assert_eq!(log.lines().last().unwrap(), "the end");
    }
}
