//! The CLI as users' scripts see it: a real process, real data directory.

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
