//! The link from an imported Task (or Agent) call to the sub-agent it
//! started. Claude Code keeps each sub-agent's transcript in
//! `<session>/subagents/agent-<agentId>.jsonl`, imported as the child session
//! `<parent>-agent-<agentId>` ([`super::discover`]), and names the agent in
//! the call's result (`toolUseResult.agentId`). The link is the same
//! `tool_progress` of kind `subagent` that Gatehouse's own Agent calls
//! carry, so the reader and the live window link both kinds alike.

use gatehouse_protocol::event::SessionStatus;
use gatehouse_protocol::progress::{SubagentPhase, ToolProgressData};
use serde_json::Value;

/// Claude Code's names of the tool that starts a sub-agent.
pub(crate) fn starts_subagent(tool: &str) -> bool {
    matches!(tool, "Task" | "Agent")
}

/// The agent type of a Task call's input (Claude Code's default when
/// absent).
pub(crate) fn subagent_type(input: &Value) -> String {
    input
        .get("subagent_type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .unwrap_or("general-purpose")
        .to_owned()
}

/// The `subagent` progress of a Task call of session `parent` whose result
/// detail is `detail`; `None` when the detail names no agent (results of
/// Claude Code versions before `agentId`).
pub(crate) fn link(parent: &str, subagent_type: &str, detail: &Value) -> Option<ToolProgressData> {
    let agent_id = detail.get("agentId").and_then(Value::as_str)?;
    if agent_id.is_empty() {
        return None;
    }
    let count = |key: &str| {
        detail
            .get(key)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0)
    };
    // `async_launched`: a background agent, still running when the call
    // returned; any other end but `completed` is a failure.
    let (phase, status) = match detail.get("status").and_then(Value::as_str) {
        Some("async_launched") => (SubagentPhase::Started, None),
        Some("completed") | None => (SubagentPhase::Completed, Some(SessionStatus::Completed)),
        Some(_) => (SubagentPhase::Completed, Some(SessionStatus::Failed)),
    };
    Some(ToolProgressData::Subagent {
        agent_session_id: format!("{parent}-agent-{agent_id}"),
        subagent_type: subagent_type.to_owned(),
        phase,
        current_tool: None,
        tool_calls: count("totalToolUseCount"),
        turns: 0,
        output_tokens: detail
            .pointer("/usage/output_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_result_naming_its_agent_links_to_the_imported_child() {
        let detail = json!({
            "status": "completed", "prompt": "survey", "agentId": "a1b2c3",
            "totalToolUseCount": 4, "usage": {"output_tokens": 120}
        });
        let Some(ToolProgressData::Subagent {
            agent_session_id,
            subagent_type,
            phase,
            tool_calls,
            output_tokens,
            status,
            ..
        }) = link("cc-s1", "Explore", &detail)
        else {
            panic!("no link");
        };
        assert_eq!(agent_session_id, "cc-s1-agent-a1b2c3");
        assert_eq!(subagent_type, "Explore");
        assert_eq!(phase, SubagentPhase::Completed);
        assert_eq!((tool_calls, output_tokens), (4, 120));
        assert_eq!(status, Some(SessionStatus::Completed));
    }

    #[test]
    fn results_without_an_agent_id_link_nothing_and_a_background_launch_is_started() {
        assert!(link("cc-s1", "Explore", &json!({"status": "completed"})).is_none());
        assert!(link("cc-s1", "Explore", &json!({"agentId": ""})).is_none());
        let launched = link(
            "p",
            "general-purpose",
            &json!({"status": "async_launched", "agentId": "x"}),
        );
        assert!(matches!(
            launched,
            Some(ToolProgressData::Subagent {
                phase: SubagentPhase::Started,
                status: None,
                ..
            })
        ));
        assert_eq!(subagent_type(&json!({})), "general-purpose");
        assert_eq!(subagent_type(&json!({"subagent_type": "Plan"})), "Plan");
        assert!(starts_subagent("Task") && starts_subagent("Agent") && !starts_subagent("Bash"));
    }
}
