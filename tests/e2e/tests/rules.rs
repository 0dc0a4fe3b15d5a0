//! The visual rule editor in the real window (issue 10 item 6): a session
//! recorded by the replay provider runs `echo`; in the editor a malformed
//! rule shows the parser's error, a deny rule is added, the tester's trace
//! names it, the replay lists the recorded call as allow → deny, saving
//! writes the rule keeping the file's other keys, a file changed on disk
//! meanwhile is a conflict the user resolves, undo restores, and a new
//! session's matching call is refused. Relies only on the test-id contract at the top
//! of ui/src/rules/RulesScreen.tsx and ui/src/session/SessionScreen.tsx.

use std::path::Path;

use anyhow::Context;
use gatehouse_e2e::{App, screenshot_dir, setup, until};
use serde_json::{Value, json};

fn call(id: &str) -> String {
    format!("[data-testid=tool-call][data-tool-use-id={id}]")
}

/// A replay script: one Bash call `id` running `command`, then a reply.
fn echo_script(dir: &Path, name: &str, id: &str, command: &str) -> anyhow::Result<String> {
    let script = json!({"turns": [
        {"content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]},
        {"content": [{"type": "text", "text": "done"}]}
    ]});
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(&script)?)?;
    Ok(path.display().to_string())
}

/// Opens the project (the picked folder), starts a replay session with
/// `script` and sends a prompt; trusts the project when asked.
async fn run_session(window: &App, script: &str) -> anyhow::Result<()> {
    window.open_replay_session(Path::new(script)).await?;
    window.send_prompt("say hello").await?;
    Ok(())
}

async fn call_status(window: &App, id: &str, want: &str) -> anyhow::Result<()> {
    until(&format!("{id} to be {want}"), 60, || async {
        if !window.exists(&call(id)).await? {
            return Ok(None);
        }
        let status = window
            .attrs(&call(id), "data-status")
            .await?
            .pop()
            .unwrap_or_default();
        Ok((status == want).then_some(()))
    })
    .await
}

#[tokio::test]
async fn a_deny_rule_added_in_the_editor_is_validated_tested_replayed_saved_and_enforced()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("rules-project");
    std::fs::create_dir_all(project.join(".claude"))?;
    let project = project.canonicalize()?;
    let settings = project.join(".claude/settings.json");
    std::fs::write(
        &settings,
        "{\n  \"model\": \"keep-me\",\n  \"env\": {\"KEEP\": \"1\"},\n  \"permissions\": {\n    \"allow\": [\"Bash(git status)\"]\n  }\n}\n",
    )?;
    let command = "echo hello-gatehouse";
    let first = echo_script(folders.path(), "first.json", "b1", command)?;
    let second = echo_script(folders.path(), "second.json", "b2", command)?;
    println!("e2e: screenshots go to {}", screenshot_dir().display());

    let project_text = project.display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_text)],
    )
    .await?;

    // A recorded session: echo is read-only, so it runs unasked (allow).
    run_session(&window, &first).await?;
    call_status(&window, "b1", "completed").await?;

    // The editor: the project's existing rule is listed.
    window.click("[data-testid=open-rules]").await?;
    window.wait_for("[data-testid=rules-screen]").await?;
    window
        .wait_for("[data-testid=rule-row][data-rule='Bash(git status)']")
        .await?;

    // A malformed rule: the parser's error, its position highlighted.
    window
        .type_into("[data-testid=rule-input]", "Bash(echo")
        .await?;
    let error = window.texts("[data-testid=rule-error]").await?.join(" ");
    assert!(!error.trim().is_empty(), "a parse error is shown");
    window.wait_for("[data-testid=rule-error-mark]").await?;
    window.screenshot("rules-01-parse-error").await?;

    // The fixed rule, added to deny in the project settings (the defaults).
    window
        .type_into("[data-testid=rule-input]", "Bash(echo:*)")
        .await?;
    window.wait_for("[data-testid=rule-bash-examples]").await?;
    window.click("[data-testid=rule-add]").await?;
    window
        .wait_for("[data-testid=rule-row][data-rule='Bash(echo:*)'][data-list=deny]")
        .await?;
    window.wait_for("[data-testid=rules-dirty]").await?;

    // The tester, with the unsaved rule: denied, and the trace names it.
    window
        .type_into("[data-testid=tester-tool]", "Bash")
        .await?;
    window
        .type_into(
            "[data-testid=tester-input]",
            &json!({ "command": command }).to_string(),
        )
        .await?;
    until("the tester to deny", 30, || async {
        let decision = window
            .attrs("[data-testid=tester-decision]", "data-decision")
            .await?
            .pop()
            .unwrap_or_default();
        Ok((decision == "deny").then_some(()))
    })
    .await?;
    let trace = window
        .texts("[data-testid=tester-result] [data-testid=decision-trace]")
        .await?
        .join("\n");
    assert!(trace.contains("Bash(echo:*)"), "{trace}");
    window.screenshot("rules-02-tester").await?;

    // Replay over the recorded session: the echo call flips allow → deny.
    window.click("[data-testid=replay-run]").await?;
    window.wait_for("[data-testid=replay-call]").await?;
    let froms = window
        .attrs("[data-testid=replay-call]", "data-from")
        .await?;
    let tos = window.attrs("[data-testid=replay-call]", "data-to").await?;
    assert_eq!(froms, ["allow"]);
    assert_eq!(tos, ["deny"]);
    let counts = window.texts("[data-testid=replay-count]").await?;
    assert!(counts[0].contains('1'), "{counts:?}");
    assert!(window.exists("[data-testid=replay-progress]").await?);
    window.screenshot("rules-03-replay").await?;

    // Save: the file has the rule and keeps its other keys.
    window.click("[data-testid=rules-save]").await?;
    window.wait_for("[data-testid=rules-status]").await?;
    let on_disk: Value = serde_json::from_str(
        &std::fs::read_to_string(&settings).context("reading the saved settings")?,
    )?;
    assert_eq!(on_disk["permissions"]["deny"], json!(["Bash(echo:*)"]));
    assert_eq!(on_disk["permissions"]["allow"], json!(["Bash(git status)"]));
    assert_eq!(on_disk["model"], json!("keep-me"));
    assert_eq!(on_disk["env"], json!({"KEEP": "1"}));
    assert!(
        window
            .exists("[data-testid=rules-undo]:not([disabled])")
            .await?
    );

    // Changed on disk while the editor has unsaved edits: the user is told,
    // nothing is written until they choose; overwriting replaces only the
    // rule lists (the key added on disk stays).
    let mut external = on_disk.clone();
    external["external"] = json!(true);
    std::fs::write(&settings, serde_json::to_string_pretty(&external)?)?;
    window
        .click("[data-testid=rule-row][data-rule='Bash(git status)'] [data-testid=rule-delete]")
        .await?;
    window.click("[data-testid=rules-save]").await?;
    let conflict = window
        .texts("[data-testid=rules-conflict]")
        .await?
        .join(" ");
    assert!(conflict.contains("settings.json"), "{conflict}");
    let untouched: Value = serde_json::from_str(&std::fs::read_to_string(&settings)?)?;
    assert_eq!(
        untouched, external,
        "nothing is written before the user chooses"
    );
    window.screenshot("rules-05-conflict").await?;
    window.click("[data-testid=rules-overwrite]").await?;
    let overwritten: Value = until("the overwrite to be written", 30, || async {
        let now: Value = serde_json::from_str(&std::fs::read_to_string(&settings)?)?;
        Ok((now["permissions"]["allow"] == json!([])).then_some(now))
    })
    .await?;
    assert_eq!(overwritten["external"], json!(true));
    assert_eq!(overwritten["model"], json!("keep-me"));
    assert_eq!(overwritten["permissions"]["deny"], json!(["Bash(echo:*)"]));

    // Undo restores what the last save replaced.
    window
        .click("[data-testid=rules-undo]:not([disabled])")
        .await?;
    let restored: Value = until("the undo to be written", 30, || async {
        let now: Value = serde_json::from_str(&std::fs::read_to_string(&settings)?)?;
        Ok((now["permissions"]["allow"] == json!(["Bash(git status)"])).then_some(now))
    })
    .await?;
    assert_eq!(restored, external);

    // A new session: the same call is refused by the saved rule. The
    // editor was opened over the first session, so Back returns to it.
    window.click("[data-testid=rules-back]").await?;
    window.click("[data-testid=back-home]").await?;
    window.wait_for("[data-testid=home]").await?;
    run_session(&window, &second).await?;
    call_status(&window, "b2", "denied").await?;
    window.screenshot("rules-04-refused").await?;
    window.quit().await?;
    Ok(())
}

