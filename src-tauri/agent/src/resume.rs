//! Rebuilding a session's history from its stored events, so it can be
//! resumed.
//!
//! The history is exactly the `user_prompt`, `assistant_message`,
//! `tool_results_returned` and `context_added` (task notices, messages to a
//! background agent, Stop hook feedback) events in order. A session killed mid-turn may
//! end with tool_use blocks that were never answered; they get an error
//! result saying so, because the APIs refuse a tool_use without a result.

use gatehouse_protocol::event::{ContentBlock, Event, EventBody};

use crate::message::{Block, Message, Role, push_user};

/// The conversation history and the number of model requests made, from a
/// session's events (in order).
pub fn history_from_events(events: &[Event]) -> (Vec<Message>, u32) {
    let mut history: Vec<Message> = Vec::new();
    let mut turns = 0;
    for event in events {
        match &event.body {
            EventBody::UserPrompt { text } => {
                close_open_tool_uses(&mut history);
                push_user(&mut history, vec![Block::text(text.clone())]);
            }
            EventBody::ModelRequestStarted { turn, .. } => turns = turns.max(*turn),
            EventBody::AssistantMessage { content, .. } => {
                close_open_tool_uses(&mut history);
                let blocks: Vec<Block> = content
                    .iter()
                    .filter_map(|v| serde_json::from_value(v.clone()).ok())
                    .collect();
                if !blocks.is_empty() {
                    history.push(Message {
                        role: Role::Assistant,
                        content: blocks,
                    });
                }
            }
            EventBody::ContextAdded { text, .. } => {
                // Added after the prompt or the results, as the loop did:
                // into the same user message (or one of its own after a
                // reply, as Stop hook feedback is).
                push_user(&mut history, vec![Block::text(text.clone())]);
            }
            EventBody::ToolResultsReturned { content, .. } => {
                let blocks: Vec<Block> = content
                    .iter()
                    .filter_map(|v| serde_json::from_value(v.clone()).ok())
                    .collect();
                push_user(&mut history, blocks);
            }
            _ => {}
        }
    }
    close_open_tool_uses(&mut history);
    (history, turns)
}

/// Answers the last assistant message's tool_uses that have no result.
fn close_open_tool_uses(history: &mut Vec<Message>) {
    let Some(last) = history.last() else { return };
    if last.role != Role::Assistant {
        return;
    }
    let ids: Vec<String> = last.tool_use_ids().into_iter().map(str::to_owned).collect();
    if ids.is_empty() {
        return;
    }
    let blocks = ids
        .into_iter()
        .map(|id| Block::ToolResult {
            tool_use_id: id,
            content: vec![ContentBlock::Text {
                text: "Error: the session ended before this call finished; its result is unknown."
                    .into(),
            }],
            is_error: true,
        })
        .collect();
    push_user(history, blocks);
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(body: EventBody) -> Event {
        Event {
            session_id: "s".into(),
            ts_ms: 1,
            body,
        }
    }

    #[test]
    fn history_is_rebuilt_and_unanswered_tool_uses_are_closed() {
        let events = vec![
            ev(EventBody::UserPrompt { text: "hi".into() }),
            ev(EventBody::ModelRequestStarted {
                turn: 1,
                messages: 1,
            }),
            ev(EventBody::AssistantMessage {
                turn: 1,
                message_id: None,
                content: vec![
                    json!({"type":"text","text":"looking"}),
                    json!({"type":"tool_use","id":"t1","name":"Read","input":{}}),
                ],
                stop_reason: "tool_use".into(),
            }),
        ];
        let (h, turns) = history_from_events(&events);
        assert_eq!(turns, 1);
        assert_eq!(h.len(), 3);
        assert_eq!(h[2].role, Role::User);
        assert!(
            matches!(&h[2].content[0], Block::ToolResult { tool_use_id, is_error: true, .. } if tool_use_id == "t1")
        );
    }

    #[test]
    fn added_context_joins_the_user_message_it_was_sent_in() {
        let events = vec![
            ev(EventBody::UserPrompt { text: "go".into() }),
            ev(EventBody::AssistantMessage {
                turn: 1,
                message_id: None,
                content: vec![json!({"type":"tool_use","id":"t1","name":"Read","input":{}})],
                stop_reason: "tool_use".into(),
            }),
            ev(EventBody::ToolResultsReturned {
                turn: 1,
                content: vec![
                    json!({"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}],"is_error":false}),
                ],
            }),
            ev(EventBody::ContextAdded {
                source: gatehouse_protocol::event::ContextSource::TaskNotification,
                text: "<task-notification>done</task-notification>".into(),
            }),
            ev(EventBody::AssistantMessage {
                turn: 2,
                message_id: None,
                content: vec![json!({"type":"text","text":"noted"})],
                stop_reason: "end_turn".into(),
            }),
            ev(EventBody::ContextAdded {
                source: gatehouse_protocol::event::ContextSource::StopHookFeedback,
                text: "Stop hook feedback:\nrun the tests".into(),
            }),
        ];
        let (h, _) = history_from_events(&events);
        let roles: Vec<Role> = h.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Assistant,
                Role::User,
                Role::Assistant,
                Role::User
            ]
        );
        assert!(
            matches!(&h[2].content[1], Block::Text { text } if text.contains("task-notification"))
        );
        assert!(
            matches!(&h[4].content[0], Block::Text { text } if text.starts_with("Stop hook feedback"))
        );
    }
}
