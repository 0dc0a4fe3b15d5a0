//! The event writer: every event of every session is appended to SQLite
//! first and then handed to the front end's sink, on one thread, in the
//! order emitted. A line the front end sees is therefore always stored.
//!
//! ## Batches
//!
//! The writer takes whatever is queued (up to [`MAX_BATCH`] events), stores
//! it in one transaction ([`Store::append_events`]), completes the flush
//! tickets of the batch's durable events, and then forwards the batch in
//! order. Under load one commit covers hundreds of events; when a batch
//! cannot be stored, its events are retried one by one so one bad event does
//! not take the others with it.
//!
//! ## A bounded queue, and where back-pressure lands
//!
//! [`EventSink::emit`] is synchronous and called from async code on the
//! runtime's workers, so a full queue cannot be awaited. The queue holds at
//! most [`QUEUE_CAPACITY`] events:
//!
//! - `tool_progress` is the only event a flood is made of (Bash output, MCP
//!   progress). Once [`PROGRESS_SOFT_LIMIT`] progress events are queued, a
//!   new progress event *replaces* the call's last queued one instead of
//!   queueing beside it (the last is kept; the ones in between were
//!   superseded and are neither stored nor shown, so the front end never
//!   sees an unstored line). The number replaced is counted
//!   ([`EventWriter::coalesced`]). Only payloads that a later one
//!   supersedes take part (`ToolProgressData::coalesces`: output, MCP
//!   and sub-agent progress, todos): one said once — how a command started
//!   or ended, what the sandbox refused, a diff, search results — is always
//!   kept.
//! - Every other event is always queued, never dropped. When the queue is
//!   full (only possible when the writer falls behind by thousands of
//!   events), `emit` waits for the writer to take the next batch. That wait
//!   is bounded: the writer thread never waits on the async runtime, only on
//!   SQLite and the front end's sink, so it frees room within one commit.
//! - Events that matter for review are emitted with
//!   [`EventSink::emit_durable`] by the runtime, which *awaits* its ticket
//!   (completed after the commit), so the producers of those steps are paced
//!   by the writer without blocking a worker.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use gatehouse_core::events::{EventSink, NotStored, Stored, StoredSender};
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_store::Store;

/// At most this many events are stored in one transaction.
pub const MAX_BATCH: usize = 512;
/// At most this many events wait for the writer.
pub const QUEUE_CAPACITY: usize = 8192;
/// Beyond this many queued progress events, new progress replaces the
/// call's last queued progress event instead of queueing.
pub const PROGRESS_SOFT_LIMIT: usize = 1024;

/// One queued event, with the ticket of a durable emit.
struct Item {
    event: Event,
    ticket: Option<StoredSender>,
}

#[derive(Default)]
struct State {
    items: VecDeque<Item>,
    /// The absolute position of `items[0]` (positions count every event
    /// ever queued), so `last_progress` stays valid as the writer drains.
    head: u64,
    /// Progress events among `items`.
    progress: usize,
    /// Per call: the absolute position of its last queued progress event,
    /// when nothing else was queued after it. Cleared by any other event,
    /// so a replacement never moves progress across another event.
    last_progress: HashMap<String, u64>,
    /// Progress events superseded by a newer one while queued.
    coalesced: u64,
    closed: bool,
}

#[derive(Default)]
struct Queue {
    state: Mutex<State>,
    /// The writer waits here for events.
    filled: Condvar,
    /// Producers wait here for room.
    drained: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `item` (see the module docs); `false` once the writer stopped.
    fn push(&self, item: Item) -> bool {
        let mut state = self.lock();
        if state.closed {
            return false;
        }
        let progress_call = match &item.event.body {
            EventBody::ToolProgress { tool_use_id, data }
                if item.ticket.is_none() && data.coalesces() =>
            {
                Some(tool_use_id.clone())
            }
            _ => None,
        };
        if let Some(call) = &progress_call
            && state.progress >= PROGRESS_SOFT_LIMIT
            && let Some(&at) = state.last_progress.get(call)
            && let Some(index) = at.checked_sub(state.head)
            && let Some(slot) = state
                .items
                .get_mut(usize::try_from(index).unwrap_or(usize::MAX))
        {
            slot.event = item.event;
            state.coalesced += 1;
            return true;
        }
        while state.items.len() >= QUEUE_CAPACITY && !state.closed {
            state = self.drained.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        if state.closed {
            return false;
        }
        let at = state.head + state.items.len() as u64;
        match (progress_call, &item.event.body) {
            (Some(call), _) => {
                state.progress += 1;
                state.last_progress.insert(call, at);
            }
            // Said once: kept, and nothing after it takes its place.
            (None, EventBody::ToolProgress { tool_use_id, .. }) => {
                state.progress += 1;
                state.last_progress.remove(tool_use_id);
            }
            (None, _) if !state.last_progress.is_empty() => state.last_progress.clear(),
            (None, _) => {}
        }
        state.items.push_back(item);
        drop(state);
        self.filled.notify_one();
        true
    }

    /// The next batch, waiting for one; `None` once closed and empty.
    fn take_batch(&self) -> Option<Vec<Item>> {
        let mut state = self.lock();
        while state.items.is_empty() {
            if state.closed {
                return None;
            }
            state = self.filled.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        let n = state.items.len().min(MAX_BATCH);
        let batch: Vec<Item> = state.items.drain(..n).collect();
        state.head += n as u64;
        let progress = batch
            .iter()
            .filter(|i| matches!(i.event.body, EventBody::ToolProgress { .. }))
            .count();
        state.progress = state.progress.saturating_sub(progress);
        let head = state.head;
        state.last_progress.retain(|_, at| *at >= head);
        drop(state);
        self.drained.notify_all();
        Some(batch)
    }

    fn close(&self) {
        self.lock().closed = true;
        self.filled.notify_all();
        self.drained.notify_all();
    }
}

/// An [`EventSink`] that queues events for the writer thread.
#[derive(Clone)]
pub struct StoringSink {
    queue: Arc<Queue>,
}

impl std::fmt::Debug for StoringSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoringSink").finish_non_exhaustive()
    }
}

