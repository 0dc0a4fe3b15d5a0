//! The live half of a guarded session (issue 25 item 3): Claude Code's
//! transcript of the session, followed as Claude Code writes it, adds to
//! the same Gatehouse session what its hooks cannot see — the user's
//! prompts, the assistant's text (and thinking), usage, results' details
//! and calls no hook reported — merged with the hook events without
//! duplicates ([`super::merge`]).
//!
//! The hook records the transcript's path (`transcript_path`) as an import
//! source of the session, keyed [`SOURCE_PREFIX`] + its canonical path (so
//! the session browser's own import of the file, keyed by the bare path,
//! stays separate). The tailer reads only the bytes appended since the
//! offset kept there, whole lines only (a last line without its newline
//! waits for it), maps them with the Claude Code importer's mapping in its
//! live mode ([`gatehouse_transcripts::claude::LiveTranscript`]) and
//! commits the events together with the new offset and the mapper's state
//! in one transaction: a restart resumes after the last commit and adds
//! nothing twice. Lines over [`MAX_LINE_BYTES`] and lines that are not
//! entries are problems (file:line) and are skipped; the lines after them
//! still import.
//!
//! [`spawn`] runs it on its own thread: woken by `notify` on the folders of
//! the transcripts of running sessions, and every `poll` (new sessions, and
//! the fallback when watching fails).

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use gatehouse_protocol::event::EventBody;
use gatehouse_store::{ImportCheckpoint, ImportRecord, Store};
use gatehouse_transcripts::claude::LiveTranscript;
use gatehouse_transcripts::lines::{Line, LineReader};

use super::merge::{Writer, append_merged};

/// The prefix of a followed transcript's import-source key (the session
/// browser's import leaves such a file alone).
pub const SOURCE_PREFIX: &str = gatehouse_transcripts::claude::LIVE_SOURCE_PREFIX;

/// The longest transcript line read (a tool result with an image is a few
/// MB); longer lines are problems and skipped without being held.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The most of one transcript read in one pass (the rest in the next, at
/// once): bounds a pass's time when a long transcript is first followed.
const MAX_PASS_BYTES: u64 = 8 * 1024 * 1024;

/// Events per transaction.
const BATCH_EVENTS: usize = 500;

/// Transcripts followed at most (the sessions updated last).
const MAX_FOLLOWED: u32 = 64;

/// Problems kept for [`TailHandle::problems`] (older ones are dropped; all
/// are logged).
const MAX_PROBLEMS: usize = 200;

/// The import-source key of the transcript at `path`, by its canonical
/// path (paths are compared canonically); `None` while it does not exist
/// (a key made from another spelling of the path would make the same file
/// a second source, read twice).
pub fn source_key(path: &Path) -> Option<String> {
    let path = std::fs::canonicalize(path).ok()?;
    Some(format!("{SOURCE_PREFIX}{}", path.display()))
}

/// The transcript a source key names.
fn source_path(key: &str) -> PathBuf {
    PathBuf::from(key.strip_prefix(SOURCE_PREFIX).unwrap_or(key))
}

/// Something wrong with a followed transcript: never fatal to the tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TailProblem {
    /// The transcript.
    pub path: PathBuf,
    /// The 1-based line, when it is about one line.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl TailProblem {
    /// A problem about the whole of `path`.
    fn whole(path: impl Into<PathBuf>, message: String) -> Self {
        Self {
            path: path.into(),
            line: None,
            message,
        }
    }
}

impl std::fmt::Display for TailProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// What one pass did.
#[derive(Debug, Default)]
pub struct TailPass {
    /// Events appended.
    pub appended: usize,
    /// A transcript has more to read than one pass reads.
    pub more: bool,
    /// The transcripts of running sessions (to watch).
    pub running: Vec<PathBuf>,
    /// Problems met.
    pub problems: Vec<TailProblem>,
}

/// Reads the followed transcripts into their sessions, on its own store
/// connection (blocking: run it on its own thread).
pub struct Tailer {
    store: Store,
    /// Transcripts whose problem is about the whole file, reported once
    /// until it changes.
    reported: HashSet<String>,
}

