//! The window's side of a Claude Code ask: each ask that arrives on the
//! socket ([`super::bridge::serve`]) gets a request id, is shown (the app
//! emits it to the permission modal), and waits for
//! [`PendingAsks::answer`]; an ask nobody answers within the wait, or one
//! answered with `None` (dismissed), goes back unanswered and Claude Code
//! asks in its terminal. An ask that stops waiting without an answer from
//! the window (its wait ran out, or the bridge dropped it because the
//! hook's connection closed) is withdrawn: it leaves the pending asks and
//! the app is told, so the modal drops it. Nothing here knows about Tauri.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_protocol::claude_code::{
    ClaudeCodeAsk, ClaudeCodeAskWithdrawn, ClaudeCodeAskWithdrawnReason,
};
use gatehouse_protocol::session::PermissionAnswer;
use tokio::sync::oneshot;

use super::bridge::AskHandler;

/// What the app is told of a withdrawn ask.
type Withdraw = dyn Fn(ClaudeCodeAskWithdrawn) + Send + Sync;

/// One ask waiting: removes it from the pending asks when its future ends,
/// and tells `withdraw` when it was still pending (nobody answered it).
struct Waiting {
    asks: Arc<PendingAsks>,
    id: String,
    withdraw: Arc<Withdraw>,
    /// Why, if it was still pending: a dropped future is the hook gone.
    reason: ClaudeCodeAskWithdrawnReason,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.asks.pending().remove(&self.id).is_some() {
            (self.withdraw)(ClaudeCodeAskWithdrawn {
                request_id: std::mem::take(&mut self.id),
                reason: self.reason,
            });
        }
    }
}

/// Asks shown and not answered yet.
#[derive(Debug, Default)]
pub struct PendingAsks {
    next: AtomicU64,
    pending: Mutex<HashMap<String, oneshot::Sender<Option<PermissionAnswer>>>>,
}

impl PendingAsks {
    fn pending(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Option<PermissionAnswer>>>> {
        // A panic elsewhere never leaves the map half-written.
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The handler to serve the socket with: `show` gets each ask with its
    /// request id (the app emits it to the window); the ask waits at most
    /// `wait` for its answer. `withdraw` is told of every ask that stops
    /// waiting unanswered by the window: its wait ran out, or its future
    /// was dropped (the bridge does so when the hook's connection closes).
    pub fn handler(
        self: &Arc<Self>,
        show: impl Fn(String, ClaudeCodeAsk) + Send + Sync + 'static,
        withdraw: impl Fn(ClaudeCodeAskWithdrawn) + Send + Sync + 'static,
        wait: Duration,
    ) -> AskHandler {
        let asks = Arc::clone(self);
        let show = Arc::new(show);
        let withdraw: Arc<Withdraw> = Arc::new(withdraw);
        Arc::new(move |ask| {
            let (asks, show, withdraw) =
                (Arc::clone(&asks), Arc::clone(&show), Arc::clone(&withdraw));
            Box::pin(async move {
                let id = format!(
                    "claude-code-ask-{}",
                    asks.next.fetch_add(1, Ordering::SeqCst)
                );
                let (tx, rx) = oneshot::channel();
                asks.pending().insert(id.clone(), tx);
                // From here on, however this future ends (answered, timed
                // out, dropped), the ask leaves the pending ones.
                let mut waiting = Waiting {
                    asks,
                    id: id.clone(),
                    withdraw,
                    reason: ClaudeCodeAskWithdrawnReason::HookGone,
                };
                show(id, ask);
                match tokio::time::timeout(wait, rx).await {
                    Ok(Ok(answer)) => answer,
                    Ok(Err(_)) => None,
                    Err(_) => {
                        waiting.reason = ClaudeCodeAskWithdrawnReason::TimedOut;
                        None
                    }
                }
            })
        })
    }

    /// Answers request `request_id` (`None`: dismissed, Claude Code asks in
    /// its terminal). An id that is not pending (answered already, timed
    /// out) is an error saying so.
    pub fn answer(&self, request_id: &str, answer: Option<PermissionAnswer>) -> Result<(), String> {
        let sender = self.pending().remove(request_id).ok_or_else(|| {
            format!("the Claude Code ask {request_id} is no longer waiting (answered or timed out)")
        })?;
        sender
            .send(answer)
            .map_err(|_| format!("the Claude Code ask {request_id} is no longer waiting"))
    }

    /// The ids of the asks waiting, in no particular order.
    pub fn pending_ids(&self) -> Vec<String> {
        self.pending().keys().cloned().collect()
    }
}
