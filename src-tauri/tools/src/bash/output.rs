//! What happens to a command's output: all of it goes to a file on disk,
//! the UI gets it live in coalesced `tool_progress` events (ANSI kept), and
//! the model gets its head and tail within a budget (ANSI stripped).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gatehouse_core::tool::ProgressReporter;
use gatehouse_protocol::progress::ToolProgressData;

/// The most raw bytes one progress event carries; anything beyond is
/// counted as skipped (the whole output is on disk).
pub const MAX_PROGRESS_BYTES: usize = 64 * 1024;

/// The most output written to one file (1 GiB): a runaway command must not
/// fill the disk. Beyond it bytes are still counted, and the model's head
/// and tail still kept.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// An output file that stops growing at a limit and remembers why it is
/// incomplete.
#[derive(Debug)]
pub struct CappedFile {
    path: PathBuf,
    file: Option<std::fs::File>,
    written: u64,
    limit: u64,
    problem: Option<String>,
}

impl CappedFile {
    /// Creates `path` (and its directory) for at most `limit` bytes.
    pub fn create(path: PathBuf, limit: u64) -> Self {
        let opened = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::File::create(&path));
        let (file, problem) = match opened {
            Ok(f) => (Some(f), None),
            Err(e) => (None, Some(format!("{}: {e}", path.display()))),
        };
        Self::from_parts(path, file, problem, limit)
    }

    /// Wraps an already open file.
    pub fn from_file(path: PathBuf, file: std::fs::File, limit: u64) -> Self {
        Self::from_parts(path, Some(file), None, limit)
    }

    fn from_parts(
        path: PathBuf,
        file: Option<std::fs::File>,
        problem: Option<String>,
        limit: u64,
    ) -> Self {
        Self {
            path,
            file,
            written: 0,
            limit,
            problem,
        }
    }

    /// Appends `bytes`, up to the limit.
    pub fn write(&mut self, bytes: &[u8]) {
        let Some(file) = &mut self.file else {
            return;
        };
        let room = usize::try_from(self.limit - self.written).unwrap_or(usize::MAX);
        let part = &bytes[..bytes.len().min(room)];
        if let Err(e) = file.write_all(part) {
            self.problem = Some(format!("{}: {e}", self.path.display()));
            self.file = None;
            return;
        }
        self.written += part.len() as u64;
        if part.len() < bytes.len() {
            self.problem = Some(format!(
                "{} stops at {} bytes (the limit for one output file)",
                self.path.display(),
                self.limit
            ));
            self.file = None;
        }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the file does not hold the whole output, if it doesn't.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }
}

/// Records a command's output: to a file, plus the head and tail kept in
/// memory for the model. Memory use is bounded by `head + tail` bytes
/// whatever the output size.
#[derive(Debug)]
pub struct OutputRecorder {
    path: Option<PathBuf>,
    file: Option<CappedFile>,
    head: Vec<u8>,
    head_limit: usize,
    tail: Vec<u8>,
    tail_limit: usize,
    total: u64,
}

impl OutputRecorder {
    /// A recorder writing to `path` (created, with its directory, capped at
    /// [`MAX_FILE_BYTES`]). If the file cannot be created, output is still
    /// kept in memory (head and tail) and the error is reported in the
    /// result.
    pub fn create(path: PathBuf, head_limit: usize, tail_limit: usize) -> Self {
        let mut recorder = Self::in_memory(Some(path.clone()), head_limit, tail_limit);
        recorder.file = Some(CappedFile::create(path, MAX_FILE_BYTES));
        recorder
    }

    /// A recorder that keeps only head and tail in memory; `whole` names
    /// where the whole output can be found (for the elision note).
    pub fn in_memory(whole: Option<PathBuf>, head_limit: usize, tail_limit: usize) -> Self {
        Self {
            path: whole,
            file: None,
            head: Vec::new(),
            head_limit,
            tail: Vec::new(),
            tail_limit,
            total: 0,
        }
    }

