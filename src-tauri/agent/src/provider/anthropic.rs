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
//! * Errors: 401/403 and 400-class statuses are fatal with the API's own
//!   message; 429, 5xx, 529 and `overloaded_error` events are retryable
//!   (the loop retries before any output, honouring `retry-after`).

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use gatehouse_protocol::event::SessionErrorKind;
use serde_json::Value;

use crate::keys::ApiKey;
use crate::message::{Block, StopReason, Usage};
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
}

impl AnthropicConfig {
    /// The default endpoint with `api_key`.
    pub fn new(api_key: ApiKey) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.into(),
            api_key,
            connect_timeout: Duration::from_secs(30),
        }
    }
}

/// The Anthropic provider.
#[derive(Debug, Clone)]
pub struct AnthropicProvider {
    client: reqwest::Client,
    config: AnthropicConfig,
}

impl AnthropicProvider {
    /// A provider for `config`.
    pub fn new(config: AnthropicConfig) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| format!("cannot create the HTTP client: {e}"))?;
        Ok(Self { client, config })
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
    let tools = tools_with_cache_breakpoint(&request.tools_json);
    let system = serde_json::json!([{
        "type": "text",
        "text": request.system,
        "cache_control": {"type": "ephemeral"},
    }]);
    let messages = encode_json("the conversation's messages", &request.messages)?;
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
        let body = request_body(request)?;
        let request = self
            .client
            .post(self.url())
            .header("x-api-key", self.config.api_key.expose())
            .header("anthropic-version", API_VERSION)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(body);
        let response = send("anthropic", request).await?;
        Ok(decode_stream(response.bytes_stream().boxed()))
    }
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
    use crate::message::Message;

    #[test]
    fn the_body_has_cache_breakpoints_after_tools_and_system() {
        let req = ModelRequest {
            model: "claude-x".into(),
            system: "sys".into(),
            messages: vec![Message::user_text("hi")],
            tools_json: r#"[{"name":"A","description":"d","input_schema":{}},{"name":"B","description":"d","input_schema":{}}]"#.into(),
            max_tokens: 10,
        };
        let body: Value = serde_json::from_str(&request_body(&req).unwrap()).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["tools"][1]["cache_control"]["type"], "ephemeral");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["messages"][0]["content"][0]["text"], "hi");
        let empty = ModelRequest {
            tools_json: "[]".into(),
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