impl Tailer {
    /// Opens the store in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, gatehouse_store::StoreError> {
        Ok(Self {
            store: Store::open(data_dir)?,
            reported: HashSet::new(),
        })
    }

    /// Reads every followed transcript from its offset to its end (at most
    /// [`MAX_PASS_BYTES`] of each).
    pub fn pass(&mut self) -> TailPass {
        let mut pass = TailPass::default();
        let records = match self
            .store
            .import_records_with_prefix(SOURCE_PREFIX, MAX_FOLLOWED)
        {
            Ok(records) => records,
            Err(e) => {
                pass.problems.push(TailProblem::whole(
                    self.store.path().to_path_buf(),
                    format!("listing the followed transcripts: {e}"),
                ));
                return pass;
            }
        };
        // Problems of sources no longer listed are forgotten (bounded).
        self.reported
            .retain(|key| records.iter().any(|(r, _)| &r.path == key));
        for (record, running) in records {
            let path = source_path(&record.path);
            if running {
                pass.running.push(path.clone());
            }
            match tail_source(
                &mut self.store,
                &record,
                &path,
                MAX_PASS_BYTES,
                &mut pass.problems,
            ) {
                Ok((appended, more)) => {
                    pass.appended += appended;
                    pass.more |= more;
                    self.reported.remove(&record.path);
                }
                Err(message) => {
                    if self.reported.insert(record.path.clone()) {
                        pass.problems.push(TailProblem::whole(path, message));
                    }
                }
            }
        }
        pass
    }
}

/// The most of a transcript the first hook call of a session reads before
/// recording its call ([`catch_up`]); a longer one (a session guarded
/// midway) is left to the app's tail.
const MAX_CATCH_UP_BYTES: u64 = 1024 * 1024;

/// The first hook call of a session reads what the transcript holds so
/// far (the prompt and text that led to the call) before it records the
/// call, so the session reads in order. Returns the problems met.
pub(super) fn catch_up(store: &mut Store, key: &str, session_id: &str) -> Vec<TailProblem> {
    let path = source_path(key);
    let small = std::fs::metadata(&path).is_ok_and(|m| m.len() <= MAX_CATCH_UP_BYTES);
    let mut problems = Vec::new();
    if !small {
        return problems;
    }
    let record = ImportRecord {
        path: key.to_owned(),
        session_id: session_id.to_owned(),
        byte_offset: 0,
        line: 0,
        state: String::new(),
    };
    if let Err(message) = tail_source(store, &record, &path, MAX_CATCH_UP_BYTES, &mut problems) {
        problems.push(TailProblem::whole(path, message));
    }
    problems
}

/// Reads transcript `path` (followed as `record`) from its offset, at most
/// `max_bytes` of it: returns the events appended and whether more is left
/// to read (or another reader was first: read the record again).
fn tail_source(
    store: &mut Store,
    record: &ImportRecord,
    path: &Path,
    max_bytes: u64,
    problems: &mut Vec<TailProblem>,
) -> Result<(usize, bool), String> {
    let size = match std::fs::metadata(path) {
        Ok(meta) => meta.len(),
        // Not written yet (or removed): nothing to read.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, false)),
        Err(e) => return Err(format!("reading the transcript: {e}")),
    };
    if size < record.byte_offset {
        return Err(format!(
            "the transcript shrank from {} to {size} bytes (replaced?); \
             what was read stays, nothing more is read from it",
            record.byte_offset
        ));
    }
    if size == record.byte_offset {
        return Ok((0, false));
    }
    let (mut live, problem) = LiveTranscript::resume(&record.session_id, &record.state);
    if let Some(message) = problem {
        problems.push(TailProblem::whole(path.to_path_buf(), message));
    }
    let had_model = live.model().is_some();
    let mut file = File::open(path).map_err(|e| format!("opening the transcript: {e}"))?;
    file.seek(SeekFrom::Start(record.byte_offset))
        .map_err(|e| format!("reading the transcript: {e}"))?;
    let mut reader = LineReader::strict(
        BufReader::with_capacity(64 * 1024, file),
        record.byte_offset,
        record.line,
        MAX_LINE_BYTES,
    );
    let mut batch = Vec::new();
    let mut appended = 0;
    let mut from = record.byte_offset;
    let mut more = false;
    while let Some(line) = reader
        .next_line()
        .map_err(|e| format!("reading the transcript: {e}"))?
    {
        let problem = match line {
            // The importer's message would name its own, larger cap.
            Line::TooLong(len) => Some(format!(
                "the line is {len} bytes, over the {MAX_LINE_BYTES} byte limit; skipped"
            )),
            line => live.map_line(reader.line, line, &mut batch),
        };
        if let Some(message) = problem {
            problems.push(TailProblem {
                path: path.to_path_buf(),
                line: Some(reader.line),
                message,
            });
        }
        more = reader.offset - record.byte_offset >= max_bytes;
        if batch.len() >= BATCH_EVENTS || more {
            let Some(n) = commit(store, record, from, &live, &mut batch, &reader)? else {
                return Ok((appended, true));
            };
            appended += n;
            from = reader.offset;
        }
        if more {
            break;
        }
    }
    // What the message being written has so far shows now.
    live.flush(&mut batch);
    let Some(n) = commit(store, record, from, &live, &mut batch, &reader)? else {
        return Ok((appended, true));
    };
    appended += n;
    if !had_model && let Some(model) = live.model() {
        store
            .set_session_model(&record.session_id, model)
            .map_err(|e| format!("recording the session's model: {e}"))?;
    }
    Ok((appended, more))
}

