//! The Anthropic Messages API, streamed over SSE.
//!
//! * Request: `POST {base}/v1/messages` with `stream: true`; prompt-caching
//!   breakpoints (`cache_control: ephemeral`) on the last tool of the tool
//!   list and on the system prompt, so the tools + system prefix is cached
//!   across the session's requests.
//! * Reply: `message_start`, `content_block_start/delta/stop`,
//!   `message_delta`, `message_stop`, `ping`, `error`; text, thinking
//!   (with signatures) and tool_use (`input_json_delta` reassembled and
//!   parsed when the block stops). Unknown event types are ignored, as the
//!   API's versioning policy asks; unknown block types are dropped.
//! * Deferred tools (issue 21), [`DeferredForm`]: by default the API's
//!   tool-search form — deferred tools in `tools` with `defer_loading:
//!   true`, ToolSearch's `tool_reference` blocks passed through for the API
//!   to expand. For endpoints without it (a 400 naming `defer_loading` or
//!   `tool_reference` switches the provider over for good, and the request
//!   is sent again) the loaded tools' definitions are appended after the
//!   first block and the references become text. Either way the bytes of
//!   the tools already sent never change.
//! * Errors: 401/403 and 400-class statuses are fatal with the API's own
//!   message; 429, 5xx, 529 and `overloaded_error` events are retryable
//!   (the loop retries before any output, honouring `retry-after`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use gatehouse_core::deferral::append_definitions;
use gatehouse_protocol::event::{ContentBlock, SessionErrorKind};
use serde_json::Value;

use crate::keys::ApiKey;
use crate::message::{Block, Message, StopReason, Usage};
use crate::provider::sse::{self, Emitted, SseDecoder, SseEvent};
use crate::provider::{EventStream, ModelRequest, Provider, ProviderError, StreamEvent, send};

/// The default API base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version header value.
pub const API_VERSION: &str = "2023-06-01";
/// The largest single SSE event accepted.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Where and how to reach the API.
#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    /// The base URL (no trailing `/v1`).
    pub base_url: String,
    /// The API key.
    pub api_key: ApiKey,
    /// How long connecting may take.
    pub connect_timeout: Duration,
    /// How deferred tools are sent (see [`DeferredForm`]).
    pub deferred_form: DeferredForm,
}

impl AnthropicConfig {
    /// The default endpoint with `api_key`.
    pub fn new(api_key: ApiKey) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.into(),
            api_key,
            connect_timeout: Duration::from_secs(30),
            deferred_form: DeferredForm::default(),
        }
    }
}

/// How the Messages API gets deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeferredForm {
    /// The API's tool search: every deferred tool with `defer_loading:
    /// true`, ToolSearch's `tool_reference` blocks expanded by the API.
    #[default]
    Native,
    /// For endpoints without it: the loaded tools' definitions appended to
    /// `tools`, references sent as text.
    Append,
}

/// The Anthropic provider.
#[derive(Debug, Clone)]
pub struct AnthropicProvider {
    client: reqwest::Client,
    config: AnthropicConfig,
    /// Set once the endpoint refused the native form.
    append: Arc<AtomicBool>,
}

impl AnthropicProvider {
    /// A provider for `config`.
    pub fn new(config: AnthropicConfig) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| format!("cannot create the HTTP client: {e}"))?;
        let append = Arc::new(AtomicBool::new(
            config.deferred_form == DeferredForm::Append,
        ));
        Ok(Self {
            client,
            config,
            append,
        })
    }

    /// The form deferred tools are sent in now.
    pub fn deferred_form(&self) -> DeferredForm {
        if self.append.load(Ordering::Relaxed) {
            DeferredForm::Append
        } else {
            DeferredForm::Native
        }
    }

    async fn send_body(&self, body: String) -> Result<reqwest::Response, ProviderError> {
        let request = self
            .client
            .post(self.url())
            .header("x-api-key", self.config.api_key.expose())
            .header("anthropic-version", API_VERSION)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(body);
        send("anthropic", request).await
    }

    fn url(&self) -> String {
        format!("{}/v1/messages", self.config.base_url.trim_end_matches('/'))
    }
}

/// The request body. Built as text so that the tool list is sent as the
/// pool's exact bytes on every request (prompt caching keys on bytes).
/// Fails, saying what, when the conversation cannot be encoded: a stand-in
/// (such as no messages) would send the model another conversation.
pub fn request_body(request: &ModelRequest) -> Result<String, ProviderError> {
    request_body_in(request, DeferredForm::Native)
}

