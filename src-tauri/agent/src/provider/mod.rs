//! Model providers: one trait, three implementations.
//!
//! A provider turns a [`ModelRequest`] into a stream of provider-neutral
//! [`StreamEvent`]s. It does the wire-format work (SSE, JSON reassembly) and
//! reports every content block the moment it is complete, so the loop can
//! hand a tool_use to the executor before the message has finished.
//! Retries, timeouts and cancellation live in the loop, once for all
//! providers: a provider only classifies its errors ([`ProviderError`]).

pub mod anthropic;
pub mod openai;
pub mod replay;
pub mod sse;

use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::BoxStream;
use gatehouse_core::deferral::ToolBlock;
use gatehouse_protocol::event::SessionErrorKind;

use crate::message::{Block, Message, StopReason, Usage};

/// What the loop asks the model.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    /// The model name.
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// The history, ending with a user message.
    pub messages: Vec<Message>,
    /// The tools (issue 21): the definitions sent from the first request
    /// on (byte-identical across the session's requests: prompt caching)
    /// and, with deferral, the deferred tools and those ToolSearch loaded.
    pub tools: ToolBlock,
    /// The reply's token limit.
    pub max_tokens: u32,
}

impl ModelRequest {
    /// The full definitions the model has, as one JSON array
    /// (`[{name, description, input_schema}, …]`): the first block, then
    /// the loaded deferred tools appended in load order.
    pub fn tools_json(&self) -> String {
        self.tools.appended_json()
    }
}

/// What a provider reports while the reply streams.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The reply began.
    MessageStart {
        /// The provider's message id.
        id: Option<String>,
    },
    /// A piece of text of block `index`.
    TextDelta {
        /// The block index.
        index: u32,
        /// The text.
        text: String,
    },
    /// A piece of thinking of block `index`.
    ThinkingDelta {
        /// The block index.
        index: u32,
        /// The thinking text.
        thinking: String,
    },
    /// Block `index` is complete (text, thinking or a tool_use with its
    /// input parsed).
    BlockComplete {
        /// The block index.
        index: u32,
        /// The block.
        block: Block,
    },
    /// A tool_use block is complete but its input is not valid JSON (or not
    /// an object). The loop answers it with an error result; nothing runs.
    InvalidToolUse {
        /// The block index.
        index: u32,
        /// The call's id.
        id: String,
        /// The tool name.
        name: String,
        /// Why the input was refused.
        error: String,
    },
    /// Usage so far (cumulative).
    Usage(Usage),
    /// The reply is complete.
    MessageStop {
        /// Why the model stopped.
        stop_reason: StopReason,
    },
}

/// A failed request or stream, classified for retries and reporting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderError {
    /// What kind of failure.
    pub kind: SessionErrorKind,
    /// What happened (never contains a secret).
    pub message: String,
    /// Whether sending the request again may help.
    pub retryable: bool,
    /// The server's `retry-after`, if it sent one.
    pub retry_after: Option<Duration>,
}

impl ProviderError {
    /// A non-retryable error.
    pub fn fatal(kind: SessionErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            retryable: false,
            retry_after: None,
        }
    }

    /// A retryable error.
    pub fn retryable(kind: SessionErrorKind, message: impl Into<String>) -> Self {
        Self {
            retryable: true,
            ..Self::fatal(kind, message)
        }
    }

    /// A malformed-stream error (not retryable once output was seen; the loop
    /// decides).
    pub fn malformed(message: impl Into<String>) -> Self {
        Self::retryable(SessionErrorKind::MalformedStream, message)
    }
}

/// The reply as a stream of events.
pub type EventStream = BoxStream<'static, Result<StreamEvent, ProviderError>>;

/// A model provider.
#[async_trait]
pub trait Provider: Send + Sync {
    /// The provider's name (`anthropic`, `openai`, `replay`).
    fn name(&self) -> &str;

    /// Sends the request and returns the reply's events once the response
    /// has started. Dropping the stream cancels the request.
    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderError>;
}

/// Sends an HTTP provider's request: a connection failure or a status
/// other than 200 becomes the matching [`ProviderError`] (with the body's
/// `error.message` and any `retry-after`); otherwise the streaming response.
pub(crate) async fn send(
    provider: &str,
    request: reqwest::RequestBuilder,
) -> Result<reqwest::Response, ProviderError> {
    let response = request
        .send()
        .await
        .map_err(|e| network_error(provider, &e))?;
    let status = response.status().as_u16();
    if status == 200 {
        return Ok(response);
    }
    let retry_after = parse_retry_after(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
    );
    let detail = read_error_detail(response).await;
    Err(status_error(provider, status, &detail, retry_after))
}

/// A connection-level failure (retryable).
pub(crate) fn network_error(provider: &str, e: &reqwest::Error) -> ProviderError {
    let kind = if e.is_timeout() {
        SessionErrorKind::Timeout
    } else {
        SessionErrorKind::Network
    };
    ProviderError::retryable(kind, format!("{provider}: the connection failed: {e}"))
}

/// The `error.message` of an error response (at most 64 KiB are read).
pub(crate) async fn read_error_detail(response: reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        body.extend_from_slice(&chunk);
        if body.len() > 64 * 1024 {
            body.truncate(64 * 1024);
            break;
        }
    }
    let text = String::from_utf8_lossy(&body);
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            let e = v.get("error")?;
            let message = e
                .get("message")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            let kind = e
                .get("type")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            Some(
                format!("{kind}: {message}")
                    .trim_matches([' ', ':'])
                    .to_owned(),
            )
        })
        .unwrap_or_else(|| text.chars().take(500).collect::<String>().trim().to_owned())
}

/// Classifies an HTTP error status (shared by the HTTP providers).
pub(crate) fn status_error(
    provider: &str,
    status: u16,
    detail: &str,
    retry_after: Option<Duration>,
) -> ProviderError {
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    };
    let (kind, retryable, what) = match status {
        401 | 403 => (
            SessionErrorKind::Authentication,
            false,
            "the API key was refused; check the key in settings, the environment or the keychain",
        ),
        408 => (SessionErrorKind::Timeout, true, "the request timed out"),
        429 => (SessionErrorKind::Overloaded, true, "rate limited"),
        529 => (SessionErrorKind::Overloaded, true, "overloaded"),
        500..=599 => (SessionErrorKind::Server, true, "server error"),
        _ => (
            SessionErrorKind::InvalidRequest,
            false,
            "the request was refused",
        ),
    };
    ProviderError {
        kind,
        message: format!("{provider} returned HTTP {status} ({what}){detail}"),
        retryable,
        retry_after,
    }
}

/// Parses a `retry-after` header: seconds (possibly fractional). HTTP dates
/// are ignored (the backoff applies).
pub(crate) fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    let secs: f64 = value?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(600.0)))
}
