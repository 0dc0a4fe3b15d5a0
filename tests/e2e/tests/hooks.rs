//! Hooks in the real window (issue 18): (a) a trusted project's
//! PreToolUse hook, a real script in `.claude/settings.json`, denies the
//! replayed model's Bash call: the call shows the hook's run and message,
//! and its decision trace names the hook; (b) the rule editor's Hooks view
//! adds a hook, tests it (the result shown), saves it (the file's other
//! keys kept), and the open session's next call runs it. Relies only on the
//! test ids at the top of ui/src/rules/hooks/HooksPanel.tsx,
//! ui/src/rules/RulesScreen.tsx and ui/src/session/SessionScreen.tsx.

use std::path::Path;

use gatehouse_e2e::{App, screenshot_dir, setup, until};
use serde_json::{Value, json};

fn call(id: &str) -> String {
    format!("[data-testid=tool-call][data-tool-use-id={id}]")
}

/// A replay script: one Bash call per prompt, `(id, command)`, each
/// followed by a reply.
fn bash_script(dir: &Path, name: &str, calls: &[(&str, &str)]) -> anyhow::Result<String> {
    let mut turns = Vec::new();
    for (id, command) in calls {
        turns.push(json!({"content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}));
        turns.push(json!({"content": [{"type": "text", "text": "done"}]}));
    }
    let path = dir.join(name);
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&json!({ "turns": turns }))?,
    )?;
    Ok(path.display().to_string())
}

/// Opens the project (the picked folder), trusts it when asked, starts a
/// replay session with `script` and sends a prompt.
async fn run_session(window: &App, script: &str) -> anyhow::Result<()> {
    window.open_replay_session(Path::new(script)).await?;
    window.send_prompt("go").await?;
    Ok(())
}

/// Waits until call `id` has one of the `wanted` statuses; returns it.
async fn call_status(window: &App, id: &str, wanted: &[&str]) -> anyhow::Result<String> {
    until(&format!("{id} to be one of {wanted:?}"), 60, || async {
        if !window.exists(&call(id)).await? {
            return Ok(None);
        }
        let status = window
            .attrs(&call(id), "data-status")
            .await?
            .pop()
            .unwrap_or_default();
        Ok(wanted.contains(&status.as_str()).then_some(status))
    })
    .await
}

const GUARD: &str = r#"#!/bin/sh
# A Claude Code-style policy script: no rm in Bash.
input=$(cat)
case "$input" in
  *'"rm '*) printf '%s' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "guard: no rm here"}}' ;;
esac
exit 0
"#;

#[tokio::test]
async fn a_pre_tool_use_hook_denies_a_bash_call_and_the_trace_names_it() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("hook-guard-project");
    std::fs::create_dir_all(project.join(".claude"))?;
    let project = project.canonicalize()?;
    let guard = project.join("guard.sh");
    std::fs::write(&guard, GUARD)?;
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o755))?;
    std::fs::write(
        project.join(".claude/settings.json"),
        serde_json::to_vec_pretty(&json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 30}]}
        ]}}))?,
    )?;
    let script = bash_script(folders.path(), "guarded.json", &[("g1", "rm -rf build")])?;
    println!("e2e: screenshots go to {}", screenshot_dir().display());
    let project_text = project.display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_text)],
    )
    .await?;

    run_session(&window, &script).await?;
    call_status(&window, "g1", &["denied"]).await?;
    // The session says which hooks it runs.
    let summary = window
        .texts("[data-testid=session-hooks-summary]")
        .await?
        .join(" ");
    assert_eq!(summary, "1 hook run", "{summary}");
    // The hook's run inside the call: its command, outcome and message.
    let run = format!(
        "{} [data-testid=call-hook-runs] [data-testid=hook-run]",
        call("g1")
    );
    assert_eq!(
        window.attrs(&run, "data-decision").await?,
        ["deny"],
        "one hook run, deciding deny"
    );
    let text = window.texts(&run).await?.join(" ");
    assert!(
        text.contains("./guard.sh") && text.contains("guard: no rm here"),
        "{text}"
    );
    // The decision trace (folded in the refusal) names the hook.
    window
        .click(&format!("{} [data-testid=refusal] summary", call("g1")))
        .await?;
    let steps = window
        .texts(&format!(
            "{} [data-testid=decision-trace] [data-stage=hook]",
            call("g1")
        ))
        .await?
        .join(" ");
    assert!(
        steps.contains("PreToolUse hook `./guard.sh` (project settings) denied: guard: no rm here"),
        "{steps}"
    );
    window.screenshot("hooks-01-denied-by-hook").await?;
    window.quit().await?;
    Ok(())
}

