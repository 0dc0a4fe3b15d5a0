//! Sub-agents in the real window (issue 19 items 6 and 7): a replay model
//! starts an Explore agent and a general-purpose agent; the sub-agent's ask
//! is answered in the permission modal, which names the agent; the
//! sub-agents panel lists both; each Agent call's nested transcript expands
//! to the sub-agent's own calls. The new states (the modal naming the
//! agent, the panel, open nested transcripts) are checked for overflow and
//! overlap at every window size, as `layout.rs` checks the other screens.

use anyhow::Context;
use gatehouse_e2e::{App, screenshot_dir, setup, until};
use serde_json::json;

fn agent_call(id: &str) -> String {
    format!("[data-testid=tool-call][data-tool-use-id={id}]")
}

/// The nested calls under an Agent call: (tool name, status).
async fn nested_calls(window: &App, id: &str) -> anyhow::Result<Vec<(String, String)>> {
    let css = format!(
        "{} [data-testid=agent-transcript] [data-testid=tool-call]",
        agent_call(id)
    );
    // `attrs` waits for a match; a collapsed transcript has none.
    if !window.exists(&css).await? {
        return Ok(Vec::new());
    }
    let names = window.attrs(&css, "data-tool-name").await?;
    let states = window.attrs(&css, "data-status").await?;
    Ok(names.into_iter().zip(states).collect())
}

async fn layout(
    window: &App,
    what: &str,
    css: &str,
    problems: &mut Vec<String>,
) -> anyhow::Result<()> {
    window
        .layout_at_sizes(&format!("subagents-{what}"), css, problems)
        .await
}

#[tokio::test]
async fn sub_agents_nest_their_transcripts_are_listed_and_ask_by_name() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("agents-project");
    std::fs::create_dir(&project)?;
    std::fs::write(project.join("a.txt"), "alpha\n")?;
    let project = project.canonicalize()?;
    let dir = "${PROJECT_DIR}";
    // One message starts both agents: the Explore one (read-only) runs
    // first, the general-purpose one after it (it may write), so the
    // replay's turns are played in this order.
    let script = json!({"turns": [
        {"content": [
            {"type": "text", "text": "Starting two agents."},
            {"type": "tool_use", "id": "ex1", "name": "Agent", "input": {
                "description": "read a", "prompt": "What is in a.txt?", "subagent_type": "Explore"}},
            {"type": "tool_use", "id": "gp1", "name": "Agent", "input": {
                "description": "write notes", "prompt": "Write notes.txt", "subagent_type": "general-purpose"}}
        ]},
        // The Explore agent.
        {"content": [{"type": "tool_use", "id": "xr1", "name": "Read", "input": {"file_path": format!("{dir}/a.txt")}}]},
        {"content": [{"type": "text", "text": "a.txt says alpha."}]},
        // The general-purpose agent.
        {"content": [{"type": "tool_use", "id": "gw1", "name": "Write", "input": {
            "file_path": format!("{dir}/notes.txt"), "content": "from the sub-agent\n"}}]},
        {"content": [{"type": "text", "text": "Wrote notes.txt."}]},
        // The parent again.
        {"content": [{"type": "text", "text": "Both agents are done."}]}
    ]});
    let script_path = folders.path().join("script.json");
    std::fs::write(&script_path, serde_json::to_vec_pretty(&script)?)?;
    println!("e2e: screenshots go to {}", screenshot_dir().display());

    let project_text = project.display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_text)],
    )
    .await?;
    window.click("[data-testid=open-folder]").await?;
    window.start_replay(&script_path).await?;
    window.wait_for("[data-testid=session-screen]").await?;
    window.send_prompt("Use two agents").await?;

    // The general-purpose agent's Write asks; the modal names the agent.
    window
        .wait_for("[data-testid=permission-modal][data-tool-use-id=gw1]")
        .await?;
    let who = window
        .attrs("[data-testid=permission-agent]", "data-subagent-type")
        .await?;
    assert_eq!(who, ["general-purpose"]);
    let words = window.texts("[data-testid=permission-agent]").await?;
    assert!(words[0].contains("write notes"), "{words:?}");
    assert!(!project.join("notes.txt").exists());
    let mut problems = Vec::new();
    layout(
        &window,
        "modal",
        "[data-testid=permission-modal]",
        &mut problems,
    )
    .await?;

    // Meanwhile the panel lists both: the one waiting first, then the done one.
    let listed = window
        .attrs("[data-testid=subagent]", "data-subagent-type")
        .await?;
    assert_eq!(listed, ["general-purpose", "Explore"]);
    let states = window
        .attrs("[data-testid=subagent]", "data-status")
        .await?;
    assert_eq!(states, ["running", "completed"]);

    window.click("[data-testid=permission-allow-once]").await?;
    until("the parent's last reply", 60, || async {
        Ok(window
            .texts("[data-testid=assistant-text]")
            .await?
            .iter()
            .any(|t| t.contains("Both agents are done."))
            .then_some(()))
    })
    .await
    .context("the exchange to end")?;
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "from the sub-agent\n"
    );
    let states = window
        .attrs("[data-testid=subagent]", "data-status")
        .await?;
    assert_eq!(states, ["completed", "completed"]);

    // Each Agent call's transcript is collapsed, and expands to its own calls.
    for (id, want) in [
        ("ex1", ("Read", "completed")),
        ("gp1", ("Write", "completed")),
    ] {
        assert!(
            nested_calls(&window, id).await?.is_empty(),
            "{id} starts collapsed"
        );
        window
            .click(&format!(
                "{} [data-testid=agent-transcript-toggle]",
                agent_call(id)
            ))
            .await?;
        let calls = until(&format!("{id}'s nested calls"), 20, || async {
            let calls = nested_calls(&window, id).await?;
            Ok((!calls.is_empty()).then_some(calls))
        })
        .await?;
        assert_eq!(calls, [(want.0.to_owned(), want.1.to_owned())], "{id}");
    }
    let replies = window
        .texts(&format!(
            "{} [data-testid=agent-transcript] [data-testid=assistant-text]",
            agent_call("ex1")
        ))
        .await?;
    assert!(
        replies.iter().any(|t| t.contains("a.txt says alpha.")),
        "{replies:?}"
    );
    layout(&window, "nested-open", "body", &mut problems).await?;
    window.quit().await?;

    // Both are stored as children of the session.
    let store = gatehouse_store::Store::open(data.path())?;
    let parents: Vec<_> = store
        .list_sessions(None)?
        .into_iter()
        .filter(|s| s.parent_session_id.is_none())
        .collect();
    assert_eq!(parents.len(), 1, "{parents:?}");
    let children = store.child_sessions(&parents[0].id)?;
    assert_eq!(children.len(), 2, "{children:?}");
    assert!(
        problems.is_empty(),
        "layout problems:\n{}",
        problems.join("\n")
    );
    Ok(())
}
