//! Real Claude Code guarded by Gatehouse in the real window (issue 25
//! item 4): the pinned `claude` runs in print mode against a scripted
//! Anthropic API on 127.0.0.1, in a throwaway HOME, with Gatehouse's hook
//! entries installed by `gatehouse-cli claude-code guard`. Gatehouse's
//! PreToolUse hook denies `git push` (the tool result Claude Code sends the
//! model carries Gatehouse's reason); the would-ask Edit reaches the
//! running window through Claude Code's PermissionRequest hook and is
//! answered "allow once" there (WebDriver), so Claude Code makes the edit;
//! and the calls appear in the open session browser while Claude Code is
//! still running.
//!
//! The model is the only scripted part: Claude Code, its hooks, the app,
//! the socket between them and the files are real.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context as _;
use gatehouse_e2e::{App, setup, until};
use gatehouse_test_support::claude_code::{self, Reply, ScriptedApi};
use serde_json::{Value, json};

/// `gatehouse-cli`, built beside the app by `cargo xtask test e2e`.
fn cli() -> anyhow::Result<PathBuf> {
    std::env::var_os("GATEHOUSE_E2E_CLI")
        .map(PathBuf::from)
        .context(
            "GATEHOUSE_E2E_CLI is not set; run the end-to-end tests with `cargo xtask test e2e`",
        )
}

/// The scripted model, by how many tool results the conversation holds:
/// `git push` (Gatehouse denies it), the README's typo fixed with Edit
/// (Claude Code asks; the window answers), then — once the test has opened
/// the session browser and lets it go on through `go_on` — a Read of the
/// README, then a closing text. Side requests (titles) get a short text.
fn model(
    project: &Path,
    go_on: mpsc::Receiver<()>,
) -> impl Fn(&Value) -> Reply + Send + Sync + use<> {
    let readme = project.join("README.md").display().to_string();
    let go_on = Mutex::new(go_on);
    move |body: &Value| {
        if !claude_code::offers_tool(body, "Edit") {
            return Reply::Text("Fix the README".to_owned());
        }
        match claude_code::tool_results(body).len() {
            0 => Reply::tool(
                "toolu_cc_push",
                "Bash",
                json!({"command": "git push origin main", "description": "Push the branch"}),
            ),
            1 => Reply::tool(
                "toolu_cc_edit",
                "Edit",
                json!({"file_path": readme, "old_string": "wrold", "new_string": "world"}),
            ),
            2 => {
                // Bounded: a test that never lets go still ends.
                if let Ok(go_on) = go_on.lock() {
                    let _ = go_on.recv_timeout(Duration::from_secs(240));
                }
                Reply::tool("toolu_cc_read", "Read", json!({"file_path": readme}))
            }
            _ => Reply::Text("Fixed the typo in README.md.".to_owned()),
        }
    }
}

