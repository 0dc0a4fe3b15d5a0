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

/// Runs Claude Code's PermissionRequest hook as Claude Code does: the hook
/// command with the call's JSON on stdin, waiting for its answer.
async fn permission_request_hook(
    cli: PathBuf,
    data_dir: PathBuf,
    home: PathBuf,
    input: serde_json::Value,
) -> anyhow::Result<Output> {
    let mut cmd = Command::new(cli);
    cmd.args(["claude-code", "hook", "PermissionRequest"])
        .env("GATEHOUSE_DATA_DIR", data_dir)
        .env("HOME", home)
        .env("GATEHOUSE_CLAUDE_CODE_ASK_SECS", "120")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
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
    let hook = tokio::spawn(permission_request_hook(
        cli,
        data.path().to_path_buf(),
        home.path().to_path_buf(),
        input,
    ));

    let modal = window.wait_for("[data-testid=permission-modal]").await?;
    let origin = window.texts("[data-testid=permission-origin]").await?;
    assert_eq!(
        origin,
        [format!("Claude Code asks, in {}", project_path.display())]
    );
    let diff = window.texts("[data-testid=diff]").await?;
    assert!(
        diff.iter().any(|d| d.contains("three")),
        "the modal shows the edit's diff: {diff:?}"
    );
    assert!(modal.text().await?.contains("Edit"));
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
