//! `gatehouse-cli check` refuses inputs a session's pipeline would refuse
//! before any permission decision (issue 16 item 11): schema first, then the
//! tool's own validation, exit 2 with the field named.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

fn check(project: &Path, tool: &str, input: &str) -> Output {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", data.path())
        .args(["check", "--tool", tool, "--input", input, "--home"])
        .arg(home.path())
        .arg("--project")
        .arg(project)
        .output()
        .unwrap()
}

#[test]
fn inputs_the_pipeline_refuses_are_reported_with_the_field_and_exit_2() {
    let project = tempfile::tempdir().unwrap();
    for (tool, input, field) in [
        // A misspelt field: `command` is missing, `cmd` is not in the schema.
        ("Bash", r#"{"cmd": "ls"}"#, "command"),
        ("Bash", r#"{"command": 42}"#, "command"),
        // Schema-valid, but Read's own validation refuses an empty path.
        ("Read", r#"{"file_path": ""}"#, "file_path"),
        ("Read", r#"{"file_path": "relative/a.txt"}"#, "file_path"),
        ("Bash", r#"["ls"]"#, "JSON object"),
    ] {
        let out = check(project.path(), tool, input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{tool} {input}: {stderr}");
        assert!(stderr.contains(field), "{tool} {input}: {stderr}");
        assert!(out.stdout.is_empty(), "no decision is printed for {input}");
    }
    let out = check(project.path(), "Bash", r#"{"cmd": "ls"}"#);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("schema") && stderr.contains("cmd"),
        "{stderr}"
    );
}

#[test]
fn valid_inputs_and_tools_without_a_local_schema_are_still_decided() {
    let project = tempfile::tempdir().unwrap();
    let file = project.path().join("a.txt");
    std::fs::write(&file, "hi").unwrap();
    let input = serde_json::json!({ "file_path": file }).to_string();
    for (tool, input) in [
        ("Read", input.as_str()),
        ("Bash", r#"{"command": "ls"}"#),
        // An MCP tool's schema lives in its server: decided, with a note.
        ("mcp__github__create_issue", r#"{"title": "x"}"#),
    ] {
        let out = check(project.path(), tool, input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{tool}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(report["decision"].is_string(), "{report}");
        if tool.starts_with("mcp__") {
            assert!(stderr.contains("not checked"), "{stderr}");
        }
    }
}
