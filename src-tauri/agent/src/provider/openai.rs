//! OpenAI-compatible chat completions, streamed (Ollama, llama.cpp server,
//! vLLM, gateways).
//!
//! * Request: `POST {base}/chat/completions` with `stream: true` and
//!   `stream_options.include_usage`; the history is translated from
//!   Anthropic blocks (tool_use → `tool_calls`, tool_result → `tool`
//!   messages, thinking dropped); the tool list becomes `function` tools.
//!   Deferred tools (issue 21) ToolSearch loaded are appended to `tools`
//!   from the next request on, after the tools already sent (whose bytes
//!   never change); their `tool_reference` blocks reach the model as text.
//! * Reply: `data:` chunks until `[DONE]`. Text is block 0; tool call `k`
//!   is block `k + 1` and is complete (handed to the executor) as soon as
//!   call `k + 1` starts or a `finish_reason` arrives.
//! * `finish_reason`: `stop` → end_turn, `tool_calls` → tool_use, `length` →
//!   max_tokens, `content_filter` → refusal; others are reported unknown.

use std::borrow::Cow;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use gatehouse_core::deferral::append_definitions;
use gatehouse_protocol::event::{ContentBlock, SessionErrorKind};
use serde_json::{Value, json};

use crate::keys::ApiKey;
use crate::message::{Block, Message, Role, StopReason, Usage};
use crate::provider::anthropic::{MAX_EVENT_BYTES, reference_text, tool_use_complete};
use crate::provider::sse::{self, Emitted, SseDecoder, SseEvent};
use crate::provider::{EventStream, ModelRequest, Provider, ProviderError, StreamEvent, send};

/// Where and how to reach the endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The base URL including any `/v1` (e.g. `http://localhost:11434/v1`).
    pub base_url: String,
    /// The key; local servers usually need none.
    pub api_key: Option<ApiKey>,
    /// How long connecting may take.
    pub connect_timeout: Duration,
}

impl OpenAiConfig {
    /// A config for `base_url` with an optional key.
    pub fn new(base_url: impl Into<String>, api_key: Option<ApiKey>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            connect_timeout: Duration::from_secs(30),
        }
    }
}

/// The OpenAI-compatible provider.
#[derive(Debug, Clone)]
pub struct OpenAiProvider {
    client: reqwest::Client,
    config: OpenAiConfig,
}

impl OpenAiProvider {
    /// A provider for `config`.
    pub fn new(config: OpenAiConfig) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| format!("cannot create the HTTP client: {e}"))?;
        Ok(Self { client, config })
    }
}

fn text_of_content(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text { text } => Some(Cow::Borrowed(text.as_str())),
            ContentBlock::ToolReference { tool_name } => {
                Some(Cow::Owned(reference_text(tool_name)))
            }
            ContentBlock::Image { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The history as chat-completions messages.
pub fn to_chat_messages(system: &str, messages: &[Message]) -> Vec<Value> {
    let mut out = vec![json!({"role": "system", "content": system})];
    for m in messages {
        match m.role {
            Role::User => {
                let mut texts = Vec::new();
                for b in &m.content {
                    match b {
                        Block::ToolResult {
                            tool_use_id,
                            content,
                            is_error,
                        } => {
                            let mut text = text_of_content(content);
                            if *is_error && !text.starts_with("Error") {
                                text = format!("Error: {text}");
                            }
                            out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": text}));
                        }
                        Block::Text { text } => texts.push(text.clone()),
                        _ => {}
                    }
                }
                if !texts.is_empty() {
                    out.push(json!({"role": "user", "content": texts.join("\n\n")}));
                }
            }
            Role::Assistant => {
                let text: Vec<&str> = m
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        Block::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                let calls: Vec<Value> = m
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        Block::ToolUse { id, name, input } => Some(json!({
                            "id": id, "type": "function",
                            "function": {"name": name, "arguments": input.to_string()}
                        })),
                        _ => None,
                    })
                    .collect();
                let mut msg = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::from(text.join("")) }});
                if !calls.is_empty() {
                    msg["tool_calls"] = Value::Array(calls);
                }
                out.push(msg);
            }
        }
    }
    out
}