    /// Adds one chunk.
    pub fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if let Some(file) = &mut self.file {
            file.write(bytes);
        }
        let room = self.head_limit.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        if self.tail_limit == 0 || rest.is_empty() {
            return;
        }
        if rest.len() >= self.tail_limit {
            self.tail.clear();
            self.tail
                .extend_from_slice(&rest[rest.len() - self.tail_limit..]);
        } else {
            self.tail.extend_from_slice(rest);
            // Trim lazily (amortised): the tail holds at most twice its
            // limit, and only the last `tail_limit` bytes count.
            if self.tail.len() > 2 * self.tail_limit {
                let excess = self.tail.len() - self.tail_limit;
                self.tail.drain(..excess);
            }
        }
    }

    /// The kept tail: the last `tail_limit` bytes that are not in the head.
    fn tail(&self) -> &[u8] {
        &self.tail[self.tail.len().saturating_sub(self.tail_limit)..]
    }

    /// Bytes recorded so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Where the whole output is.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Why the file is incomplete, if it is.
    pub fn write_error(&self) -> Option<&str> {
        self.file.as_ref().and_then(CappedFile::problem)
    }

    /// The output for the model: ANSI stripped, invalid UTF-8 replaced,
    /// and the middle elided with a count when it exceeded head + tail.
    pub fn render(&self) -> Rendered {
        let kept = (self.head.len() + self.tail().len()) as u64;
        let elided = self.total - kept;
        let head = to_model_text(&self.head);
        if elided == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(self.tail());
            return Rendered {
                text: to_model_text(&all),
                elided_bytes: 0,
            };
        }
        let tail = self.tail();
        let mut text = head;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let _ = match &self.path {
            Some(path) => write!(
                text,
                "\n… [{elided} bytes of output elided; the whole output ({} bytes) is in {}] …\n\n",
                self.total,
                path.display()
            ),
            None => write!(text, "\n… [{elided} bytes of output elided] …\n\n"),
        };
        text.push_str(&to_model_text(tail));
        Rendered {
            text,
            elided_bytes: elided,
        }
    }
}

/// The model's view of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// How many bytes were left out of the middle.
    pub elided_bytes: u64,
}

/// Raw output bytes as text for the model: ANSI escape sequences removed,
/// invalid UTF-8 replaced by U+FFFD, carriage-return progress bars and
/// trailing whitespace left as they are.
pub fn to_model_text(bytes: &[u8]) -> String {
    let stripped = strip_ansi_escapes::strip(bytes);
    String::from_utf8_lossy(&stripped).into_owned()
}

/// Batches output into `tool_progress` events: the caller pushes bytes as
/// they come and calls [`ProgressCoalescer::flush`] on a timer, so the UI
/// gets at most one event per tick whatever the output rate. Each event
/// carries only new bytes (ANSI kept), at most [`MAX_PROGRESS_BYTES`] of
/// them (another cap with [`ProgressCoalescer::with_cap`]); the rest is
/// counted in `skipped_bytes`. Background tasks' `task_output` events are
/// batched the same way ([`ProgressCoalescer::take`]).
#[derive(Debug)]
pub struct ProgressCoalescer {
    cap: usize,
    pending: Vec<u8>,
    skipped: u64,
    total: u64,
    events: u64,
}

impl Default for ProgressCoalescer {
    fn default() -> Self {
        Self::with_cap(MAX_PROGRESS_BYTES)
    }
}

/// One batch of output taken from a [`ProgressCoalescer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputChunk {
    /// The newest bytes as text (ANSI kept).
    pub text: String,
    /// Bytes produced since the previous chunk that this one leaves out.
    pub skipped_bytes: u64,
    /// Bytes produced in all so far.
    pub total_bytes: u64,
}

impl ProgressCoalescer {
    /// A coalescer whose chunks carry at most `cap` bytes (at least 4, so a
    /// character always fits).
    pub fn with_cap(cap: usize) -> Self {
        Self {
            cap: cap.max(4),
            pending: Vec::new(),
            skipped: 0,
            total: 0,
            events: 0,
        }
    }

    /// Adds new output.
    pub fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.cap.saturating_sub(self.pending.len());
        if bytes.len() <= room {
            self.pending.extend_from_slice(bytes);
        } else {
            // Keep the newest bytes: the UI shows the end of the stream.
            let keep = bytes.len().min(self.cap);
            let drop_old = (self.pending.len() + keep).saturating_sub(self.cap);
            self.skipped += (drop_old + bytes.len() - keep) as u64;
            self.pending.drain(..drop_old);
            self.pending.extend_from_slice(&bytes[bytes.len() - keep..]);
        }
    }

    /// Takes the pending bytes as one chunk, if there are any. A
    /// multi-byte UTF-8 character split across pushes is held back for the
    /// next chunk rather than mangled; with `all`, it is taken too (the
    /// stream has ended).
    pub fn take(&mut self, all: bool) -> Option<OutputChunk> {
        if self.pending.is_empty() && self.skipped == 0 {
            return None;
        }
        let cut = if all {
            self.pending.len()
        } else {
            complete_utf8_prefix(&self.pending)
        };
        let rest = self.pending.split_off(cut);
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending = rest;
        let chunk = OutputChunk {
            text,
            skipped_bytes: self.skipped,
            total_bytes: self.total,
        };
        self.skipped = 0;
        self.events += 1;
        Some(chunk)
    }

    /// Emits one event with the pending bytes, if there are any (see
    /// [`ProgressCoalescer::take`]).
    pub fn flush(&mut self, progress: &ProgressReporter) {
        if let Some(chunk) = self.take(false) {
            report_chunk(progress, chunk);
        }
    }

    /// Emits whatever is pending, including an incomplete trailing
    /// character (the stream has ended).
    pub fn finish(&mut self, progress: &ProgressReporter) {
        if let Some(chunk) = self.take(true) {
            report_chunk(progress, chunk);
        }
    }

    /// Output events emitted so far.
    pub fn events(&self) -> u64 {
        self.events
    }
}