/// Appends `batch` (what the session does not hold yet) with the reader's
/// position and the mapper's state, in one transaction, unless the source
/// is no longer recorded at `from` (`None`).
fn commit<R>(
    store: &mut Store,
    record: &ImportRecord,
    from: u64,
    live: &LiveTranscript,
    batch: &mut Vec<gatehouse_store::EventRecord>,
    reader: &LineReader<R>,
) -> Result<Option<usize>, String> {
    if batch.is_empty() && reader.offset == from {
        return Ok(Some(0));
    }
    // Claude Code's other entries (attachments, queue operations, API
    // request records) are its own bookkeeping: an import of the file
    // keeps them, the live view does not.
    let records: Vec<_> = batch
        .drain(..)
        .filter(|r| !matches!(r.event.body, EventBody::ImportedEntry { .. }))
        .collect();
    let checkpoint = ImportCheckpoint {
        path: record.path.clone(),
        byte_offset: reader.offset,
        line: reader.line,
        state: live.state(),
    };
    append_merged(
        store,
        &record.session_id,
        Writer::Transcript,
        records,
        Some((&checkpoint, from)),
    )
    .map_err(|e| format!("recording the transcript's events: {e}"))
}

/// How the tail runs.
#[derive(Debug, Clone)]
pub struct TailConfig {
    /// Gatehouse's data directory (the store).
    pub data_dir: PathBuf,
    /// How often it looks without being woken: new sessions, and every
    /// transcript when watching fails.
    pub poll: Duration,
    /// Watch the transcripts' folders with `notify` (off: polling only).
    pub watch: bool,
}

impl TailConfig {
    /// Watching, and looking every two seconds.
    pub fn new(data_dir: PathBuf) -> Self {
        Self {
            data_dir,
            poll: Duration::from_secs(2),
            watch: true,
        }
    }
}

enum Wake {
    Files,
    Asked,
    Stop,
}

/// Wakes a running tail (see [`TailHandle::wake`]); does nothing once it
/// stopped.
#[derive(Clone)]
pub struct TailWaker(Sender<Wake>);

impl TailWaker {
    /// Looks now.
    pub fn wake(&self) {
        let _ = self.0.send(Wake::Asked);
    }
}

/// The running tail; stops (and joins its thread) when dropped.
pub struct TailHandle {
    wake: Sender<Wake>,
    thread: Option<std::thread::JoinHandle<()>>,
    shared: Arc<Shared>,
}

/// What the tail's thread and its handle share.
#[derive(Default)]
struct Shared {
    problems: Mutex<VecDeque<TailProblem>>,
    passes_begun: AtomicU64,
    passes_done: AtomicU64,
}

impl TailHandle {
    /// Looks now (a hook may have recorded a new session).
    pub fn wake(&self) {
        // A stopped tail has nothing to wake.
        let _ = self.wake.send(Wake::Asked);
    }

    /// Something another thread can wake the tail with.
    pub fn waker(&self) -> TailWaker {
        TailWaker(self.wake.clone())
    }

    /// How many passes have begun and how many are done (each after the
    /// transcripts' folders are watched as it found them): once more are
    /// done than had begun before a change, a pass has seen it.
    pub fn passes(&self) -> (u64, u64) {
        // Done first: never more done than begun in one reading.
        let done = self.shared.passes_done.load(Ordering::Acquire);
        (self.shared.passes_begun.load(Ordering::Acquire), done)
    }