/// [`request_body`] with deferred tools in `form`.
pub fn request_body_in(
    request: &ModelRequest,
    form: DeferredForm,
) -> Result<String, ProviderError> {
    let block = &request.tools;
    // The breakpoint stays on the last tool of the first block: tools
    // appended later never change the bytes before them.
    let base = tools_with_cache_breakpoint(&block.base_json);
    let tools = if block.tool_search {
        let head = base.as_deref().unwrap_or("[]");
        let all = match form {
            DeferredForm::Native => {
                let marked: Vec<String> = block
                    .deferred
                    .iter()
                    .map(|d| with_defer_loading(&d.json))
                    .collect();
                append_definitions(head, marked.iter().map(String::as_str))
            }
            DeferredForm::Append => append_definitions(head, block.loaded.iter().map(|d| &*d.json)),
        };
        (all != "[]").then_some(all)
    } else {
        base
    };
    let system = serde_json::json!([{
        "type": "text",
        "text": request.system,
        "cache_control": {"type": "ephemeral"},
    }]);
    let messages = match form {
        DeferredForm::Native => encode_json("the conversation's messages", &request.messages)?,
        DeferredForm::Append => encode_json(
            "the conversation's messages",
            &references_as_text(&request.messages),
        )?,
    };
    let mut body = format!(
        r#"{{"model":{},"max_tokens":{},"stream":true,"system":{}"#,
        Value::from(request.model.as_str()),
        request.max_tokens,
        system
    );
    if let Some(tools) = tools {
        body.push_str(r#","tools":"#);
        body.push_str(&tools);
    }
    body.push_str(r#","messages":"#);
    body.push_str(&messages);
    body.push('}');
    Ok(body)
}

/// A definition (`{…}`) with `"defer_loading":true` added at its end.
fn with_defer_loading(definition: &str) -> String {
    let head = definition
        .trim_end()
        .strip_suffix('}')
        .unwrap_or(definition);
    format!(r#"{head},"defer_loading":true}}"#)
}

/// The history with `tool_reference` blocks as text, for endpoints that do
/// not expand them (the definitions are in `tools` instead).
pub fn references_as_text(messages: &[Message]) -> Cow<'_, [Message]> {
    let has_reference = |m: &Message| {
        m.content.iter().any(|b| {
            matches!(b, Block::ToolResult { content, .. }
                if content.iter().any(|c| matches!(c, ContentBlock::ToolReference { .. })))
        })
    };
    if !messages.iter().any(has_reference) {
        return Cow::Borrowed(messages);
    }
    let mut owned = messages.to_vec();
    for m in &mut owned {
        for b in &mut m.content {
            if let Block::ToolResult { content, .. } = b {
                for c in content.iter_mut() {
                    if let ContentBlock::ToolReference { tool_name } = c {
                        *c = ContentBlock::Text {
                            text: reference_text(tool_name),
                        };
                    }
                }
            }
        }
    }
    Cow::Owned(owned)
}

/// What a model that does not get `tool_reference` blocks reads instead.
pub fn reference_text(tool_name: &str) -> String {
    format!("Loaded {tool_name}: its definition is in your tool list from now on.")
}

/// `value` as JSON text, or an error naming `what` could not be encoded.
fn encode_json(what: &str, value: &impl serde::Serialize) -> Result<String, ProviderError> {
    serde_json::to_string(value).map_err(|e| {
        ProviderError::fatal(
            SessionErrorKind::InvalidRequest,
            format!("anthropic: {what} could not be encoded as JSON, so nothing was sent: {e}"),
        )
    })
}

/// The tool list with `cache_control` on its last tool; `None` when empty.
fn tools_with_cache_breakpoint(tools_json: &str) -> Option<String> {
    let trimmed = tools_json.trim_end();
    let head = trimmed.strip_suffix("}]")?;
    Some(format!(
        r#"{head},"cache_control":{{"type":"ephemeral"}}}}]"#
    ))
}

#[async_trait]
impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        "anthropic"
    }

    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderError> {
        let form = self.deferred_form();
        let body = request_body_in(request, form)?;
        let response = match self.send_body(body).await {
            Err(e)
                if form == DeferredForm::Native
                    && request.tools.tool_search
                    && refuses_tool_search(&e) =>
            {
                // This endpoint has no tool search: switch for good.
                self.append.store(true, Ordering::Relaxed);
                tracing::info!(
                    "anthropic: the endpoint refused deferred tools ({}); appending loaded tools instead",
                    e.message
                );
                self.send_body(request_body_in(request, DeferredForm::Append)?)
                    .await?
            }
            other => other?,
        };
        Ok(decode_stream(response.bytes_stream().boxed()))
    }
}

/// Whether an error says the endpoint does not know the tool-search form.
fn refuses_tool_search(e: &ProviderError) -> bool {
    e.kind == SessionErrorKind::InvalidRequest
        && (e.message.contains("defer_loading") || e.message.contains("tool_reference"))
}

