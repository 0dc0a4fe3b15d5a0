//! Running brush-parser with a bound on time and on threads.
//!
//! A plain command line is parsed in place: it is fast, and a thread
//! hand-off would cost more than the parse. A command line with the
//! features of every slow input found so far (groupings, here-documents:
//! [`needs_deadline`]) is parsed on a helper thread that the caller waits
//! for at most [`PARSE_DEADLINE`]. A parser that runs past it cannot be
//! stopped: its thread is *abandoned* and runs on until the parser
//! returns. To keep that from multiplying, such parses take the one
//! [`ParseSlot`]: only one runs at a time (a second waits for the first,
//! within the first's deadline), and while an abandoned one runs on,
//! another command that needs the slot is not parsed at all and fails
//! closed at once, saying why.
//! The slot's counters ([`parser_threads`]) are what a session reports in
//! its diagnostics.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use brush_parser::ParserOptions;
use brush_parser::ast;

use super::hazards::count_groupings;

/// How long one parse may take before the command fails closed. The
/// pre-parse checks keep known exponential inputs out; this bounds the
/// unknown ones, so a decision always comes back.
pub const PARSE_DEADLINE: std::time::Duration = std::time::Duration::from_millis(1500);

/// The result of a parse with a deadline.
pub(crate) enum ParseOutcome {
    /// The parser returned.
    Done(Result<ast::Program, brush_parser::ParseError>),
    /// The parser panicked.
    Panicked,
    /// The parser did not return in time (it keeps running on its thread;
    /// there is no way to stop it, but the decision does not wait).
    #[cfg_attr(feature = "fuzzing", allow(dead_code))]
    TimedOut,
    /// Another slow-featured parse holds the slot: not parsed.
    #[cfg_attr(feature = "fuzzing", allow(dead_code))]
    Busy,
    /// The caller may not wait (see [`Wait::Never`]) and the command would
    /// need the helper thread: not parsed.
    #[cfg_attr(feature = "fuzzing", allow(dead_code))]
    NotWaited,
}

/// Whether the caller may wait for a helper-thread parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Up to [`PARSE_DEADLINE`] (permission decisions, off the async
    /// workers).
    UpToDeadline,
    /// Never: only command lines parsed in place are parsed (the read-only
    /// classification behind Bash's concurrency safety, which the
    /// scheduler asks on an async worker; "not read-only" is its safe
    /// answer).
    #[cfg_attr(feature = "fuzzing", allow(dead_code))]
    Never,
}

/// How the shell parser's helper threads stand, process-wide (every
/// session's engine shares the one slot).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParserThreads {
    /// Helper threads past their deadline that still run (0 or 1).
    pub abandoned_running: usize,
    /// Helper threads abandoned since the process started.
    pub abandoned_total: u64,
    /// Command lines not parsed because the slot was taken (each failed
    /// closed to an ask) since the process started.
    pub refused_busy_total: u64,
}

/// The one helper-thread parse allowed at a time, and its counters.
#[derive(Debug, Default)]
pub struct ParseSlot {
    state: Mutex<SlotState>,
    /// Signalled when the slot is freed or its holder abandoned.
    changed: Condvar,
    abandoned_running: AtomicUsize,
    abandoned_total: AtomicU64,
    refused_busy_total: AtomicU64,
}

#[derive(Debug, Default)]
struct SlotState {
    /// A helper thread holds the slot.
    busy: bool,
    /// Its waiter gave up on it: it runs on, past its deadline.
    abandoned: bool,
}

impl ParseSlot {
    /// A free slot.
    pub const fn new() -> Self {
        Self {
            state: Mutex::new(SlotState {
                busy: false,
                abandoned: false,
            }),
            changed: Condvar::new(),
            abandoned_running: AtomicUsize::new(0),
            abandoned_total: AtomicU64::new(0),
            refused_busy_total: AtomicU64::new(0),
        }
    }

