//! Requests to a connected server: tool calls and resources, with
//! timeouts, progress and cancellation, and their errors.

use std::sync::PoisonError;

use gatehouse_core::tool::ProgressReporter;
use gatehouse_protocol::event::McpServerStatus;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ProgressNotificationParam,
    ReadResourceRequestParams, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions};
use rmcp::{RoleClient, ServiceError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::throttle::{PROGRESS_INTERVAL, Throttle};
use crate::transport::ProgressRoutes;

use super::{CallError, McpServer, ServerState, progress_payload};

impl McpServer {
    /// The live peer, waiting up to the startup timeout while the server
    /// (re)connects.
    async fn peer(&self) -> Result<Peer<RoleClient>, CallError> {
        let deadline = tokio::time::Instant::now() + self.config.startup_timeout;
        let mut rx = self.state.subscribe();
        loop {
            let live = self
                .peer
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            // A peer whose transport closed belongs to a crashed process the
            // supervisor has not noticed yet: wait for the restart.
            if let Some(peer) = live.filter(|p| !p.is_transport_closed()) {
                return Ok(peer);
            }
            let status = rx.borrow_and_update().status;
            let waiting = matches!(
                status,
                McpServerStatus::Connecting | McpServerStatus::Connected
            );
            if !waiting
                || tokio::time::timeout_at(deadline, rx.changed())
                    .await
                    .map_or(true, |r| r.is_err())
            {
                let s = self.state();
                return Err(CallError::Unavailable {
                    server: self.config.name.clone(),
                    state: format!("{:?}", s.status),
                    message: s.message.unwrap_or_else(|| "not connected".into()),
                });
            }
        }
    }

    fn map_error(&self, e: ServiceError) -> CallError {
        let server = self.config.name.clone();
        if e.is_authorization_required() {
            // The token expired or was revoked mid-session: say so in the
            // server's state (the UI offers to sign in again).
            let message = if crate::auth::oauth_url(&self.config).is_some() {
                crate::auth::needs_sign_in_message(&self.config.name, true, Some(&e.to_string()))
            } else {
                format!("the server refused the credentials during a call: {e}")
            };
            let tools = self.state().tools;
            self.state.send_replace(ServerState {
                status: McpServerStatus::NeedsAuth,
                message: Some(message.clone()),
                tools,
            });
            self.emit();
            return CallError::NeedsAuth { server, message };
        }
        match e {
            ServiceError::TransportClosed => CallError::Closed { server },
            ServiceError::Timeout { timeout } => CallError::Timeout { server, timeout },
            ServiceError::Cancelled { .. } => CallError::Cancelled,
            other => CallError::Protocol {
                server,
                message: other.to_string(),
            },
        }
    }

    /// Sends one request with the per-call timeout, routing its progress to
    /// `progress` and cancelling it (with `notifications/cancelled`) when
    /// `cancel` fires.
    async fn request(
        &self,
        request: ClientRequest,
        progress: Option<&ProgressReporter>,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, CallError> {
        let peer = self.peer().await?;
        let timeout = self.config.call_timeout;
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(timeout))
            .await
            .map_err(|e| self.map_error(e))?;
        // Removed (and its held value sent) when this call ends, however
        // it ends — also when its future is dropped.
        let _route = progress.map(|p| {
            let reporter = p.clone();
            let throttle = Throttle::new(
                PROGRESS_INTERVAL,
                move |param: ProgressNotificationParam| {
                    reporter.report(progress_payload(param));
                },
            );
            ProgressRoute::new(&self.progress, handle.progress_token.clone(), throttle)
        });
        let id = handle.id.clone();
        let result = tokio::select! {
            r = handle.await_response() => r.map_err(|e| self.map_error(e)),
            () = cancel.cancelled() => {
                let _ = peer
                    .send_notification(
                        rmcp::model::CancelledNotification::new(
                            rmcp::model::CancelledNotificationParam::new(
                                Some(id),
                                Some("cancelled by the user".into()),
                            ),
                        )
                        .into(),
                    )
                    .await;
                Err(CallError::Cancelled)
            }
        };
        // Every progress notification sent before the response has been
        // routed by now (`Routed` sees the stream in order); dropping the
        // route sends the newest held one.
        result
    }

    /// Calls tool `name` with `arguments`; the raw result as JSON
    /// (`content`, `structuredContent`, `isError`).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        progress: Option<&ProgressReporter>,
        cancel: &CancellationToken,
    ) -> Result<Value, CallError> {
        let mut params = CallToolRequestParams::new(name.to_owned());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        match self.request(request, progress, cancel).await? {
            ServerResult::CallToolResult(r) => {
                serde_json::to_value(r).map_err(|e| CallError::Protocol {
                    server: self.config.name.clone(),
                    message: format!("unreadable tools/call result: {e}"),
                })
            }
            other => Err(CallError::Protocol {
                server: self.config.name.clone(),
                message: format!("unexpected answer to tools/call: {}", variant_name(&other)),
            }),
        }
    }

    /// `resources/list` (all pages), as JSON objects.
    pub async fn list_resources(&self) -> Result<Vec<Value>, CallError> {
        let peer = self.peer().await?;
        let timeout = self.config.call_timeout;
        let resources = tokio::time::timeout(timeout, peer.list_all_resources())
            .await
            .map_err(|_| CallError::Timeout {
                server: self.config.name.clone(),
                timeout,
            })?
            .map_err(|e| self.map_error(e))?;
        Ok(resources
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect())
    }

    /// `resources/read` of `uri`, as JSON (`contents`).
    pub async fn read_resource(
        &self,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Value, CallError> {
        let peer = self.peer().await?;
        let timeout = self.config.call_timeout;
        let read = peer.read_resource(ReadResourceRequestParams::new(uri));
        let r = tokio::select! {
            r = tokio::time::timeout(timeout, read) => r,
            () = cancel.cancelled() => return Err(CallError::Cancelled),
        };
        let r = r
            .map_err(|_| CallError::Timeout {
                server: self.config.name.clone(),
                timeout,
            })?
            .map_err(|e| self.map_error(e))?;
        serde_json::to_value(r).map_err(|e| CallError::Protocol {
            server: self.config.name.clone(),
            message: format!("unreadable resources/read result: {e}"),
        })
    }

    /// Whether the server answered `initialize` with resource support.
    pub fn supports_resources(&self) -> bool {
        self.peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .and_then(Peer::peer_info)
            .is_some_and(|info| info.capabilities.resources.is_some())
    }
}

/// One call's entry in [`ProgressRoutes`]; dropping it removes the entry
/// and finishes the throttle (its held value goes out).
struct ProgressRoute<'a> {
    routes: &'a ProgressRoutes,
    token: rmcp::model::ProgressToken,
    throttle: Throttle<ProgressNotificationParam>,
}

impl<'a> ProgressRoute<'a> {
    fn new(
        routes: &'a ProgressRoutes,
        token: rmcp::model::ProgressToken,
        throttle: Throttle<ProgressNotificationParam>,
    ) -> Self {
        routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), throttle.clone());
        Self {
            routes,
            token,
            throttle,
        }
    }
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
        self.throttle.finish();
    }
}

fn variant_name(result: &ServerResult) -> String {
    serde_json::to_value(result)
        .ok()
        .and_then(|v| {
            v.as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>().join(","))
        })
        .unwrap_or_else(|| "?".into())
}