    /// The latest problems met (oldest first).
    pub fn problems(&self) -> Vec<TailProblem> {
        self.shared
            .problems
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

impl Drop for TailHandle {
    fn drop(&mut self) {
        let _ = self.wake.send(Wake::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts the tail on its own thread.
pub fn spawn(config: TailConfig) -> std::io::Result<TailHandle> {
    let (wake, woken) = channel();
    let shared = Arc::new(Shared::default());
    let thread = std::thread::Builder::new()
        .name("claude-code-tail".into())
        .spawn({
            let wake = wake.clone();
            let shared = Arc::clone(&shared);
            move || run(&config, &wake, &woken, &shared)
        })?;
    Ok(TailHandle {
        wake,
        thread: Some(thread),
        shared,
    })
}

fn record(problems: &Mutex<VecDeque<TailProblem>>, problem: TailProblem) {
    tracing::warn!(target: "claude_code_tail", "{problem}");
    let mut kept = problems.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.len() == MAX_PROBLEMS {
        kept.pop_front();
    }
    kept.push_back(problem);
}

fn run(config: &TailConfig, wake: &Sender<Wake>, woken: &Receiver<Wake>, shared: &Shared) {
    let problems = &shared.problems;
    let mut tailer = match Tailer::open(&config.data_dir) {
        Ok(tailer) => tailer,
        Err(e) => {
            record(
                problems,
                TailProblem::whole(
                    config.data_dir.clone(),
                    format!("opening the store; guarded sessions are not followed: {e}"),
                ),
            );
            return;
        }
    };
    let mut watcher = config
        .watch
        .then(|| watcher(wake.clone(), config, problems))
        .flatten();
    let mut watched: BTreeSet<PathBuf> = BTreeSet::new();
    loop {
        let mut added = false;
        shared.passes_begun.fetch_add(1, Ordering::AcqRel);
        let pass = tailer.pass();
        for problem in pass.problems {
            record(problems, problem);
        }
        if let Some(w) = watcher.as_mut() {
            let wanted: BTreeSet<PathBuf> = pass
                .running
                .iter()
                .filter_map(|p| p.parent().map(Path::to_path_buf))
                .collect();
            // What was written before a new watch began is read by one
            // more pass now; what comes after wakes it.
            added = update_watches(w, &mut watched, wanted, problems);
        }
        shared.passes_done.fetch_add(1, Ordering::AcqRel);
        if pass.more || added {
            // Read the rest now, but still stop when asked.
            if matches!(woken.try_recv(), Ok(Wake::Stop)) {
                return;
            }
            continue;
        }
        match woken.recv_timeout(config.poll) {
            Ok(Wake::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Ok(Wake::Files | Wake::Asked) | Err(RecvTimeoutError::Timeout) => {}
        }
        // One pass for everything that woke it meanwhile.
        while let Ok(next) = woken.try_recv() {
            if matches!(next, Wake::Stop) {
                return;
            }
        }
    }
}

fn watcher(
    wake: Sender<Wake>,
    config: &TailConfig,
    problems: &Mutex<VecDeque<TailProblem>>,
) -> Option<notify::RecommendedWatcher> {
    match notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // Opening a transcript to read it is an event too (inotify's
        // IN_OPEN): without this, every pass would wake the next.
        if event.is_ok_and(|e| !e.kind.is_access()) {
            let _ = wake.send(Wake::Files);
        }
    }) {
        Ok(w) => Some(w),
        Err(e) => {
            record(
                problems,
                TailProblem::whole(
                    config.data_dir.clone(),
                    format!(
                        "watching transcripts failed ({e}); they are read every {} ms instead",
                        config.poll.as_millis()
                    ),
                ),
            );
            None
        }
    }
}

/// Watches the folders in `wanted` and stops watching the others; true
/// when a folder is watched that was not before.
fn update_watches(
    watcher: &mut notify::RecommendedWatcher,
    watched: &mut BTreeSet<PathBuf>,
    wanted: BTreeSet<PathBuf>,
    problems: &Mutex<VecDeque<TailProblem>>,
) -> bool {
    let mut added = false;
    use notify::Watcher;
    for gone in watched.difference(&wanted) {
        // A folder that went away is no longer watched anyway.
        let _ = watcher.unwatch(gone);
    }
    let mut now = BTreeSet::new();
    for dir in wanted {
        if watched.contains(&dir) {
            now.insert(dir);
            continue;
        }
        match watcher.watch(&dir, notify::RecursiveMode::NonRecursive) {
            Ok(()) => {
                now.insert(dir);
                added = true;
            }
            // Not there yet (Claude Code creates it with the transcript):
            // tried again after the next pass; polling reads it meanwhile.
            Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound) => {}
            Err(e) => {
                record(
                    problems,
                    TailProblem::whole(
                        dir.clone(),
                        format!("watching the folder failed ({e}); it is polled instead"),
                    ),
                );
                // Not tried again (nor reported again) while it is wanted.
                now.insert(dir);
            }
        }
    }
    *watched = now;
    added
}