/// A block being streamed.
enum Partial {
    Text(String),
    Thinking {
        thinking: String,
        signature: String,
    },
    Redacted(String),
    ToolUse {
        id: String,
        name: String,
        json: String,
        initial: Value,
    },
    Unknown,
}

/// The SSE → [`StreamEvent`] state machine.
#[derive(Default)]
struct Decoder {
    blocks: HashMap<u32, Partial>,
    usage: Usage,
    stop_reason: Option<String>,
}

fn decode_stream(body: BoxStream<'static, reqwest::Result<Bytes>>) -> EventStream {
    sse::drive(body, Decoder::default(), MAX_EVENT_BYTES)
}

fn field_u32(v: &Value, key: &str) -> Result<u32, ProviderError> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| ProviderError::malformed(format!("anthropic: an event lacks `{key}`")))
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl SseDecoder for Decoder {
    fn provider(&self) -> &'static str {
        "anthropic"
    }

    fn decode(&mut self, event: &SseEvent, out: &mut Emitted) -> Result<(), ProviderError> {
        let known = matches!(
            event.event.as_str(),
            "message_start"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
                | "message_delta"
                | "message_stop"
                | "error"
        );
        if !known {
            // `ping` and event types added after this client was written.
            return Ok(());
        }
        let v: Value = serde_json::from_str(&event.data).map_err(|e| {
            ProviderError::malformed(format!(
                "anthropic: the `{}` event is not valid JSON ({e})",
                event.event
            ))
        })?;
        match event.event.as_str() {
            "message_start" => {
                let message = v.get("message").cloned().unwrap_or(Value::Null);
                if let Some(u) = message.get("usage") {
                    self.usage.update_from(u);
                }
                let id = message.get("id").and_then(Value::as_str).map(str::to_owned);
                out.emit(StreamEvent::MessageStart { id });
            }
            "content_block_start" => {
                let index = field_u32(&v, "index")?;
                let block = v.get("content_block").cloned().unwrap_or(Value::Null);
                let partial = match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = text_of(&block, "text");
                        if !text.is_empty() {
                            out.emit(StreamEvent::TextDelta {
                                index,
                                text: text.clone(),
                            });
                        }
                        Partial::Text(text)
                    }
                    Some("thinking") => Partial::Thinking {
                        thinking: text_of(&block, "thinking"),
                        signature: text_of(&block, "signature"),
                    },
                    Some("redacted_thinking") => Partial::Redacted(text_of(&block, "data")),
                    Some("tool_use") => Partial::ToolUse {
                        id: text_of(&block, "id"),
                        name: text_of(&block, "name"),
                        json: String::new(),
                        initial: block.get("input").cloned().unwrap_or(Value::Null),
                    },
                    _ => Partial::Unknown,
                };
                self.blocks.insert(index, partial);
            }
            "content_block_delta" => {
                let index = field_u32(&v, "index")?;
                let delta = v.get("delta").cloned().unwrap_or(Value::Null);
                let kind = delta
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let Some(partial) = self.blocks.get_mut(&index) else {
                    return Err(ProviderError::malformed(format!(
                        "anthropic: a delta for block {index}, which was never started"
                    )));
                };
                let mut delta_event = None;
                match (partial, kind) {
                    (Partial::Text(text), "text_delta") => {
                        let piece = text_of(&delta, "text");
                        text.push_str(&piece);
                        delta_event = Some(StreamEvent::TextDelta { index, text: piece });
                    }
                    (Partial::Thinking { thinking, .. }, "thinking_delta") => {
                        let piece = text_of(&delta, "thinking");
                        thinking.push_str(&piece);
                        delta_event = Some(StreamEvent::ThinkingDelta {
                            index,
                            thinking: piece,
                        });
                    }
                    (Partial::Thinking { signature, .. }, "signature_delta") => {
                        signature.push_str(&text_of(&delta, "signature"));
                    }
                    (Partial::ToolUse { json, .. }, "input_json_delta") => {
                        json.push_str(&text_of(&delta, "partial_json"));
                    }
                    (Partial::Unknown, _) => {}
                    (_, kind) => {
                        return Err(ProviderError::malformed(format!(
                            "anthropic: a `{kind}` delta does not fit block {index}"
                        )));
                    }
                }
                if let Some(e) = delta_event {
                    out.emit(e);
                }
            }
            "content_block_stop" => {
                let index = field_u32(&v, "index")?;
                let Some(partial) = self.blocks.remove(&index) else {
                    return Err(ProviderError::malformed(format!(
                        "anthropic: block {index} stopped but was never started"
                    )));
                };
                let event = match partial {
                    Partial::Text(text) => Some(StreamEvent::BlockComplete {
                        index,
                        block: Block::Text { text },
                    }),
                    Partial::Thinking {
                        thinking,
                        signature,
                    } => Some(StreamEvent::BlockComplete {
                        index,
                        block: Block::Thinking {
                            thinking,
                            signature,
                        },
                    }),
                    Partial::Redacted(data) => Some(StreamEvent::BlockComplete {
                        index,
                        block: Block::RedactedThinking { data },
                    }),
                    Partial::ToolUse {
                        id,
                        name,
                        json,
                        initial,
                    } => Some(tool_use_complete(index, id, name, &json, initial)),
                    Partial::Unknown => None,
                };
                if let Some(e) = event {
                    out.emit(e);
                }
            }
            "message_delta" => {
                if let Some(reason) = v
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(u) = v.get("usage") {
                    self.usage.update_from(u);
                }
            }
            "message_stop" => {
                if !self.blocks.is_empty() {
                    return Err(ProviderError::malformed(
                        "anthropic: the message stopped with content blocks still open",
                    ));
                }
                let Some(reason) = self.stop_reason.take() else {
                    return Err(ProviderError::malformed(
                        "anthropic: the message stopped without a stop_reason",
                    ));
                };
                out.emit(StreamEvent::Usage(self.usage));
                out.emit(StreamEvent::MessageStop {
                    stop_reason: StopReason::parse(&reason),
                });
                out.finish();
            }
            "error" => {
                let e = v.get("error").cloned().unwrap_or(Value::Null);
                let kind = text_of(&e, "type");
                let message = format!("anthropic: {kind}: {}", text_of(&e, "message"));
                return Err(match kind.as_str() {
                    "overloaded_error" | "rate_limit_error" => {
                        ProviderError::retryable(SessionErrorKind::Overloaded, message)
                    }
                    "api_error" => ProviderError::retryable(SessionErrorKind::Server, message),
                    "authentication_error" | "permission_error" => {
                        ProviderError::fatal(SessionErrorKind::Authentication, message)
                    }
                    _ => ProviderError::fatal(SessionErrorKind::InvalidRequest, message),
                });
            }
            _ => {}
        }
        Ok(())
    }
}

