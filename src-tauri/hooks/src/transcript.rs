//! The file behind `transcript_path`: the session as Claude Code's JSONL
//! (`{"type": "user"|"assistant", "message": {...}, "uuid", "parentUuid",
//! "sessionId", "timestamp", "cwd"}` per line, the format
//! `gatehouse-transcripts` imports), so hook scripts that read the
//! transcript work unchanged.
//!
//! Written only while a session has hooks: [`TranscriptSink`] wraps the
//! session's event sink, picks the prompt, assistant-message and
//! tool-result events and hands them to a writer thread through a bounded
//! queue (no file I/O on a runtime worker; a full queue drops the line and
//! counts it). Before a hook runs, [`TranscriptSink::sync`] waits until
//! every line emitted so far is on disk, so a hook always reads the
//! session up to its own event.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

use gatehouse_core::events::{EventSink, Stored};
use gatehouse_protocol::event::{Event, EventBody};
use serde_json::{Value, json};

/// Lines queued for the writer at most.
const QUEUE: usize = 4096;

enum Msg {
    Event(Box<Event>),
    Sync(tokio::sync::oneshot::Sender<()>),
}

/// See the module docs.
pub struct TranscriptSink {
    inner: Arc<dyn EventSink>,
    tx: SyncSender<Msg>,
    path: PathBuf,
    dropped: AtomicU64,
}

impl std::fmt::Debug for TranscriptSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptSink")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn wanted(body: &EventBody) -> bool {
    matches!(
        body,
        EventBody::UserPrompt { .. }
            | EventBody::ContextAdded { .. }
            | EventBody::AssistantMessage { .. }
            | EventBody::ToolResultsReturned { .. }
    )
}

fn timestamp(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .map_or_else(|| "1970-01-01T00:00:00Z".into(), |t| t.to_string())
}

/// The Claude Code line of one event, chained to `parent`.
fn line(event: &Event, uuid: &str, parent: Option<&str>, cwd: &str) -> Option<Value> {
    let (kind, message) = match &event.body {
        EventBody::UserPrompt { text } | EventBody::ContextAdded { text, .. } => {
            ("user", json!({"role": "user", "content": text}))
        }
        EventBody::AssistantMessage {
            message_id,
            content,
            stop_reason,
            ..
        } => (
            "assistant",
            json!({
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": content,
                "stop_reason": stop_reason,
            }),
        ),
        EventBody::ToolResultsReturned { content, .. } => {
            ("user", json!({"role": "user", "content": content}))
        }
        _ => return None,
    };
    Some(json!({
        "parentUuid": parent,
        "isSidechain": false,
        "userType": "external",
        "cwd": cwd,
        "sessionId": event.session_id,
        "version": concat!("gatehouse-", env!("CARGO_PKG_VERSION")),
        "type": kind,
        "message": message,
        "uuid": uuid,
        "timestamp": timestamp(event.ts_ms),
    }))
}

impl TranscriptSink {
    /// Starts writing `path` (created with its folder; appended to when it
    /// exists, as a resumed session continues its file) for the events
    /// passing to `inner`.
    pub fn start(inner: Arc<dyn EventSink>, path: &Path, cwd: &Path) -> Result<Arc<Self>, String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open the transcript {}: {e}", path.display()))?;
        let (tx, rx) = sync_channel::<Msg>(QUEUE);
        let cwd = cwd.display().to_string();
        let session_tag = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        std::thread::Builder::new()
            .name("gatehouse-transcript".into())
            .spawn(move || {
                let mut parent: Option<String> = None;
                let mut n = 0u64;
                while let Ok(msg) = rx.recv() {
                    match msg {
                        Msg::Event(event) => {
                            n += 1;
                            let uuid = format!("{session_tag}-{n:08}");
                            if let Some(v) = line(&event, &uuid, parent.as_deref(), &cwd) {
                                // A failed write loses one line of a file
                                // scripts read; the session goes on.
                                let _ = writeln!(file, "{v}");
                                let _ = file.flush();
                                parent = Some(uuid);
                            }
                        }
                        Msg::Sync(done) => {
                            let _ = done.send(());
                        }
                    }
                }
            })
            .map_err(|e| format!("cannot start the transcript writer: {e}"))?;
        Ok(Arc::new(Self {
            inner,
            tx,
            path: path.to_path_buf(),
            dropped: AtomicU64::new(0),
        }))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines dropped because the writer fell behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Waits until every line emitted before this call is written.
    pub async fn sync(&self) {
        let (done, wait) = tokio::sync::oneshot::channel();
        // A full queue: wait on the blocking pool rather than a worker.
        let tx = self.tx.clone();
        match tx.try_send(Msg::Sync(done)) {
            Ok(()) => {}
            Err(TrySendError::Full(msg)) => {
                let _ = tokio::task::spawn_blocking(move || tx.send(msg)).await;
            }
            Err(TrySendError::Disconnected(_)) => return,
        }
        let _ = wait.await;
    }

    fn queue(&self, event: &Event) {
        if wanted(&event.body)
            && self
                .tx
                .try_send(Msg::Event(Box::new(event.clone())))
                .is_err()
        {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl EventSink for TranscriptSink {
    fn emit(&self, event: Event) {
        self.queue(&event);
        self.inner.emit(event);
    }

    fn emit_durable(&self, event: Event) -> Stored {
        self.queue(&event);
        self.inner.emit_durable(event)
    }
}
