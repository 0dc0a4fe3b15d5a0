//! The window's side of a Claude Code ask: each ask that arrives on the
//! socket ([`super::bridge::serve`]) gets a request id, is shown (the app
//! emits it to the permission modal), and waits for
//! [`PendingAsks::answer`]; an ask nobody answers within the wait, or one
//! answered with `None` (dismissed), goes back unanswered and Claude Code
//! asks in its terminal. Nothing here knows about Tauri.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_protocol::claude_code::ClaudeCodeAsk;
use gatehouse_protocol::session::PermissionAnswer;
use tokio::sync::oneshot;

use super::bridge::AskHandler;

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
    /// `wait` for its answer.
    pub fn handler(
        self: &Arc<Self>,
        show: impl Fn(String, ClaudeCodeAsk) + Send + Sync + 'static,
        wait: Duration,
    ) -> AskHandler {
        let asks = Arc::clone(self);
        let show = Arc::new(show);
        Arc::new(move |ask| {
            let (asks, show) = (Arc::clone(&asks), Arc::clone(&show));
            Box::pin(async move {
                let id = format!(
                    "claude-code-ask-{}",
                    asks.next.fetch_add(1, Ordering::SeqCst)
                );
                let (tx, rx) = oneshot::channel();
                asks.pending().insert(id.clone(), tx);
                show(id.clone(), ask);
                let answer = tokio::time::timeout(wait, rx).await;
                asks.pending().remove(&id);
                match answer {
                    Ok(Ok(answer)) => answer,
                    // Timed out, or the sender went away.
                    _ => None,
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