/// What the model was asked and what Gatehouse logged and Claude Code
/// wrote down, for a failure's message.
fn diagnosis(api: &ScriptedApi, data_dir: &Path, home: &Path) -> String {
    let requests = api.requests();
    let transcripts: Vec<String> = walk(&home.join(".claude/projects"))
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    format!(
        "{} Messages requests, the last one's tool results {:?}\nGatehouse's logs: {}\nClaude Code's transcripts: {}",
        requests.len(),
        requests.last().map(claude_code::tool_results),
        logs(data_dir),
        transcripts.join("\n")
    )
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Everything in Gatehouse's log files (the hooks log their problems there).
fn logs(data_dir: &Path) -> String {
    std::fs::read_dir(data_dir.join("logs"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect::<Vec<_>>()
        .join("\n")
}

fn run(cmd: &mut Command) -> anyhow::Result<Output> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    anyhow::ensure!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out)
}

#[tokio::test]
async fn a_real_claude_code_session_is_denied_asked_in_the_window_and_shown_live()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let Some(claude) = claude_code::claude() else {
        return Ok(());
    };
    let cli = cli()?;
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let project = tempfile::tempdir()?;
    let (home_path, project_path) = (home.path().canonicalize()?, project.path().canonicalize()?);
    run(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project_path))?;
    std::fs::write(project_path.join("README.md"), "hello wrold\n")?;
    std::fs::create_dir_all(project_path.join(".claude"))?;
    std::fs::write(
        project_path.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )?;
    claude_code::trust_project(&home_path, &project_path)?;

    let home_env = home_path.display().to_string();
    let window = App::launch(&app, &driver, data.path(), &[("HOME", &home_env)]).await?;
    window.wait_for("[data-testid=home]").await?;
    let socket = data.path().join("claude-code.sock");
    until("the app's Claude Code socket", 30, || async {
        Ok(socket.exists().then_some(()))
    })
    .await?;
    let guarded = run(Command::new(&cli)
        .args(["claude-code", "guard"])
        .env("GATEHOUSE_DATA_DIR", data.path())
        .env("HOME", &home_path)
        .current_dir(&project_path))?;
    let guarded: Value = serde_json::from_slice(&guarded.stdout)?;
    assert_eq!(guarded["installed"], true, "{guarded}");

    let (go_on, gate) = mpsc::channel();
    let api = ScriptedApi::start(model(&project_path, gate))?;
    let mut claude_cmd = claude_code::print_mode(
        &claude,
        &home_path,
        &project_path,
        &api.url,
        "fix the typo in the README",
        &[("GATEHOUSE_DATA_DIR", data.path())],
    );
    let claude_run = tokio::task::spawn_blocking(move || claude_cmd.output());

    // The Edit would ask: Claude Code's PermissionRequest reaches the window
    // (unless Claude Code ended first: then say what it and the hooks said).
    until("Claude Code's ask in the window", 120, || async {
        let shown = window.exists("[data-testid=permission-modal]").await?;
        Ok((shown || claude_run.is_finished()).then_some(()))
    })
    .await
    .with_context(|| diagnosis(&api, data.path(), &home_path))?;
    if claude_run.is_finished() {
        let out = claude_run.await??;
        anyhow::bail!(
            "claude -p ended before asking ({:?}):\nstdout: {}\nstderr: {}\nGatehouse's logs: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            logs(data.path())
        );
    }
    window
        .expect_claude_code_edit_ask(&project_path, "world")
        .await?;
    window.screenshot("claude-code-real-ask-modal").await?;
    window.click("[data-testid=permission-allow-once]").await?;

    // Claude Code made the edit and sent its result to the model, which
    // now waits for the test.
    until("the Edit's result to reach the model", 120, || async {
        let results = api
            .requests()
            .iter()
            .map(claude_code::tool_results)
            .max_by_key(Vec::len);
        Ok(results.filter(|r| r.len() >= 2))
    })
    .await?;
    assert_eq!(
        std::fs::read_to_string(project_path.join("README.md"))?,
        "hello world\n",
        "allowed once in the window, Claude Code edited the file"
    );

    // The session browser, opened while Claude Code runs.
    window.click("[data-testid=open-sessions]").await?;
    let row = "[data-testid=session-row][data-origin=claude_code]";
    window.wait_for(row).await?;
    let ids = window.attrs(row, "data-session-id").await?;
    assert_eq!(ids.len(), 1, "one session, Claude Code's: {ids:?}");
    let session = &ids[0];
    window
        .click(&format!(
            "[data-testid=session-row][data-session-id='{session}'] [data-testid=session-open]"
        ))
        .await?;
    window
        .wait_for("[data-testid=tool-call][data-tool-use-id=toolu_cc_push][data-status=denied]")
        .await?;
    window
        .wait_for("[data-testid=tool-call][data-tool-use-id=toolu_cc_edit]")
        .await?;
    assert!(
        !window
            .exists("[data-testid=tool-call][data-tool-use-id=toolu_cc_read]")
            .await?
    );

    // The model goes on; the open reader shows the next call live.
    go_on
        .send(())
        .context("the scripted model stopped waiting")?;
    until("the Read call in the open reader", 60, || async {
        let shown = window
            .exists("[data-testid=tool-call][data-tool-use-id=toolu_cc_read]")
            .await?
            || window
                .exists("[data-testid=tool-group] [data-tool-use-id=toolu_cc_read]")
                .await?;
        Ok(shown.then_some(()))
    })
    .await?;
    window.screenshot("claude-code-real-live-session").await?;

    let out = tokio::time::timeout(Duration::from_secs(320), claude_run)
        .await
        .context("claude -p did not end")?
        .context("joining claude -p")?
        .context("running claude -p")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    anyhow::ensure!(
        out.status.success(),
        "claude -p failed ({:?}):\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<(String, String)> = api
        .requests()
        .iter()
        .map(claude_code::tool_results)
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let result_of = |id: &str| {
        results
            .iter()
            .find(|(r, _)| r == id)
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    };
    assert!(
        result_of("toolu_cc_push").contains("Gatehouse: rule Bash(git push:*)"),
        "Claude Code passes Gatehouse's reason on: {results:?}"
    );
    assert!(
        result_of("toolu_cc_read").contains("hello world"),
        "{results:?}"
    );
    let report: Value = serde_json::from_str(&stdout).context("claude -p's JSON report")?;
    let denied: Vec<&str> = report["permission_denials"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["tool_use_id"].as_str())
        .collect();
    assert!(
        !denied.contains(&"toolu_cc_edit"),
        "the Edit was allowed: {report}"
    );
    window.quit().await
}