fn report_chunk(progress: &ProgressReporter, chunk: OutputChunk) {
    progress.report(ToolProgressData::BashOutput {
        text: chunk.text,
        skipped_bytes: chunk.skipped_bytes,
        total_bytes: chunk.total_bytes,
        stream: None,
    });
}

/// The length of the longest prefix of `bytes` that does not end inside a
/// UTF-8 character (invalid bytes count as complete: they are replaced).
fn complete_utf8_prefix(bytes: &[u8]) -> usize {
    // A character is at most 4 bytes: look back at most 3 for a lead byte.
    for back in 1..=3.min(bytes.len()) {
        let b = bytes[bytes.len() - back];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue; // continuation byte
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if needed > back {
            bytes.len() - back
        } else {
            bytes.len()
        };
    }
    bytes.len()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_kept_whole_and_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out/a.log");
        let mut rec = OutputRecorder::create(path.clone(), 10, 10);
        rec.push(b"hello ");
        rec.push(b"\x1b[31mworld\x1b[0m");
        let r = rec.render();
        assert_eq!(r.text, "hello world");
        assert_eq!(r.elided_bytes, 0);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"hello \x1b[31mworld\x1b[0m".to_vec()
        );
    }

    #[test]
    fn large_output_keeps_head_and_tail_and_counts_the_middle() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = OutputRecorder::create(dir.path().join("b.log"), 4, 3);
        for chunk in [b"abcdef".as_slice(), b"ghij", b"klmnop"] {
            rec.push(chunk);
        }
        let r = rec.render();
        assert_eq!(rec.total(), 16);
        assert_eq!(r.elided_bytes, 9);
        assert!(r.text.starts_with("abcd\n"), "{}", r.text);
        assert!(r.text.ends_with("nop"), "{}", r.text);
        assert!(r.text.contains("9 bytes of output elided"), "{}", r.text);
        assert!(r.text.contains("b.log"), "{}", r.text);
    }

    #[test]
    fn the_tail_is_exact_across_many_small_chunks() {
        let mut rec = OutputRecorder::in_memory(None, 2, 5);
        let mut all = Vec::new();
        for i in 0..1000_u32 {
            let chunk = format!("{}", i % 10);
            all.extend_from_slice(chunk.as_bytes());
            rec.push(chunk.as_bytes());
            assert!(rec.tail.len() <= 10);
        }
        assert_eq!(rec.tail(), &all[all.len() - 5..]);
        let r = rec.render();
        assert_eq!(r.elided_bytes, 993);
        assert!(r.text.starts_with("01\n"), "{}", r.text);
        assert!(r.text.ends_with("56789"), "{}", r.text);
        assert!(
            r.text.contains("[993 bytes of output elided]"),
            "{}",
            r.text
        );
    }

    #[test]
    fn output_files_stop_at_their_limit_and_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.log");
        let mut file = CappedFile::create(path.clone(), 10);
        file.write(b"0123456");
        assert_eq!(file.problem(), None);
        file.write(b"789abc");
        file.write(b"more");
        assert_eq!(std::fs::read(&path).unwrap(), b"0123456789".to_vec());
        assert!(file.problem().unwrap().contains("stops at 10 bytes"));
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        assert_eq!(to_model_text(b"a\xff\xfeb"), "a\u{fffd}\u{fffd}b");
    }

    #[test]
    fn utf8_prefix_holds_back_split_characters() {
        let e_acute = "é".as_bytes(); // 2 bytes
        let mut v = b"ab".to_vec();
        v.push(e_acute[0]);
        assert_eq!(complete_utf8_prefix(&v), 2);
        v.push(e_acute[1]);
        assert_eq!(complete_utf8_prefix(&v), 4);
        assert_eq!(complete_utf8_prefix(b"\xff"), 1);
        assert_eq!(complete_utf8_prefix(b""), 0);
    }

    #[test]
    fn coalescer_caps_event_size_and_counts_skipped_bytes() {
        let mut c = ProgressCoalescer::default();
        c.push(&vec![b'a'; MAX_PROGRESS_BYTES]);
        c.push(b"tail");
        assert_eq!(c.pending.len(), MAX_PROGRESS_BYTES);
        assert_eq!(c.skipped, 4);
        assert!(c.pending.ends_with(b"tail"));
        c.push(&vec![b'b'; MAX_PROGRESS_BYTES * 3]);
        assert_eq!(c.pending.len(), MAX_PROGRESS_BYTES);
        assert_eq!(c.total, (MAX_PROGRESS_BYTES * 4 + 4) as u64);
        assert_eq!(
            c.skipped + c.pending.len() as u64,
            c.total,
            "every byte is either pending or counted as skipped"
        );
    }
}