/// A replay script of two prompts, each running Bash `command` once (ids
/// `first_id`, then `second_id`).
fn two_prompt_script(
    dir: &Path,
    command: &str,
    first_id: &str,
    second_id: &str,
) -> anyhow::Result<String> {
    let call = |id: &str| json!({"content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]});
    let done = json!({"content": [{"type": "text", "text": "done"}]});
    let script = json!({"turns": [call(first_id), done, call(second_id), done]});
    let path = dir.join("two-prompts.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&script)?)?;
    Ok(path.display().to_string())
}

/// Issue 16 item 8: the rule editor opens over a live session (which stays
/// open behind it); a deny rule saved there reaches that session at once:
/// its next call of that kind is refused, without starting a new session.
#[tokio::test]
async fn a_deny_rule_saved_in_the_editor_reaches_the_open_session() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("live-rules-project");
    std::fs::create_dir_all(project.join(".claude"))?;
    let project = project.canonicalize()?;
    let settings = project.join(".claude/settings.json");
    std::fs::write(&settings, "{\n  \"permissions\": {}\n}\n")?;
    let script = two_prompt_script(folders.path(), "echo live-rules", "l1", "l2")?;
    let project_text = project.display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_text)],
    )
    .await?;

    // The session's first call: echo is read-only, so it runs.
    run_session(&window, &script).await?;
    call_status(&window, "l1", "completed").await?;

    // The editor, over the session: a deny rule for echo, saved.
    window.click("[data-testid=open-rules]").await?;
    window.wait_for("[data-testid=rules-screen]").await?;
    window
        .type_into("[data-testid=rule-input]", "Bash(echo:*)")
        .await?;
    // Validated as typed: Add takes the rule once its check is back.
    window.wait_for("[data-testid=rule-bash-examples]").await?;
    window.click("[data-testid=rule-add]").await?;
    window
        .wait_for("[data-testid=rule-row][data-rule='Bash(echo:*)'][data-list=deny]")
        .await?;
    window.click("[data-testid=rules-save]").await?;
    window.wait_for("[data-testid=rules-status]").await?;
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&settings)?)?;
    assert_eq!(on_disk["permissions"]["deny"], json!(["Bash(echo:*)"]));

    // Back to the same session (still open): its next echo is refused.
    window.click("[data-testid=rules-back]").await?;
    window.wait_for("[data-testid=session-screen]").await?;
    assert!(
        window.exists(&call("l1")).await?,
        "the session behind the editor is the same one"
    );
    window.send_prompt("again").await?;
    call_status(&window, "l2", "denied").await?;
    window.screenshot("rules-06-live-session-refused").await?;
    window.quit().await?;
    Ok(())
}
