//! Real Claude Code guarded by Gatehouse (issue 25): the pinned
//! `@anthropic-ai/claude-code` (installed by `cargo xtask test` into
//! `target/claude-code/<version>`, found through `GATEHOUSE_CLAUDE_CODE`)
//! runs in print mode against a scripted Anthropic Messages API on
//! 127.0.0.1, in a throwaway HOME with the project trusted, guarded with
//! `gatehouse-cli claude-code guard`. The model asks for `git push`;
//! Gatehouse's PreToolUse hook denies it, and the tool result Claude Code
//! sends back to the model carries Gatehouse's reason.
//!
//! The model is the only scripted part: there is no model here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use gatehouse_test_support::claude_code::{self, PINNED, Reply, ScriptedApi};
use serde_json::{Value, json};

/// The scripted model: in the main conversation (it offers Bash) with no
/// tool result yet, it asks for `git push origin main`; after a tool
/// result, and for side requests (titles), it says it is done.
fn reply_to(body: &Value) -> Reply {
    if claude_code::offers_tool(body, "Bash") && claude_code::tool_results(body).is_empty() {
        Reply::tool(
            "toolu_scripted_push",
            "Bash",
            json!({"command": "git push origin main", "description": "Push the branch"}),
        )
    } else {
        Reply::Text("Done.".to_owned())
    }
}

fn gatehouse(data: &Path, home: &Path, project: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", data)
        .env("HOME", home)
        .current_dir(project)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn gatehouse_denies_git_push_in_a_real_claude_code_session_and_claude_code_passes_the_reason_on() {
    let Some(claude) = claude_code::claude() else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("project");
    let data = root.path().join("data");
    for d in [&home, &project, &data] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (home, project) = (
        home.canonicalize().unwrap(),
        project.canonicalize().unwrap(),
    );
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .status()
        .unwrap();
    assert!(git.success());
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    // The project trusted, onboarding done: no interactive screen.
    claude_code::trust_project(&home, &project).unwrap();
    // A user hook beside Gatehouse's that keeps Claude Code's real stdin.
    let captured = root.path().join("pre_tool_use_stdin.json");
    std::fs::write(
        home.join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": format!("cat > '{}'", captured.display())}]}]}})
        .to_string(),
    )
    .unwrap();
    let guarded = gatehouse(&data, &home, &project, &["claude-code", "guard"]);
    assert_eq!(guarded["installed"], true);

    let api = ScriptedApi::start(reply_to).unwrap();
    let data_dir: &Path = &data;
    let child = claude_code::print_mode(
        &claude,
        &home,
        &project,
        &api.url,
        "push the branch",
        &[("GATEHOUSE_DATA_DIR", data_dir)],
    )
    .spawn()
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "claude -p failed ({:?}):\nstdout: {stdout}\nstderr: {stderr}",
        out.status
    );

    let tool_results: Vec<String> = api
        .requests()
        .iter()
        .flat_map(claude_code::tool_results)
        .map(|(_, content)| content)
        .collect();
    assert!(
        tool_results
            .iter()
            .any(|c| c.contains("Gatehouse: rule Bash(git push:*)")),
        "Claude Code's tool result carries Gatehouse's reason: {tool_results:?}\nstdout: {stdout}"
    );

    // Claude Code's real hook input, as Gatehouse reads it.
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&captured).unwrap()).unwrap();
    for field in [
        "session_id",
        "transcript_path",
        "cwd",
        "permission_mode",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ] {
        assert!(stdin.get(field).is_some(), "{field} missing in {stdin}");
    }
    eprintln!("Claude Code {PINNED}'s PreToolUse stdin: {stdin}\ntool results: {tool_results:?}");
    let session = stdin["session_id"].as_str().unwrap();
    let shown = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", &data)
        .args(["sessions", "show", session])
        .output()
        .unwrap();
    let events = String::from_utf8_lossy(&shown.stdout);
    assert!(
        events.contains(r#""decision":"deny""#) && events.contains("toolu_scripted_push"),
        "the call is in Gatehouse's ledger: {events}"
    );
    let status = gatehouse(&data, &home, &project, &["claude-code", "status"]);
    assert_eq!(
        status["last_call"]["claude_code_version"], PINNED,
        "{status}"
    );
}

/// Claude Code's own sandbox on (`sandbox.enabled`,
/// `autoAllowBashIfSandboxed`): a command it confines and auto-allows is
/// left to it by Gatehouse's PreToolUse (no decision), so it runs without a
/// prompt — before, Gatehouse answered "ask", which print mode turns into a
/// denial. The ledger says Claude Code's sandbox settled it.
#[test]
fn a_command_real_claude_codes_sandbox_auto_allows_runs_unasked_under_the_guard() {
    let Some(claude) = claude_code::claude() else {
        return;
    };
    for (tool, package) in [("bwrap", "bubblewrap"), ("socat", "socat")] {
        let install = format!("Claude Code's sandbox needs it: apt-get install {package}");
        if gatehouse_test_support::require_tool(tool, &install).is_none() {
            return;
        }
    }
    let root = tempfile::tempdir().unwrap();
    let [home, project, data] = ["home", "project", "data"].map(|d| {
        let p = root.path().join(d);
        std::fs::create_dir_all(&p).unwrap();
        p.canonicalize().unwrap()
    });
    claude_code::trust_project(&home, &project).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        json!({"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}).to_string(),
    )
    .unwrap();
    let guarded = gatehouse(&data, &home, &project, &["claude-code", "guard"]);
    assert_eq!(guarded["installed"], true);

    let api = ScriptedApi::start(|body: &Value| {
        if claude_code::offers_tool(body, "Bash") && claude_code::tool_results(body).is_empty() {
            Reply::tool(
                "toolu_sandboxed_touch",
                "Bash",
                json!({"command": "touch made_in_the_sandbox.txt", "description": "Make a file"}),
            )
        } else {
            Reply::Text("Done.".to_owned())
        }
    })
    .unwrap();
    let data_dir: &Path = &data;
    let out = claude_code::print_mode(
        &claude,
        &home,
        &project,
        &api.url,
        "make a file",
        &[("GATEHOUSE_DATA_DIR", data_dir)],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "claude -p failed ({:?}):\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["permission_denials"], json!([]), "{report}");
    assert!(
        project.join("made_in_the_sandbox.txt").exists(),
        "the command ran: {report}"
    );

    let shown = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", &data)
        .args(["sessions", "show", report["session_id"].as_str().unwrap()])
        .output()
        .unwrap();
    let events = String::from_utf8_lossy(&shown.stdout);
    assert!(
        events.contains("toolu_sandboxed_touch") && events.contains("claude_code_sandbox"),
        "the ledger says Claude Code's sandbox settled it: {events}"
    );
}