/// A definition (`{"name":…,"description":…,"input_schema":…}`, as the
/// pool serialises it) as a chat-completions function tool, by splicing
/// text: the schema is not serialised again, so its bytes are the pool's.
fn function_tool(definition: &str) -> String {
    // Keys and strings before `input_schema` cannot hold a bare `"`, so
    // the first `,"input_schema":` is the key.
    let spliced = definition.replacen(r#","input_schema":"#, r#","parameters":"#, 1);
    format!(r#"{{"type":"function","function":{spliced}}}"#)
}

/// The `tools` array: the first block, then the loaded deferred tools.
pub fn tools_text(request: &ModelRequest) -> Option<String> {
    let tools: Vec<String> = request.tools.definitions().map(function_tool).collect();
    if tools.is_empty() {
        return None;
    }
    Some(append_definitions("[]", tools.iter().map(String::as_str)))
}

/// The request body as text.
pub fn request_body_text(request: &ModelRequest) -> String {
    let body = request_body(request).to_string();
    match (tools_text(request), body.strip_suffix('}')) {
        (Some(tools), Some(head)) => format!(r#"{head},"tools":{tools}}}"#),
        _ => body,
    }
}

/// The request body without `tools` (see [`request_body_text`]).
pub fn request_body(request: &ModelRequest) -> Value {
    json!({
        "model": request.model,
        "stream": true,
        "stream_options": {"include_usage": true},
        "max_tokens": request.max_tokens,
        "messages": to_chat_messages(&request.system, &request.messages),
    })
}

#[async_trait]
impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        "openai"
    }

    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderError> {
        let url = format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        );
        let mut req = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(request_body_text(request));
        if let Some(key) = &self.config.api_key {
            req = req.header("authorization", format!("Bearer {}", key.expose()));
        }
        let response = send("openai", req).await?;
        Ok(decode_stream(response.bytes_stream().boxed()))
    }
}

struct Call {
    id: String,
    name: String,
    args: String,
}

#[derive(Default)]
struct Decoder {
    started: bool,
    text: Option<String>,
    calls: Vec<Call>,
    /// Calls before this index have been completed.
    completed_calls: usize,
    usage: Usage,
    finish: Option<String>,
}

fn decode_stream(body: BoxStream<'static, reqwest::Result<Bytes>>) -> EventStream {
    sse::drive(body, Decoder::default(), MAX_EVENT_BYTES)
}

impl Decoder {
    fn complete_text(&mut self, out: &mut Emitted) {
        if let Some(text) = self.text.take() {
            out.emit(StreamEvent::BlockComplete {
                index: 0,
                block: Block::Text { text },
            });
        }
    }

    fn complete_calls_before(&mut self, end: usize, out: &mut Emitted) {
        while self.completed_calls < end.min(self.calls.len()) {
            let k = self.completed_calls;
            let call = &self.calls[k];
            let id = if call.id.is_empty() {
                format!("call_{}", k + 1)
            } else {
                call.id.clone()
            };
            out.emit(tool_use_complete(
                u32::try_from(k + 1).unwrap_or(u32::MAX),
                id,
                call.name.clone(),
                &call.args,
                Value::Null,
            ));
            self.completed_calls += 1;
        }
    }

    fn stop(&mut self, out: &mut Emitted) {
        self.complete_text(out);
        self.complete_calls_before(usize::MAX, out);
        let reason = match self.finish.take().as_deref() {
            Some("stop") | None => StopReason::EndTurn,
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::Refusal,
            Some(other) => StopReason::Other(other.to_owned()),
        };
        out.emit(StreamEvent::Usage(self.usage));
        out.emit(StreamEvent::MessageStop {
            stop_reason: reason,
        });
        out.finish();
    }
}

