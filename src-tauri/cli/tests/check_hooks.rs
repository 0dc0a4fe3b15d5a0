//! `gatehouse-cli check --run-hooks` (issue 18): the PreToolUse hooks of
//! the settings run for real and the report says what they said; without
//! the flag nothing runs and the output is what it was.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn check(project: &Path, extra: &[&str]) -> Value {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", data.path())
        .args([
            "check",
            "--tool",
            "Bash",
            "--input",
            r#"{"command": "ls"}"#,
            "--home",
        ])
        .arg(home.path())
        .arg("--project")
        .arg(project)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn run_hooks_reports_the_hooks_and_the_decision_with_them() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join(".claude")).unwrap();
    std::fs::write(
        project.path().join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat >/dev/null; touch ran; echo 'not in CI' >&2; exit 2"}]}]}}"#,
    )
    .unwrap();

    let plain = check(project.path(), &["--trust-project"]);
    assert!(plain.get("hooks").is_none(), "additive only: {plain}");
    assert!(
        !project.path().join("ran").exists(),
        "no hook runs without the flag"
    );

    let untrusted = check(project.path(), &["--run-hooks"]);
    assert_eq!(untrusted["hooks"], serde_json::json!([]));
    assert!(
        untrusted["hooks_not_run"][0]
            .as_str()
            .unwrap()
            .contains("not trusted")
    );
    assert!(!project.path().join("ran").exists());

    let report = check(project.path(), &["--run-hooks", "--trust-project"]);
    assert!(project.path().join("ran").exists());
    assert_eq!(
        report["decision"], "allow",
        "the engine alone: ls is read-only"
    );
    assert_eq!(report["hooks"][0]["decision"], "deny");
    assert_eq!(report["hooks"][0]["run"]["exit_code"], 2);
    assert_eq!(report["with_hooks"]["decision"], "deny");
    let trace = report["with_hooks"]["trace"].to_string();
    assert!(trace.contains("PreToolUse hook `cat >/dev/null; touch ran; echo 'not in CI' >&2; exit 2` (project settings) denied"), "{trace}");
}
