//! Guarding Claude Code (issue 25) in the real window: Claude Code's
//! PermissionRequest hook (`gatehouse-cli claude-code hook
//! PermissionRequest`, fed the JSON Claude Code writes) reaches the running
//! app over its socket, the permission modal shows the call with its
//! origin and diff, and the user's answer goes back to Claude Code.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use anyhow::Context as _;
use gatehouse_e2e::{App, setup, until};

/// `gatehouse-cli`, built beside the app by `cargo xtask test e2e`.
fn cli() -> anyhow::Result<PathBuf> {
    std::env::var_os("GATEHOUSE_E2E_CLI")
        .map(PathBuf::from)
        .context(
            "GATEHOUSE_E2E_CLI is not set; run the end-to-end tests with `cargo xtask test e2e`",
        )
}

/// Runs Claude Code's hook for `event` as Claude Code does: the hook
/// command with the call's JSON on stdin, waiting for its answer.
async fn run_hook(
    cli: PathBuf,
    event: &'static str,
    data_dir: PathBuf,
    home: PathBuf,
    input: serde_json::Value,
) -> anyhow::Result<Output> {
    let mut cmd = Command::new(cli);
    cmd.args(["claude-code", "hook", event])
        .env("GATEHOUSE_DATA_DIR", data_dir)
        .env("HOME", home)
        .env("GATEHOUSE_CLAUDE_CODE_ASK_SECS", "120")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(project) = input.get("cwd").and_then(|c| c.as_str()) {
        cmd.env("CLAUDE_PROJECT_DIR", project);
    }
    let run = tokio::task::spawn_blocking(move || -> std::io::Result<Output> {
        let mut child = cmd.spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(input.to_string().as_bytes())?;
        }
        child.wait_with_output()
    });
    tokio::time::timeout(Duration::from_secs(150), run)
        .await
        .context("the hook did not exit")?
        .context("joining the hook")?
        .context("running the hook")
}

#[tokio::test]
async fn a_claude_code_edit_is_answered_allow_once_in_the_window_and_claude_code_gets_it()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let cli = cli()?;
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let project = tempfile::tempdir()?;
    let project_path = project.path().canonicalize()?;
    std::fs::write(project_path.join("notes.txt"), "one\ntwo\n")?;
    let window = App::launch(&app, &driver, data.path(), &[]).await?;
    window.wait_for("[data-testid=home]").await?;
    // The app serves the hooks' socket once it has started.
    let socket = data.path().join("claude-code.sock");
    until("the app's Claude Code socket", 30, || async {
        Ok(socket.exists().then_some(()))
    })
    .await?;

    let input = serde_json::json!({
        "session_id": "cc-e2e-session",
        "transcript_path": project_path.join("transcript.jsonl"),
        "cwd": project_path,
        "permission_mode": "default",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": project_path.join("notes.txt"),
            "old_string": "two",
            "new_string": "three",
        },
        "tool_use_id": "toolu_e2e_1",
    });
    let hook = tokio::spawn(run_hook(
        cli,
        "PermissionRequest",
        data.path().to_path_buf(),
        home.path().to_path_buf(),
        input,
    ));

    window
        .expect_claude_code_edit_ask(&project_path, "three")
        .await?;
    window.screenshot("claude-code-ask-modal").await?;
    window.click("[data-testid=permission-allow-once]").await?;

    let out = hook.await.context("joining the hook task")??;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "the hook's stdout: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })?;
    assert_eq!(
        answer,
        serde_json::json!({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"}
        }})
    );
    // Answered: the modal is gone; Gatehouse wrote nothing (Claude Code edits).
    until("the modal to close", 10, || async {
        Ok((!window.exists("[data-testid=permission-modal]").await?).then_some(()))
    })
    .await?;
    assert_eq!(
        std::fs::read_to_string(project_path.join("notes.txt"))?,
        "one\ntwo\n"
    );
    window.quit().await
}