impl SseDecoder for Decoder {
    fn provider(&self) -> &'static str {
        "openai"
    }

    fn end_of_body(&mut self, out: &mut Emitted) {
        // Some servers end without `[DONE]` after the finish.
        if self.finish.is_some() {
            self.stop(out);
        }
    }

    fn decode(&mut self, event: &SseEvent, out: &mut Emitted) -> Result<(), ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.stop(out);
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            ProviderError::malformed(format!("openai: a stream chunk is not valid JSON ({e})"))
        })?;
        if let Some(err) = v.get("error") {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| err.to_string(), str::to_owned);
            return Err(ProviderError::retryable(
                SessionErrorKind::Server,
                format!("openai: the server reported an error: {message}"),
            ));
        }
        if !self.started {
            self.started = true;
            let id = v.get("id").and_then(Value::as_str).map(str::to_owned);
            out.emit(StreamEvent::MessageStart { id });
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            let field = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.usage.input_tokens = field("prompt_tokens");
            self.usage.output_tokens = field("completion_tokens");
        }
        let Some(choice) = v.get("choices").and_then(|c| c.get(0)) else {
            return Ok(());
        };
        let delta = choice.get("delta").cloned().unwrap_or(Value::Null);
        // Text after tool calls has no block of its own; it is dropped.
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
            && self.calls.is_empty()
        {
            self.text.get_or_insert_with(String::new).push_str(text);
            out.emit(StreamEvent::TextDelta {
                index: 0,
                text: text.to_owned(),
            });
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for c in calls {
                let k = c
                    .get("index")
                    .and_then(Value::as_u64)
                    .and_then(|k| usize::try_from(k).ok())
                    .unwrap_or(self.calls.len().saturating_sub(1));
                if k > self.calls.len() + 64 {
                    return Err(ProviderError::malformed(format!(
                        "openai: tool call index {k} is out of order"
                    )));
                }
                if k < self.completed_calls {
                    return Err(ProviderError::malformed(format!(
                        "openai: tool call {k} continued after a later call started"
                    )));
                }
                self.complete_text(out);
                while self.calls.len() <= k {
                    self.calls.push(Call {
                        id: String::new(),
                        name: String::new(),
                        args: String::new(),
                    });
                }
                // A new call starting completes every earlier one.
                self.complete_calls_before(k, out);
                let call = &mut self.calls[k];
                if let Some(id) = c.get("id").and_then(Value::as_str) {
                    call.id.push_str(id);
                }
                if let Some(f) = c.get("function") {
                    if let Some(n) = f.get("name").and_then(Value::as_str) {
                        call.name.push_str(n);
                    }
                    if let Some(a) = f.get("arguments").and_then(Value::as_str) {
                        call.args.push_str(a);
                    }
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(reason.to_owned());
            // Hand the finished calls over now; usage may still follow.
            self.complete_text(out);
            self.complete_calls_before(usize::MAX, out);
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn history_translates_to_chat_messages() {
        let messages = vec![
            Message::user_text("hi"),
            Message {
                role: Role::Assistant,
                content: vec![
                    Block::text("looking"),
                    Block::ToolUse {
                        id: "c1".into(),
                        name: "Read".into(),
                        input: json!({"p": 1}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![Block::ToolResult {
                    tool_use_id: "c1".into(),
                    content: vec![ContentBlock::Text {
                        text: "data".into(),
                    }],
                    is_error: false,
                }],
            },
        ];
        let out = to_chat_messages("sys", &messages);
        assert_eq!(out[0], json!({"role":"system","content":"sys"}));
        assert_eq!(out[1], json!({"role":"user","content":"hi"}));
        assert_eq!(
            out[2]["tool_calls"][0]["function"]["arguments"],
            "{\"p\":1}"
        );
        assert_eq!(
            out[3],
            json!({"role":"tool","tool_call_id":"c1","content":"data"})
        );
    }
}
