//! The replay provider: plays a script, one turn per model reply, streamed
//! block by block like a real model. The offline demo, the test driver, and
//! the way to re-run a recorded session.
//!
//! Script format:
//!
//! ```json
//! {"turns": [
//!   {"content": [
//!     {"type": "text", "text": "Let me look."},
//!     {"type": "tool_use", "name": "Read", "input": {"file_path": "README.md"}}
//!   ]},
//!   {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}
//! ]}
//! ```
//!
//! * `tool_use.id` is optional: absent ids become `toolu_replay_<turn>_<index>`.
//! * `stop_reason` is optional: `tool_use` when the turn has a tool_use,
//!   else `end_turn`.
//! * `delay_ms` (optional, per turn) pauses before each block, like a model
//!   thinking; `usage` (optional) is reported as the provider's usage.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use gatehouse_protocol::event::SessionErrorKind;
use serde::Deserialize;
use serde_json::Value;

use crate::message::{Block, StopReason, Usage};
use crate::provider::{EventStream, ModelRequest, Provider, ProviderError, StreamEvent};

/// Stands for the project's directory in a script's tool inputs; see
/// [`Script::with_project_dir`].
pub const PROJECT_DIR_VAR: &str = "${PROJECT_DIR}";
/// A whole script.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// One entry per model reply.
    pub turns: Vec<ScriptTurn>,
}

/// One model reply.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptTurn {
    /// The content blocks.
    pub content: Vec<ScriptBlock>,
    /// The stop reason (default: by content).
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// A pause before each block, in milliseconds.
    #[serde(default)]
    pub delay_ms: u64,
    /// Usage to report.
    #[serde(default)]
    pub usage: Option<Value>,
}

/// One block of a scripted reply.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ScriptBlock {
    /// Text, streamed in small pieces.
    Text {
        /// The text.
        text: String,
    },
    /// Thinking, streamed in small pieces.
    Thinking {
        /// The thinking text.
        thinking: String,
    },
    /// A tool call.
    ToolUse {
        /// The id (generated when absent).
        #[serde(default)]
        id: Option<String>,
        /// The tool name.
        name: String,
        /// The input.
        #[serde(default = "empty_object")]
        input: Value,
    },
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl Script {
    /// The script that replays a recorded session: one turn per stored
    /// `assistant_message` (text, thinking and tool_use blocks with their
    /// ids and stop reasons; redacted thinking is left out).
    pub fn from_events(events: &[gatehouse_protocol::event::Event]) -> Self {
        use gatehouse_protocol::event::EventBody;
        let turns = events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::AssistantMessage {
                    content,
                    stop_reason,
                    ..
                } => Some(ScriptTurn {
                    content: content
                        .iter()
                        .filter_map(|b| {
                            serde_json::from_value::<crate::message::Block>(b.clone()).ok()
                        })
                        .filter_map(|b| match b {
                            Block::Text { text } => Some(ScriptBlock::Text { text }),
                            Block::Thinking { thinking, .. } => {
                                Some(ScriptBlock::Thinking { thinking })
                            }
                            Block::ToolUse { id, name, input } => Some(ScriptBlock::ToolUse {
                                id: Some(id),
                                name,
                                input,
                            }),
                            _ => None,
                        })
                        .collect(),
                    // Turns that ended in an error or an interrupt replay as
                    // what the model had said by then.
                    stop_reason: match stop_reason.as_str() {
                        "error" | "interrupted" => None,
                        other => Some(other.to_owned()),
                    },
                    delay_ms: 0,
                    usage: None,
                }),
                _ => None,
            })
            .collect();
        Self { turns }
    }

    /// The script as JSON (the format [`Script::parse`] reads).
    pub fn to_json(&self) -> serde_json::Value {
        let turns: Vec<Value> = self
            .turns
            .iter()
            .map(|t| {
                let content: Vec<Value> = t
                    .content
                    .iter()
                    .map(|b| match b {
                        ScriptBlock::Text { text } => serde_json::json!({"type": "text", "text": text}),
                        ScriptBlock::Thinking { thinking } => {
                            serde_json::json!({"type": "thinking", "thinking": thinking})
                        }
                        ScriptBlock::ToolUse { id, name, input } => {
                            let mut v = serde_json::json!({"type": "tool_use", "name": name, "input": input});
                            if let Some(id) = id {
                                v["id"] = Value::from(id.as_str());
                            }
                            v
                        }
                    })
                    .collect();
                let mut v = serde_json::json!({ "content": content });
                if let Some(r) = &t.stop_reason {
                    v["stop_reason"] = Value::from(r.as_str());
                }
                if t.delay_ms > 0 {
                    v["delay_ms"] = Value::from(t.delay_ms);
                }
                if let Some(u) = &t.usage {
                    v["usage"] = u.clone();
                }
                v
            })
            .collect();
        serde_json::json!({ "turns": turns })
    }

    /// Parses a script, saying where it is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("invalid replay script: {e}"))
    }

    /// Replaces `${PROJECT_DIR}` in every string of every tool_use input with
    /// `dir`, so one script (the demo, a recorded session) runs against any
    /// checkout: tools such as Read and Edit take absolute paths.
    pub fn with_project_dir(mut self, dir: &Path) -> Self {
        fn expand(value: &mut Value, dir: &str) {
            match value {
                Value::String(text) if text.contains(PROJECT_DIR_VAR) => {
                    *text = text.replace(PROJECT_DIR_VAR, dir);
                }
                Value::Array(items) => items.iter_mut().for_each(|v| expand(v, dir)),
                Value::Object(map) => map.values_mut().for_each(|v| expand(v, dir)),
                _ => {}
            }
        }
        let dir = dir.display().to_string();
        for turn in &mut self.turns {
            for block in &mut turn.content {
                if let ScriptBlock::ToolUse { input, .. } = block {
                    expand(input, &dir);
                }
            }
        }
        self
    }

    /// Reads and parses a script file.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the replay script {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Plays a [`Script`]; each request takes the next turn.
