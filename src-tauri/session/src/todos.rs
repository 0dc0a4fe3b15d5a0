//! The session's current todo list, rebuilt from its stored events (on
//! resume, in the session browser's reader): each TodoWrite call replaces
//! the whole list with its `todos_updated` progress, so the current list
//! is the last one whose call did not end in failure.

use std::collections::HashMap;

use gatehouse_protocol::event::{Event, EventBody, ToolCallStatus};
use gatehouse_protocol::interaction::TodoItem;
use gatehouse_protocol::progress::ToolProgressData;

/// The todo list after `events` (in stored order); empty when no TodoWrite
/// ran. A list counts unless its call's `tool_completed` says it did not
/// succeed (a list whose call has not completed yet, live or cut off by a
/// crash, counts: it was shown).
pub fn current_todos<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<TodoItem> {
    // Lists by call, in the order their calls last reported one.
    let mut lists: Vec<(String, Vec<TodoItem>)> = Vec::new();
    let mut failed: HashMap<String, bool> = HashMap::new();
    for event in events {
        match &event.body {
            EventBody::ToolProgress {
                tool_use_id,
                data: ToolProgressData::TodosUpdated { todos },
            } => {
                lists.retain(|(id, _)| id != tool_use_id);
                lists.push((tool_use_id.clone(), todos.clone()));
            }
            EventBody::ToolCompleted {
                tool_use_id,
                status,
                ..
            } => {
                failed.insert(tool_use_id.clone(), *status != ToolCallStatus::Ok);
            }
            _ => {}
        }
    }
    lists
        .into_iter()
        .rev()
        .find(|(id, _)| !failed.get(id).copied().unwrap_or(false))
        .map(|(_, todos)| todos)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use gatehouse_protocol::interaction::TodoStatus;

    use super::*;

    fn event(body: EventBody) -> Event {
        Event {
            session_id: "s".into(),
            ts_ms: 1,
            body,
        }
    }

    fn todos(id: &str, items: &[(&str, TodoStatus)]) -> Event {
        event(EventBody::ToolProgress {
            tool_use_id: id.into(),
            data: ToolProgressData::TodosUpdated {
                todos: items
                    .iter()
                    .map(|(c, s)| TodoItem {
                        content: (*c).into(),
                        active_form: format!("Doing {c}"),
                        status: *s,
                    })
                    .collect(),
            },
        })
    }

    fn completed(id: &str, status: ToolCallStatus) -> Event {
        event(EventBody::ToolCompleted {
            tool_use_id: id.into(),
            status,
            is_error: status != ToolCallStatus::Ok,
            content: Vec::new(),
            duration_ms: 0,
            persisted_path: None,
        })
    }

    #[test]
    fn the_last_successful_list_is_current() {
        use TodoStatus::*;
        let events = vec![
            todos("a", &[("one", InProgress), ("two", Pending)]),
            completed("a", ToolCallStatus::Ok),
            todos("b", &[("one", Completed), ("two", InProgress)]),
            completed("b", ToolCallStatus::Ok),
            todos("c", &[("one", Completed), ("two", Completed)]),
            completed("c", ToolCallStatus::Error),
        ];
        let current = current_todos(&events);
        let statuses: Vec<_> = current.iter().map(|t| t.status).collect();
        assert_eq!(statuses, vec![Completed, InProgress]);
        assert_eq!(current_todos(&events[..1])[0].status, InProgress);
        assert!(current_todos(&[]).is_empty());
    }
}