    /// Its counters now.
    pub fn threads(&self) -> ParserThreads {
        ParserThreads {
            abandoned_running: self.abandoned_running.load(Ordering::SeqCst),
            abandoned_total: self.abandoned_total.load(Ordering::SeqCst),
            refused_busy_total: self.refused_busy_total.load(Ordering::SeqCst),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes the slot. A parse still within its deadline is waited for (at
    /// most [`PARSE_DEADLINE`]: parses with here-documents are common and
    /// take microseconds, so two at once simply queue); a runaway one
    /// (abandoned) is not: `None` at once, and the caller fails closed.
    fn take(&'static self) -> Option<SlotGuard> {
        let until = std::time::Instant::now() + PARSE_DEADLINE;
        let mut st = self.lock();
        loop {
            if !st.busy {
                st.busy = true;
                st.abandoned = false;
                return Some(SlotGuard(self));
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if st.abandoned || left.is_zero() {
                drop(st);
                self.refused_busy_total.fetch_add(1, Ordering::SeqCst);
                return None;
            }
            st = self
                .changed
                .wait_timeout(st, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// The holder's waiter gave up on it.
    fn abandon(&self) {
        self.lock().abandoned = true;
        self.abandoned_running.fetch_add(1, Ordering::SeqCst);
        self.abandoned_total.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_all();
    }
}

/// Frees the slot when the helper thread is done (or was never started).
struct SlotGuard(&'static ParseSlot);

impl Drop for SlotGuard {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.busy = false;
        st.abandoned = false;
        drop(st);
        self.0.changed.notify_all();
    }
}

/// The slot every engine in the process parses through.
static SLOT: ParseSlot = ParseSlot::new();

/// The process's shell-parser thread counters (see [`ParserThreads`]).
pub fn parser_threads() -> ParserThreads {
    SLOT.threads()
}

/// True when `text` has the features every slow parse found so far had:
/// groupings (`(`, `case`) or here-documents. Only those are parsed on a
/// helper thread; a plain command line is parsed in place (a thread
/// hand-off costs more than the parse).
#[cfg_attr(feature = "fuzzing", allow(dead_code))]
pub(crate) fn needs_deadline(text: &str) -> bool {
    let (parens, cases) = count_groupings(text);
    parens > 2 || cases > 0 || text.contains("<<")
}

/// Runs a parser call, turning a panic inside the parser crate into `None`
/// (the caller then fails closed) instead of a crash.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

fn parse_here(text: &str, options: &ParserOptions) -> ParseOutcome {
    match guarded(|| brush_parser::Parser::new(text.as_bytes(), options).parse_program()) {
        Some(r) => ParseOutcome::Done(r),
        None => ParseOutcome::Panicked,
    }
}

/// Parses `text` on the calling thread (feature `fuzzing`: the fuzzer must
/// see hangs, and libFuzzer's per-thread state grows with every thread).
#[cfg(feature = "fuzzing")]
pub(crate) fn parse_with_deadline(
    text: &str,
    options: &ParserOptions,
    _wait: Wait,
) -> ParseOutcome {
    parse_here(text, options)
}

/// Parses `text`: in place, or — when [`needs_deadline`] says so — on a
/// helper thread through the process's slot, waiting at most
/// [`PARSE_DEADLINE`] (or not at all: [`Wait::Never`]).
#[cfg(not(feature = "fuzzing"))]
pub(crate) fn parse_with_deadline(text: &str, options: &ParserOptions, wait: Wait) -> ParseOutcome {
    parse_in(&SLOT, text, options, wait)
}

/// Where the helper thread and its waiter meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "fuzzing", allow(dead_code))]
enum Handoff {
    Waiting,
    /// The waiter gave up: the thread counts itself out when it ends.
    Abandoned,
    /// The thread sent its result.
    Finished,
}

/// [`parse_with_deadline`] through `slot` (tests use slots of their own,
/// so a runaway parse they start cannot take the process's slot).
#[cfg(not(feature = "fuzzing"))]
pub(crate) fn parse_in(
    slot: &'static ParseSlot,
    text: &str,
    options: &ParserOptions,
    wait: Wait,
) -> ParseOutcome {
    if !needs_deadline(text) {
        return parse_here(text, options);
    }
    if wait == Wait::Never {
        return ParseOutcome::NotWaited;
    }
    let owned = text.to_owned();
    let thread_options = options.clone();
    on_helper_thread(slot, move || {
        guarded(|| brush_parser::Parser::new(owned.as_bytes(), &thread_options).parse_program())
    })
    .unwrap_or_else(|| parse_here(text, options))
}

/// What a helper thread computes: the parser's result, `None` if it
/// panicked.
type Parsed = Option<Result<ast::Program, brush_parser::ParseError>>;

/// Runs `parse` on a helper thread holding `slot`, waiting for it at most
/// [`PARSE_DEADLINE`]; a thread past it is abandoned and counted until it
/// ends. `None` when no thread could be started (the caller parses in
/// place).
#[cfg(not(feature = "fuzzing"))]
pub(crate) fn on_helper_thread(
    slot: &'static ParseSlot,
    parse: impl FnOnce() -> Parsed + Send + 'static,
) -> Option<ParseOutcome> {
    let Some(guard) = slot.take() else {
        return Some(ParseOutcome::Busy);
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let handoff = Arc::new(Mutex::new(Handoff::Waiting));
    let thread_handoff = Arc::clone(&handoff);
    let spawned = std::thread::Builder::new()
        .name("shell-parse".into())
        .spawn(move || {
            let result = parse();
            let mut state = thread_handoff.lock().unwrap_or_else(|p| p.into_inner());
            let _ = tx.send(result);
            if *state == Handoff::Abandoned {
                slot.abandoned_running.fetch_sub(1, Ordering::SeqCst);
            }
            *state = Handoff::Finished;
            drop(state);
            // The slot is free only once the parser has returned.
            drop(guard);
        });
    if spawned.is_err() {
        // No thread (the guard went with the closure and freed the slot).
        return None;
    }
    Some(match rx.recv_timeout(PARSE_DEADLINE) {
        Ok(Some(result)) => ParseOutcome::Done(result),
        Ok(None) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => ParseOutcome::Panicked,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            let mut state = handoff.lock().unwrap_or_else(|p| p.into_inner());
            if *state == Handoff::Finished {
                // It returned just as the deadline passed.
                return Some(match rx.try_recv() {
                    Ok(Some(result)) => ParseOutcome::Done(result),
                    _ => ParseOutcome::Panicked,
                });
            }
            *state = Handoff::Abandoned;
            slot.abandon();
            ParseOutcome::TimedOut
        }
    })
}