#[derive(Debug)]
pub struct ReplayProvider {
    script: Script,
    next: Mutex<usize>,
}

impl ReplayProvider {
    /// A provider playing `script` from its first turn.
    pub fn new(script: Script) -> Self {
        Self {
            script,
            next: Mutex::new(0),
        }
    }

    /// How many turns have been played.
    pub fn played(&self) -> usize {
        *self.next.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Splits text into pieces of about `n` characters (on char boundaries).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

#[async_trait]
impl Provider for ReplayProvider {
    fn name(&self) -> &str {
        "replay"
    }

    async fn stream(&self, _request: &ModelRequest) -> Result<EventStream, ProviderError> {
        let turn_index = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let i = *next;
            *next += 1;
            i
        };
        let Some(turn) = self.script.turns.get(turn_index).cloned() else {
            return Err(ProviderError::fatal(
                SessionErrorKind::Script,
                format!(
                    "the replay script has no reply left: it has {} turn(s) and the model was asked for reply {}",
                    self.script.turns.len(),
                    turn_index + 1
                ),
            ));
        };
        let mut events: Vec<(u64, StreamEvent)> = vec![(
            0,
            StreamEvent::MessageStart {
                id: Some(format!("msg_replay_{}", turn_index + 1)),
            },
        )];
        let mut has_tool_use = false;
        for (i, block) in turn.content.into_iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let delay = turn.delay_ms;
            let block = match block {
                ScriptBlock::Text { text } => {
                    for (k, piece) in pieces(&text, 16).into_iter().enumerate() {
                        let d = if k == 0 { delay } else { 0 };
                        events.push((d, StreamEvent::TextDelta { index, text: piece }));
                    }
                    events.push((
                        0,
                        StreamEvent::BlockComplete {
                            index,
                            block: Block::Text { text },
                        },
                    ));
                    continue;
                }
                ScriptBlock::Thinking { thinking } => {
                    for (k, piece) in pieces(&thinking, 16).into_iter().enumerate() {
                        let d = if k == 0 { delay } else { 0 };
                        events.push((
                            d,
                            StreamEvent::ThinkingDelta {
                                index,
                                thinking: piece,
                            },
                        ));
                    }
                    Block::Thinking {
                        thinking,
                        signature: String::new(),
                    }
                }
                ScriptBlock::ToolUse { id, name, input } => {
                    has_tool_use = true;
                    let id = id
                        .filter(|s| !s.is_empty())
                        .unwrap_or_else(|| format!("toolu_replay_{}_{}", turn_index + 1, i + 1));
                    if !input.is_object() {
                        events.push((
                            delay,
                            StreamEvent::InvalidToolUse {
                                index,
                                id,
                                name,
                                error: format!("the tool input must be a JSON object, got {input}"),
                            },
                        ));
                        continue;
                    }
                    Block::ToolUse { id, name, input }
                }
            };
            let d = if matches!(block, Block::ToolUse { .. }) {
                delay
            } else {
                0
            };
            events.push((d, StreamEvent::BlockComplete { index, block }));
        }
        if let Some(usage) = &turn.usage {
            let mut u = Usage::default();
            u.update_from(usage);
            events.push((0, StreamEvent::Usage(u)));
        }
        let stop = turn.stop_reason.map_or(
            if has_tool_use {
                StopReason::ToolUse
            } else {
                StopReason::EndTurn
            },
            |s| StopReason::parse(&s),
        );
        events.push((
            turn.delay_ms,
            StreamEvent::MessageStop { stop_reason: stop },
        ));
        Ok(futures::stream::iter(events)
            .then(|(delay, event)| async move {
                if delay > 0 {
                    tokio::time::sleep(Duration::from_millis(delay)).await;
                }
                Ok(event)
            })
            .boxed())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn request() -> ModelRequest {
        ModelRequest {
            model: "m".into(),
            system: String::new(),
            messages: Vec::new(),
            tools: gatehouse_core::deferral::ToolBlock::plain("[]".into()),
            max_tokens: 100,
        }
    }

    #[tokio::test]
    async fn plays_turns_in_order_generating_missing_ids() {
        let script = Script::parse(
            r#"{"turns":[{"content":[{"type":"text","text":"hello there, this is long text"},
              {"type":"tool_use","name":"Read","input":{"p":1}},
              {"type":"tool_use","id":"given","name":"Grep"}]},
              {"content":[{"type":"text","text":"done"}]}]}"#,
        )
        .unwrap();
        let p = ReplayProvider::new(script);
        let events: Vec<_> = p.stream(&request()).await.unwrap().collect().await;
        let events: Vec<StreamEvent> = events.into_iter().map(Result::unwrap).collect();
        let deltas = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::TextDelta { .. }))
            .count();
        assert!(deltas >= 2);
        let ids: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::BlockComplete {
                    block: Block::ToolUse { id, .. },
                    ..
                } => Some(id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["toolu_replay_1_2", "given"]);
        assert_eq!(
            events.last(),
            Some(&StreamEvent::MessageStop {
                stop_reason: StopReason::ToolUse
            })
        );
        let second: Vec<_> = p.stream(&request()).await.unwrap().collect().await;
        assert!(matches!(
            second.last(),
            Some(Ok(StreamEvent::MessageStop {
                stop_reason: StopReason::EndTurn
            }))
        ));
        let err = p.stream(&request()).await.err().unwrap();
        assert_eq!(err.kind, SessionErrorKind::Script);
        assert!(err.message.contains("2 turn(s)"), "{}", err.message);
    }

    #[test]
    fn bad_scripts_are_refused_with_the_reason() {
        let err = Script::parse(r#"{"turns":[{"content":[{"type":"image"}]}]}"#).unwrap_err();
        assert!(err.contains("invalid replay script"), "{err}");
        assert!(Script::parse(r#"{"turn":[]}"#).is_err());
    }
}
