//! Where the runtime's events go.
//!
//! Every stage of the pipeline reports what it did as a typed
//! [`gatehouse_protocol::event::Event`]. The runtime hands them to an
//! [`EventSink`]; the desktop app forwards them to the UI, the store appends
//! them to the transcript, the CLI prints them as JSON lines. Emitting never
//! blocks and never fails from the runtime's point of view: a sink that cannot
//! keep up or has gone away must not stall or break tool execution.
//!
//! Durability (SPEC §11, "a crash loses at most the event being written"):
//! the events that matter for review are made durable *before the step that
//! follows them*, by construction. [`Emitter::emit_durable`] emits an event
//! and waits until the sink reports it stored ([`EventSink::emit_durable`],
//! a [`Stored`] ticket). Sinks store in emission order, so the wait also
//! covers every event emitted before it. The runtime waits at three points:
//! `permission_decided` before the call runs (covering its `tool_queued`,
//! `permission_requested`/`answered` and earlier calls' `tool_completed`),
//! `user_prompt` before the first model request, and `model_request_started`
//! before the request is sent (covering the previous turn's
//! `assistant_message`, `tool_completed` and `tool_results_returned`).

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use gatehouse_protocol::event::{Event, EventBody};
use tokio::sync::mpsc;

/// A consumer of runtime events.
///
/// `emit` is called from the runtime's tasks, possibly concurrently, in the
/// order the events happened for any one call. Implementations must return
/// quickly: queue the event, don't do I/O that can stall.
pub trait EventSink: Send + Sync {
    /// Takes one event.
    fn emit(&self, event: Event);

    /// Takes one event and returns a ticket that completes once it (and
    /// every event emitted before it) is stored. Sinks that store nothing
    /// have nothing to wait for: the default emits and is ready at once.
    fn emit_durable(&self, event: Event) -> Stored {
        self.emit(event);
        Stored::ready()
    }
}

/// Why an event that had to be durable was not stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the event could not be stored: {0}")]
pub struct NotStored(pub String);

/// A ticket for one event handed to [`EventSink::emit_durable`]: completes
/// when the sink has stored it (committed), or failed to.
#[derive(Debug)]
#[must_use = "a durable event is only durable once its ticket is awaited"]
pub struct Stored(StoredInner);

#[derive(Debug)]
enum StoredInner {
    Ready(Result<(), NotStored>),
    Pending(tokio::sync::oneshot::Receiver<Result<(), NotStored>>),
}

/// The sink's half of a [`Stored`] ticket.
#[derive(Debug)]
pub struct StoredSender(tokio::sync::oneshot::Sender<Result<(), NotStored>>);

impl StoredSender {
    /// Reports the outcome. Dropping the sender unreported reports a failure.
    pub fn complete(self, outcome: Result<(), NotStored>) {
        // The waiter may have gone away (its call was cancelled): fine.
        let _ = self.0.send(outcome);
    }
}

impl Stored {
    /// A ticket that is already complete (nothing to store).
    pub fn ready() -> Self {
        Self(StoredInner::Ready(Ok(())))
    }

    /// A ticket that already failed.
    pub fn failed(reason: impl Into<String>) -> Self {
        Self(StoredInner::Ready(Err(NotStored(reason.into()))))
    }

    /// A pending ticket and the sender that completes it.
    pub fn pending() -> (StoredSender, Self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        (StoredSender(tx), Self(StoredInner::Pending(rx)))
    }

    /// Waits until the event is stored.
    pub async fn wait(self) -> Result<(), NotStored> {
        match self.0 {
            StoredInner::Ready(outcome) => outcome,
            StoredInner::Pending(rx) => rx.await.unwrap_or_else(|_| {
                Err(NotStored(
                    "the event writer stopped before storing it".into(),
                ))
            }),
        }
    }
}

/// Discards every event (benchmarks, callers that don't observe).
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: Event) {}
}

/// Keeps every event in memory, in emission order (tests, replays).
#[derive(Debug, Default)]
pub struct MemorySink {
    events: Mutex<Vec<Event>>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the events received so far.
    pub fn events(&self) -> Vec<Event> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Takes the events received so far, leaving the sink empty.
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl EventSink for MemorySink {
    fn emit(&self, event: Event) {
        // A panic while holding the lock poisons it; the events themselves
        // are still consistent, so keep recording rather than losing them.
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }
}

/// Forwards events into an unbounded tokio channel (the app and the store
/// consume the receiver on their own tasks).
///
/// Unbounded because back-pressure here would stall tool calls on a slow
/// UI; a dropped receiver simply discards further events.
#[derive(Debug, Clone)]
pub struct ChannelSink {
    tx: mpsc::UnboundedSender<Event>,
}

impl ChannelSink {
    /// A sink and the receiver its events arrive on.
    pub fn new() -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx }, rx)
    }
}

impl EventSink for ChannelSink {
    fn emit(&self, event: Event) {
        // The receiver is gone only when the session is being torn down.
        let _ = self.tx.send(event);
    }
}

/// Writes each event as one JSON line (`gatehouse-cli --json`, logs).
#[derive(Debug)]
pub struct JsonLinesSink<W: Write + Send> {
    out: Mutex<W>,
}