/// Settings → Claude Code in the real window: the switch writes the guard's
/// entries, running the `gatehouse-cli` beside the app, into the user's
/// Claude Code settings (every other key kept), shows where they are, and
/// takes them out again.
#[tokio::test]
async fn the_guard_switch_in_settings_installs_and_removes_the_hook_entries() -> anyhow::Result<()>
{
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let user_file = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(home.path().join(".claude"))?;
    let users_own = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(&user_file, users_own)?;
    let home_path = home.path().display().to_string();
    let window = App::launch(&app, &driver, data.path(), &[("HOME", &home_path)]).await?;
    window.wait_for("[data-testid=home]").await?;
    window.click("[data-testid=open-settings]").await?;
    window
        .wait_for("[data-testid=claude-code-guard-user]")
        .await?;
    assert!(!window.exists("[data-testid=claude-code-installed]").await?);
    assert!(
        !window
            .exists("[data-testid=claude-code-cli-problem]")
            .await?
    );

    window.click("[data-testid=claude-code-guard-user]").await?;
    window
        .wait_for("[data-testid=claude-code-installed]")
        .await?;
    assert_eq!(
        window
            .attrs("[data-testid=claude-code-installed]", "data-scope")
            .await?,
        ["user"]
    );
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&user_file)?)?;
    assert_eq!(written["model"], "opus");
    let beside_app = app.with_file_name("gatehouse-cli").canonicalize()?;
    let command = written["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .context("a PreToolUse command entry")?;
    assert_eq!(
        command,
        format!("{} claude-code hook PreToolUse", beside_app.display())
    );
    window
        .scroll_into_view("[data-testid=claude-code-guard]")
        .await?;
    window.screenshot("claude-code-guard-settings").await?;

    window.click("[data-testid=claude-code-guard-user]").await?;
    until("the entries to be removed", 10, || async {
        Ok((!window.exists("[data-testid=claude-code-installed]").await?).then_some(()))
    })
    .await?;
    assert_eq!(std::fs::read_to_string(&user_file)?, users_own);
    window.quit().await
}

/// PreToolUse of a Bash `command` in `project`, in Claude Code's session
/// `cc-live-e2e`.
fn pre_tool_use(project: &std::path::Path, id: &str, command: &str) -> serde_json::Value {
    serde_json::json!({
        "session_id": "cc-live-e2e",
        "transcript_path": project.join("transcript.jsonl"),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": id,
    })
}

/// A guarded Claude Code's session in the session browser grows while it
/// is open: a call its hook records after the reader opened appears in it
/// without reopening (the app notices the hook process's commits).
#[tokio::test]
async fn a_guarded_claude_code_session_grows_live_in_the_session_browser() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let cli = cli()?;
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let project = tempfile::tempdir()?;
    let project_path = project.path().canonicalize()?;
    std::fs::create_dir_all(project_path.join(".claude"))?;
    std::fs::write(
        project_path.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )?;
    let home_path = home.path().display().to_string();
    let window = App::launch(&app, &driver, data.path(), &[("HOME", &home_path)]).await?;
    window.wait_for("[data-testid=home]").await?;

    let hook = |id: &str, command: &str| {
        run_hook(
            cli.clone(),
            "PreToolUse",
            data.path().to_path_buf(),
            home.path().to_path_buf(),
            pre_tool_use(&project_path, id, command),
        )
    };
    let first = hook("toolu_live_1", "git push origin main").await?;
    let answer = String::from_utf8_lossy(&first.stdout);
    assert!(
        answer.contains("\"deny\""),
        "the deny rule decides: {answer}"
    );

    window.click("[data-testid=open-sessions]").await?;
    let row = "[data-testid=session-row][data-session-id='cc-live-e2e']";
    window.wait_for(row).await?;
    window
        .click(&format!("{row} [data-testid=session-open]"))
        .await?;
    window
        .wait_for("[data-testid=stored-session][data-session-id='cc-live-e2e']")
        .await?;
    window
        .wait_for("[data-testid=tool-call][data-tool-use-id=toolu_live_1]")
        .await?;

    // Claude Code goes on; the open reader shows its next call.
    hook("toolu_live_2", "git push --tags").await?;
    until("the second call in the open reader", 30, || async {
        let shown = window
            .exists("[data-testid=tool-call][data-tool-use-id=toolu_live_2]")
            .await?
            || window
                .exists("[data-testid=tool-group][data-count='2']")
                .await?;
        Ok(shown.then_some(()))
    })
    .await?;
    window.screenshot("claude-code-live-session").await?;
    window.quit().await
}
