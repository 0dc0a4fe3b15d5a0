//! The conversation as the loop keeps it: messages of Anthropic-shaped
//! content blocks. Providers translate to their wire format.

use gatehouse_protocol::event::{ContentBlock, ImageSource};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user (prompts and tool results).
    User,
    /// The model.
    Assistant,
}

/// One content block of a message (the Messages API's shapes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// Extended thinking, passed back unchanged (with its signature).
    Thinking {
        /// The thinking text.
        thinking: String,
        /// The provider's signature over it.
        #[serde(default)]
        signature: String,
    },
    /// Thinking the provider encrypted; passed back unchanged.
    RedactedThinking {
        /// The opaque data.
        data: String,
    },
    /// A tool call.
    ToolUse {
        /// The call's id.
        id: String,
        /// The tool name.
        name: String,
        /// The input (a JSON object).
        input: Value,
    },
    /// An image (tool attachments).
    Image {
        /// The image data.
        source: ImageSource,
    },
    /// A tool call's result.
    ToolResult {
        /// The id of the tool_use it answers.
        tool_use_id: String,
        /// The result content.
        content: Vec<ContentBlock>,
        /// Whether the result is an error.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// A block from tool_result-style content.
    pub fn from_content(block: &ContentBlock) -> Self {
        match block {
            ContentBlock::Text { text } => Self::text(text.clone()),
            ContentBlock::Image { source } => Self::Image {
                source: source.clone(),
            },
            // Only ToolSearch's tool_result carries references; elsewhere
            // the model is told in words.
            ContentBlock::ToolReference { tool_name } => {
                Self::text(format!("Tool {tool_name} is loaded."))
            }
        }
    }

    /// The block as JSON (for events).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks it.
    pub role: Role,
    /// Its content blocks.
    pub content: Vec<Block>,
}

impl Message {
    /// A user message of one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![Block::text(text)],
        }
    }

    /// The ids of the tool_use blocks, in order.
    pub fn tool_use_ids(&self) -> Vec<&str> {
        self.content
            .iter()
            .filter_map(|b| match b {
                Block::ToolUse { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The tools ToolSearch loaded in `messages`: the `tool_reference` blocks
/// of their tool results, in order (a resumed session loads them again).
pub fn referenced_tools(messages: &[Message]) -> Vec<&str> {
    messages
        .iter()
        .flat_map(|m| referenced_in(&m.content))
        .collect()
}

/// [`referenced_tools`] of one message's blocks.
pub fn referenced_in(blocks: &[Block]) -> Vec<&str> {
    blocks
        .iter()
        .flat_map(|b| match b {
            Block::ToolResult { content, .. } => content.as_slice(),
            _ => &[][..],
        })
        .filter_map(|c| match c {
            ContentBlock::ToolReference { tool_name } => Some(tool_name.as_str()),
            _ => None,
        })
        .collect()
}

/// Appends user content, merging into the last message when it is already a
/// user message (the APIs want roles to alternate).
pub fn push_user(history: &mut Vec<Message>, blocks: Vec<Block>) {
    if let Some(last) = history.last_mut()
        && last.role == Role::User
    {
        last.content.extend(blocks);
        return;
    }
    history.push(Message {
        role: Role::User,
        content: blocks,
    });
}

/// Token usage of one reply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Overwrites the fields present in an Anthropic `usage` object (later
    /// reports carry cumulative values).
    pub fn update_from(&mut self, usage: &Value) {
        let field = |name: &str| usage.get(name).and_then(Value::as_u64);
        if let Some(v) = field("input_tokens") {
            self.input_tokens = v;
        }
        if let Some(v) = field("output_tokens") {
            self.output_tokens = v;
        }
        if let Some(v) = field("cache_creation_input_tokens") {
            self.cache_creation_input_tokens = v;
        }
        if let Some(v) = field("cache_read_input_tokens") {
            self.cache_read_input_tokens = v;
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// It finished.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit `max_tokens`.
    MaxTokens,
    /// It produced a stop sequence.
    StopSequence,
    /// A long turn was paused; send the message back to continue.
    PauseTurn,
    /// It declined to answer.
    Refusal,
    /// Something Gatehouse does not know.
    Other(String),
}

impl StopReason {
    /// Parses the Anthropic spelling.
    pub fn parse(s: &str) -> Self {
        match s {
            "end_turn" => Self::EndTurn,
            "tool_use" => Self::ToolUse,
            "max_tokens" => Self::MaxTokens,
            "stop_sequence" => Self::StopSequence,
            "pause_turn" => Self::PauseTurn,
            "refusal" => Self::Refusal,
            other => Self::Other(other.to_owned()),
        }
    }

    /// The Anthropic spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Self::EndTurn => "end_turn",
            Self::ToolUse => "tool_use",
            Self::MaxTokens => "max_tokens",
            Self::StopSequence => "stop_sequence",
            Self::PauseTurn => "pause_turn",
            Self::Refusal => "refusal",
            Self::Other(s) => s,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn blocks_serialise_in_the_messages_api_shape() {
        let b = Block::ToolUse {
            id: "t1".into(),
            name: "Read".into(),
            input: serde_json::json!({"path": "a"}),
        };
        assert_eq!(
            b.to_json(),
            serde_json::json!({"type":"tool_use","id":"t1","name":"Read","input":{"path":"a"}})
        );
        let r = Block::ToolResult {
            tool_use_id: "t1".into(),
            content: vec![ContentBlock::Text { text: "x".into() }],
            is_error: false,
        };
        assert_eq!(
            r.to_json(),
            serde_json::json!({"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"}]})
        );
    }

    #[test]
    fn user_content_merges_into_a_trailing_user_message() {
        let mut h = vec![Message::user_text("a")];
        push_user(&mut h, vec![Block::text("b")]);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].content.len(), 2);
    }

    #[test]
    fn stop_reasons_round_trip() {
        for s in ["end_turn", "tool_use", "max_tokens", "pause_turn", "weird"] {
            assert_eq!(StopReason::parse(s).as_str(), s);
        }
    }
}
