//! The CLI as users' scripts see it: a real process, real data directory.
#![allow(clippy::unwrap_used)]

use std::process::Command;

fn cli(data_dir: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
    cmd.env("GATEHOUSE_DATA_DIR", data_dir);
    cmd
}

#[test]
fn version_and_help_describe_the_cli() {
    let data = tempfile::tempdir().unwrap();
    let out = cli(data.path()).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("gatehouse-cli {}", env!("CARGO_PKG_VERSION"))
    );
    let out = cli(data.path()).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("GATEHOUSE_DATA_DIR"), "{help}");
    assert!(help.contains("projects"), "{help}");
}

/// stderr is the CLI's contract too: a first run on a fresh data directory
/// (no `logs/` yet) once printed the log appender's "Error reading the log
/// directory/files" there.
#[test]
fn a_first_run_on_a_fresh_data_directory_writes_nothing_to_stderr() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("fresh");
    let out = cli(&data).args(["projects", "list"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(data.join("logs").is_dir());
}

#[test]
fn projects_added_are_listed_as_json_lines_in_the_data_dir() {
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let out = cli(data.path())
        .args(["projects", "add"])
        .arg(folder.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let added: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(data.path().join("gatehouse.sqlite3").exists());

    let out = cli(data.path())
        .args(["projects", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, [added]);
    assert_eq!(
        lines[0]["path"],
        folder.path().canonicalize().unwrap().to_str().unwrap()
    );
}

#[test]
fn a_damaged_database_is_an_error_naming_the_file() {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(
        data.path().join("gatehouse.sqlite3"),
        b"garbage".repeat(1000),
    )
    .unwrap();
    let out = cli(data.path())
        .args(["projects", "list"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("gatehouse.sqlite3"), "{err}");
    assert!(err.contains("not a database"), "{err}");
}

fn check(args: &[&str], home: &std::path::Path) -> serde_json::Value {
    let data = tempfile::tempdir().unwrap();
    let out = cli(data.path())
        .arg("check")
        .arg("--home")
        .arg(home)
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
fn check_explains_a_project_deny_rule_and_the_default_ask() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join(".claude")).unwrap();
    std::fs::write(
        project.path().join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#,
    )
    .unwrap();
    let project_arg = project.path().to_str().unwrap();

    let denied = check(
        &[
            "--project",
            project_arg,
            "--tool",
            "Bash",
            "--input",
            r#"{"command": "ls && rm -rf build"}"#,
        ],
        home.path(),
    );
    assert_eq!(denied["decision"], "deny", "{denied}");
    assert_eq!(denied["reason"]["kind"], "rule", "{denied}");
    assert_eq!(denied["reason"]["rule"], "Bash(rm:*)", "{denied}");
    assert!(denied["trace"].as_array().is_some_and(|t| !t.is_empty()));

    let asked = check(
        &[
            "--project",
            project_arg,
            "--tool",
            "Bash",
            "--input",
            r#"{"command": "npm publish"}"#,
        ],
        home.path(),
    );
    assert_eq!(asked["decision"], "ask", "{asked}");
}

#[test]
fn check_refuses_input_that_is_not_json() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = cli(data.path())
        .args([
            "check",
            "--tool",
            "Read",
            "--input",
            "{not json",
            "--project",
        ])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--input is not valid JSON"));
}
