//! `gatehouse-cli run --resume` restores the session's "allow for this
//! session" rules (granted in the app, stored in SQLite) along with its
//! history: a call they cover runs even with `--ask deny`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use gatehouse_store::Store;
use serde_json::{Value, json};

fn run(
    data: &std::path::Path,
    project: &std::path::Path,
    script: &Value,
    extra: &[&str],
) -> Vec<Value> {
    let path = data.join(format!("script-{}.json", extra.len()));
    std::fs::write(&path, script.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", data)
        .args(["run", "--provider", "replay", "--ask", "deny", "--project"])
        .arg(project)
        .arg("--script")
        .arg(&path)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn touch_script(id: &str) -> Value {
    json!({"turns": [
        {"content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "touch granted.txt"}}]},
        {"content": [{"type": "text", "text": "ok"}]}
    ]})
}

#[test]
fn a_resumed_run_has_the_sessions_rules_again() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    // First run: nobody can approve, so the call is denied.
    let first = run(data.path(), project.path(), &touch_script("t1"), &[]);
    let session = first[0]["session_id"].as_str().unwrap().to_owned();
    assert!(!project.path().join("granted.txt").exists());
    // The user allows it for the session (in the app), which stores the rule.
    Store::open(data.path())
        .unwrap()
        .add_session_rule(&session, "allow", "Bash(touch granted.txt)")
        .unwrap();
    let resumed = run(
        data.path(),
        project.path(),
        &touch_script("t2"),
        &["--resume", &session],
    );
    assert!(
        project.path().join("granted.txt").exists(),
        "the restored rule allowed it"
    );
    let decided = resumed
        .iter()
        .find(|l| l["type"] == "permission_decided" && l["tool_use_id"] == "t2")
        .unwrap();
    assert_eq!(decided["decision"], "allow");
    assert_eq!(decided["reason"]["kind"], "rule");
    assert_eq!(decided["reason"]["source"], "session");
}