impl<W: Write + Send> JsonLinesSink<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Self {
        Self {
            out: Mutex::new(out),
        }
    }

    /// Gives the writer back.
    pub fn into_inner(self) -> W {
        self.out
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<W: Write + Send> EventSink for JsonLinesSink<W> {
    fn emit(&self, event: Event) {
        let line = to_json_line(&event);
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        // A closed stdout (e.g. `| head`) must not break tool execution.
        let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
    }
}

/// One event as a JSON object terminated by a newline.
pub fn to_json_line(event: &Event) -> String {
    // Serialising these plain data types cannot fail (string keys only, no
    // non-finite floats are produced by the runtime); fall back to a
    // well-formed line rather than panicking if it ever does.
    let mut line = serde_json::to_string(event).unwrap_or_else(|e| {
        format!(
            r#"{{"type":"serialization_error","session_id":{},"ts_ms":{},"error":{}}}"#,
            serde_json::Value::from(event.session_id.as_str()),
            event.ts_ms,
            serde_json::Value::from(e.to_string())
        )
    });
    line.push('\n');
    line
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Stamps event bodies with the session id and the time, and hands them to
/// the sink. Cheap to clone.
#[derive(Clone)]
pub struct Emitter {
    session_id: Arc<str>,
    sink: Arc<dyn EventSink>,
}

impl std::fmt::Debug for Emitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emitter")
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

impl Emitter {
    /// An emitter for one session.
    pub fn new(session_id: impl Into<Arc<str>>, sink: Arc<dyn EventSink>) -> Self {
        Self {
            session_id: session_id.into(),
            sink,
        }
    }

    /// The session the events belong to.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Emits one event, stamped now.
    pub fn emit(&self, body: EventBody) {
        self.sink.emit(self.stamp(body));
    }

    /// Emits one event, stamped now, and waits until it and everything
    /// emitted before it is stored: the step that follows is only taken
    /// once the record of this one survives a crash (see the module docs).
    pub async fn emit_durable(&self, body: EventBody) -> Result<(), NotStored> {
        self.sink.emit_durable(self.stamp(body)).wait().await
    }

    fn stamp(&self, body: EventBody) -> Event {
        Event {
            session_id: self.session_id.to_string(),
            ts_ms: now_ms(),
            body,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_to_one_json_line_with_type_session_and_ts() {
        let sink = Arc::new(MemorySink::new());
        let emitter = Emitter::new("s-1", sink.clone());
        emitter.emit(EventBody::ToolStarted {
            tool_use_id: "toolu_1".into(),
            batch: 2,
            concurrent: true,
        });
        let events = sink.events();
        assert_eq!(events.len(), 1);
        let line = to_json_line(&events[0]);
        assert!(line.ends_with('\n'));
        assert_eq!(line.matches('\n').count(), 1, "{line}");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["type"], "tool_started");
        assert_eq!(v["session_id"], "s-1");
        assert!(v["ts_ms"].as_u64().unwrap() > 1_600_000_000_000);
        assert_eq!(v["tool_use_id"], "toolu_1");
        assert_eq!(v["batch"], 2);
        assert_eq!(v["concurrent"], true);
    }

    #[test]
    fn new_variants_serialise_with_snake_case_types() {
        use gatehouse_protocol::event::{HookEventName, RejectionStage};
        let line = |body| {
            let v: serde_json::Value = serde_json::from_str(&to_json_line(&Event {
                session_id: "s".into(),
                ts_ms: 1,
                body,
            }))
            .unwrap();
            v
        };
        let v = line(EventBody::ToolInputRejected {
            tool_use_id: "t".into(),
            stage: RejectionStage::ValidateInput,
            message: "m".into(),
        });
        assert_eq!(v["type"], "tool_input_rejected");
        assert_eq!(v["stage"], "validate_input");
        let v = line(EventBody::HookRan {
            tool_use_id: "t".into(),
            hook_event: HookEventName::PostToolUseFailure,
            hook: "h".into(),
            decision: None,
            blocked: false,
            input_updated: false,
            message: None,
            error: Some("boom".into()),
            run: None,
        });
        assert_eq!(v["type"], "hook_ran");
        assert_eq!(v["hook_event"], "PostToolUseFailure");
        let v = line(EventBody::ContextModified {
            tool_use_id: "t".into(),
            description: "d".into(),
            applied: true,
        });
        assert_eq!(v["type"], "context_modified");
        // And back: the store reads these lines.
        let event: Event = serde_json::from_value(v).unwrap();
        assert!(matches!(
            event.body,
            EventBody::ContextModified { applied: true, .. }
        ));
    }

    #[test]
    fn json_lines_sink_writes_one_line_per_event() {
        let sink = JsonLinesSink::new(Vec::new());
        let emitter = Emitter::new("s", Arc::new(NullSink));
        for i in 0..3 {
            sink.emit(Event {
                session_id: emitter.session_id().into(),
                ts_ms: i,
                body: EventBody::ToolProgress {
                    tool_use_id: format!("t{i}"),
                    data: gatehouse_protocol::progress::ToolProgressData::BashOutput {
                        text: "a\nb".into(),
                        skipped_bytes: 0,
                        total_bytes: 3,
                        stream: None,
                    },
                },
            });
        }
        let text = String::from_utf8(sink.into_inner()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        for (i, line) in lines.iter().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["type"], "tool_progress");
            assert_eq!(v["tool_use_id"], format!("t{i}"));
        }
    }

    #[tokio::test]
    async fn channel_sink_delivers_and_tolerates_a_dropped_receiver() {
        let (sink, mut rx) = ChannelSink::new();
        let emitter = Emitter::new("s", Arc::new(sink));
        emitter.emit(EventBody::ToolProgress {
            tool_use_id: "t".into(),
            data: gatehouse_protocol::progress::ToolProgressData::Other {
                data: serde_json::Value::Null,
            },
        });
        assert!(rx.recv().await.is_some());
        drop(rx);
        emitter.emit(EventBody::ToolProgress {
            tool_use_id: "t".into(),
            data: gatehouse_protocol::progress::ToolProgressData::Other {
                data: serde_json::Value::Null,
            },
        });
    }
}