#[tokio::test]
async fn a_hook_added_and_tested_in_the_hooks_view_runs_on_the_open_sessions_next_call()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("hooks-view-project");
    std::fs::create_dir_all(project.join(".claude"))?;
    let project = project.canonicalize()?;
    let settings = project.join(".claude/settings.json");
    std::fs::write(
        &settings,
        "{\n  \"model\": \"keep-me\",\n  \"permissions\": {}\n}\n",
    )?;
    let script = bash_script(
        folders.path(),
        "two.json",
        &[("h1", "echo hooks-live"), ("h2", "echo hooks-live")],
    )?;
    let project_text = project.display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_text)],
    )
    .await?;

    // The session's first call runs: no hook yet.
    run_session(&window, &script).await?;
    call_status(&window, "h1", &["completed"]).await?;

    // The Hooks view, over the session: a PreToolUse hook on Bash.
    window.click("[data-testid=open-rules]").await?;
    window.wait_for("[data-testid=rules-screen]").await?;
    window.click("[data-testid=rules-tab-hooks]").await?;
    window.wait_for("[data-testid=hooks-view]").await?;
    window.click("[data-testid=hooks-add]").await?;
    window
        .type_into("[data-testid=hook-form-matcher]", "Bash")
        .await?;
    let command = "cat >/dev/null; echo 'blocked by the new hook' >&2; exit 2";
    window
        .type_into("[data-testid=hook-form-command]", command)
        .await?;
    // Tested before it is saved: the hook really ran.
    window.click("[data-testid=hook-test-run]").await?;
    window
        .wait_for("[data-testid=hook-test-result][data-verdict=block]")
        .await?;
    assert_eq!(
        window.texts("[data-testid=hook-test-exit]").await?,
        ["exit 2"]
    );
    assert_eq!(
        window
            .texts("[data-testid=hook-test-stderr]")
            .await?
            .join(""),
        "blocked by the new hook"
    );
    let stdin = window
        .texts("[data-testid=hook-test-stdin]")
        .await?
        .join("");
    assert!(
        stdin.contains("\"hook_event_name\": \"PreToolUse\""),
        "{stdin}"
    );
    window.screenshot("hooks-02-tested").await?;

    window.click("[data-testid=hook-form-save]").await?;
    window.wait_for("[data-testid=hooks-status]").await?;
    window
        .wait_for("[data-testid=hook-row][data-event=PreToolUse][data-runs=true]")
        .await?;
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&settings)?)?;
    assert_eq!(on_disk["model"], "keep-me");
    assert_eq!(
        on_disk["hooks"]["PreToolUse"],
        json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}])
    );
    window.screenshot("hooks-03-saved").await?;

    // Back to the same session: its next Bash call runs the new hook.
    window.click("[data-testid=rules-back]").await?;
    window.wait_for("[data-testid=session-screen]").await?;
    assert!(window.exists(&call("h1")).await?, "the same session");
    window.send_prompt("again").await?;
    let status = call_status(&window, "h2", &["denied", "error"]).await?;
    let run = format!("{} [data-testid=hook-run]", call("h2"));
    let text = window.texts(&run).await?.join(" ");
    assert!(
        text.contains("exit 2") && text.contains("blocked by the new hook"),
        "h2 ({status}): {text}"
    );
    window.screenshot("hooks-04-next-call-ran-it").await?;
    window.quit().await?;
    Ok(())
}
