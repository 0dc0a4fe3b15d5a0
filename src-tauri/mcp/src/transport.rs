//! A transport wrapper that takes progress notifications out of a server's
//! message stream and hands them to the throttle of the call they belong
//! to, before rmcp sees them.
//!
//! Why here and not in the client handler: rmcp spawns one task per
//! notification, so a flood of a million progress notifications became a
//! million tasks, and a call's response could overtake its last progress
//! notifications (the route was gone by then, and the final value lost).
//! `receive` is called by rmcp's service loop one message at a time, so
//! every progress notification sent before a response is routed before the
//! response is delivered. rmcp uses progress only to reset a request
//! timeout when asked to (`reset_timeout_on_progress`), which Gatehouse
//! does not.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, ProgressNotificationParam, ProgressToken, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::throttle::Throttle;

/// The throttles of the calls in flight, by progress token.
pub(crate) type ProgressRoutes =
    Arc<Mutex<HashMap<ProgressToken, Throttle<ProgressNotificationParam>>>>;

/// `T` with its progress notifications routed to [`ProgressRoutes`].
pub(crate) struct Routed<T> {
    inner: T,
    progress: ProgressRoutes,
}

impl<T> Routed<T> {
    pub(crate) fn new(inner: T, progress: ProgressRoutes) -> Self {
        Self { inner, progress }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Routed<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await?;
            let JsonRpcMessage::Notification(n) = &message else {
                return Some(message);
            };
            let ServerNotification::ProgressNotification(p) = &n.notification else {
                return Some(message);
            };
            let throttle = self
                .progress
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&p.params.progress_token)
                .cloned();
            // A token of no call in flight (late, or made up) is dropped.
            if let Some(t) = throttle {
                t.offer(p.params.clone());
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
