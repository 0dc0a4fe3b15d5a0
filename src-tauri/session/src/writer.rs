//! The event writer: every event of every session is appended to SQLite
//! first and then handed to the front end's sink, on one thread, in the
//! order emitted. A line the front end sees is therefore always stored.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use gatehouse_core::events::EventSink;
use gatehouse_protocol::event::Event;
use gatehouse_store::Store;

/// What the writer thread is asked to do, in order.
#[derive(Debug)]
enum Job {
    /// Store and forward an event.
    Event(Box<Event>),
    /// Report once every event queued before is stored and forwarded.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// An [`EventSink`] that queues events for the writer thread.
#[derive(Debug, Clone)]
pub struct StoringSink {
    tx: Arc<Mutex<Option<mpsc::Sender<Job>>>>,
}

impl StoringSink {
    /// Resolves once every event emitted before is stored and forwarded
    /// (at once when the writer has stopped).
    pub async fn flushed(&self) {
        let (done, wait) = tokio::sync::oneshot::channel();
        let sent = {
            let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
            tx.as_ref()
                .is_some_and(|tx| tx.send(Job::Flush(done)).is_ok())
        };
        if sent {
            let _ = wait.await;
        }
    }
}

impl EventSink for StoringSink {
    fn emit(&self, event: Event) {
        let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = tx.as_ref() {
            // The writer only stops once the host is finished; later events
            // (a task ending after shutdown) have nowhere to go.
            let _ = tx.send(Job::Event(Box::new(event)));
        }
    }
}

/// The writer thread and the sink feeding it.
#[derive(Debug)]
pub struct EventWriter {
    sink: StoringSink,
    thread: Option<JoinHandle<usize>>,
}

impl EventWriter {
    /// Starts a writer storing into `store` and then calling `forward`.
    pub fn start(mut store: Store, forward: Arc<dyn EventSink>) -> Self {
        let (tx, rx) = mpsc::channel::<Job>();
        let thread = std::thread::spawn(move || {
            let mut failures = 0;
            for job in rx {
                let event = match job {
                    Job::Event(event) => *event,
                    Job::Flush(done) => {
                        let _ = done.send(());
                        continue;
                    }
                };
                if let Err(e) = store.append_event(&event) {
                    failures += 1;
                    eprintln!(
                        "gatehouse: error: storing a {} event of session {} failed: {e}",
                        event_type(&event),
                        event.session_id
                    );
                }
                forward.emit(event);
            }
            failures
        });
        Self {
            sink: StoringSink {
                tx: Arc::new(Mutex::new(Some(tx))),
            },
            thread: Some(thread),
        }
    }

    /// The sink sessions emit into.
    pub fn sink(&self) -> StoringSink {
        self.sink.clone()
    }

    /// Stops accepting events, waits until every queued one is stored and
    /// forwarded, and returns how many could not be stored.
    pub fn finish(&mut self) -> usize {
        self.sink
            .tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        self.thread
            .take()
            .map_or(0, |t| t.join().unwrap_or(usize::MAX))
    }
}

fn event_type(event: &Event) -> String {
    serde_json::to_value(&event.body)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str().map(str::to_owned)))
        .unwrap_or_default()
}