/// A finished tool_use: its reassembled input parsed, or refused.
pub(crate) fn tool_use_complete(
    index: u32,
    id: String,
    name: String,
    json: &str,
    initial: Value,
) -> StreamEvent {
    let parsed = if json.trim().is_empty() {
        Ok(match initial {
            Value::Object(_) => initial,
            _ => Value::Object(serde_json::Map::new()),
        })
    } else {
        serde_json::from_str::<Value>(json)
    };
    match parsed {
        Ok(input @ Value::Object(_)) => StreamEvent::BlockComplete {
            index,
            block: Block::ToolUse { id, name, input },
        },
        Ok(other) => StreamEvent::InvalidToolUse {
            index,
            id,
            name,
            error: format!("expected a JSON object, got {}", kind_of(&other)),
        },
        Err(e) => StreamEvent::InvalidToolUse {
            index,
            id,
            name,
            error: e.to_string(),
        },
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_body_has_cache_breakpoints_after_tools_and_system() {
        let req = ModelRequest {
            model: "claude-x".into(),
            system: "sys".into(),
            messages: vec![Message::user_text("hi")],
            tools: gatehouse_core::deferral::ToolBlock::plain(r#"[{"name":"A","description":"d","input_schema":{}},{"name":"B","description":"d","input_schema":{}}]"#.into()),
            max_tokens: 10,
        };
        let body: Value = serde_json::from_str(&request_body(&req).unwrap()).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["tools"][1]["cache_control"]["type"], "ephemeral");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["messages"][0]["content"][0]["text"], "hi");
        let empty = ModelRequest {
            tools: gatehouse_core::deferral::ToolBlock::plain("[]".into()),
            ..req
        };
        let body: Value = serde_json::from_str(&request_body(&empty).unwrap()).unwrap();
        assert!(body.get("tools").is_none());
    }

    #[test]
    fn a_part_that_cannot_be_encoded_is_an_error_not_a_stand_in() {
        // Today's message types always encode; a map with non-string keys
        // is something serde_json refuses, standing in for a future one.
        let unencodable = std::collections::BTreeMap::from([((1_u8, 2_u8), 3_u8)]);
        let e = encode_json("the conversation's messages", &unencodable).unwrap_err();
        assert_eq!(e.kind, SessionErrorKind::InvalidRequest);
        assert!(!e.retryable);
        assert!(
            e.message
                .contains("the conversation's messages could not be encoded")
                && e.message.contains("nothing was sent"),
            "{}",
            e.message
        );
    }
}