impl EventSink for StoringSink {
    fn emit(&self, event: Event) {
        // The writer only stops once the host is finished; later events
        // (a task ending after shutdown) have nowhere to go.
        self.queue.push(Item {
            event,
            ticket: None,
        });
    }

    fn emit_durable(&self, event: Event) -> Stored {
        let (sender, ticket) = Stored::pending();
        if self.queue.push(Item {
            event,
            ticket: Some(sender),
        }) {
            ticket
        } else {
            Stored::failed("the session's event writer has stopped")
        }
    }
}

/// The writer thread and the sink feeding it.
pub struct EventWriter {
    sink: StoringSink,
    thread: Option<JoinHandle<usize>>,
}

impl std::fmt::Debug for EventWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventWriter")
            .field("running", &self.thread.is_some())
            .finish_non_exhaustive()
    }
}

impl EventWriter {
    /// Starts a writer storing into `store` and then calling `forward`.
    pub fn start(mut store: Store, forward: Arc<dyn EventSink>) -> Self {
        let queue = Arc::new(Queue::default());
        let source = Arc::clone(&queue);
        let thread = std::thread::spawn(move || {
            let mut failures = 0;
            while let Some(batch) = source.take_batch() {
                failures += store_batch(&mut store, batch, forward.as_ref());
            }
            failures
        });
        Self {
            sink: StoringSink { queue },
            thread: Some(thread),
        }
    }

    /// The sink sessions emit into.
    pub fn sink(&self) -> StoringSink {
        self.sink.clone()
    }

    /// How many progress events were superseded by a newer one of the same
    /// call before they were stored (a flood the writer could not keep up
    /// with; the last one of each run was kept).
    pub fn coalesced(&self) -> u64 {
        self.sink.queue.lock().coalesced
    }

    /// How many events wait for the writer now (diagnostics; at most
    /// [`QUEUE_CAPACITY`]).
    pub fn queued(&self) -> usize {
        self.sink.queue.lock().items.len()
    }

    /// Stops accepting events, waits until every queued one is stored and
    /// forwarded, and returns how many could not be stored.
    pub fn finish(&mut self) -> usize {
        self.sink.queue.close();
        self.thread
            .take()
            .map_or(0, |t| t.join().unwrap_or(usize::MAX))
    }
}

/// Stores `batch` (one transaction; event by event when that fails),
/// completes its tickets, forwards it; returns how many were not stored.
fn store_batch(store: &mut Store, batch: Vec<Item>, forward: &dyn EventSink) -> usize {
    let events: Vec<&Event> = batch.iter().map(|i| &i.event).collect();
    let outcomes: Vec<Result<(), String>> = match store.append_events(&events) {
        Ok(()) => vec![Ok(()); events.len()],
        // One bad event (a session that does not exist) must not cost the
        // others their place: retry each on its own.
        Err(_) => events
            .iter()
            .map(|e| store.append_event(e).map(|_| ()).map_err(|e| e.to_string()))
            .collect(),
    };
    let mut failures = 0;
    for (item, outcome) in batch.into_iter().zip(outcomes) {
        if let Err(e) = &outcome {
            failures += 1;
            eprintln!(
                "gatehouse: error: storing a {} event of session {} failed: {e}",
                event_type(&item.event),
                item.event.session_id
            );
        }
        if let Some(ticket) = item.ticket {
            ticket.complete(outcome.map_err(NotStored));
        }
        forward.emit(item.event);
    }
    failures
}

fn event_type(event: &Event) -> String {
    serde_json::to_value(&event.body)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str().map(str::to_owned)))
        .unwrap_or_default()
}
