//! `gatehouse-cli rules lint` and `rules replay` as real processes, over
//! real settings files and a real SQLite store filled by `run --provider
//! replay` sessions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

struct Fixture {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    project: PathBuf,
    home: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let (data, project, home) = (root.join("data"), root.join("project"), root.join("home"));
        for dir in [&data, &project.join(".claude"), &home.join(".claude")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(project.join("README.md"), "hello").unwrap();
        Fixture {
            _tmp: tmp,
            data,
            project,
            home,
        }
    }

    fn cli(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
        cmd.env("GATEHOUSE_DATA_DIR", &self.data)
            .env("HOME", &self.home)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY");
        cmd
    }

    fn write(&self, path: &Path, value: &Value) -> PathBuf {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        path.to_path_buf()
    }

    /// Runs one replay-provider session calling each of `calls` in one turn;
    /// prompts are denied (`--ask deny`). Returns the printed events.
    fn run_session(&self, calls: &[Value], extra: &[&str]) -> Vec<Value> {
        let content: Vec<Value> = calls
            .iter()
            .map(|c| json!({"type": "tool_use", "name": c[0], "input": c[1]}))
            .collect();
        let script = self.write(
            &self.data.join("script.json"),
            &json!({"turns": [
                {"content": content},
                {"content": [{"type": "text", "text": "Done."}]}
            ]}),
        );
        let out = self
            .cli()
            .args(["run", "--provider", "replay", "--prompt", "go", "--project"])
            .arg(&self.project)
            .arg("--script")
            .arg(script)
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

    fn rules(&self, args: &[&str]) -> (Output, Value) {
        let out = self.cli().arg("rules").args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "{e}: {stdout}\nstderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out, value)
    }

    fn replay(&self, extra: &[&str]) -> Value {
        let mut args = vec!["replay", "--project"];
        let project = self.project.to_str().unwrap().to_owned();
        let home = self.home.to_str().unwrap().to_owned();
        args.push(&project);
        args.extend(["--home", &home]);
        args.extend(extra);
        let (out, value) = self.rules(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        value
    }
}

fn decision_of(events: &[Value], tool_use_id: &str) -> String {
    events
        .iter()
        .find(|e| e["type"] == "permission_decided" && e["tool_use_id"] == tool_use_id)
        .map(|e| e["decision"].as_str().unwrap().to_owned())
        .unwrap()
}

fn change_count(report: &Value, from: &str, to: &str) -> u64 {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["from"] == from && c["to"] == to)
        .map_or(0, |c| c["count"].as_u64().unwrap())
}

#[test]
fn replay_counts_and_lists_the_calls_an_edit_would_change() {
    let f = Fixture::new();
    let project_settings = f.write(
        &f.project.join(".claude/settings.json"),
        &json!({"permissions": {"allow": ["Bash(mkdir made-dir)"]}, "model": "kept"}),
    );
    let readme = f.project.join("README.md").display().to_string();
    let events = f.run_session(
        &[
            json!(["Bash", {"command": "mkdir made-dir"}]),
            json!(["Read", {"file_path": readme}]),
            json!(["Bash", {"command": "touch made-by-agent"}]),
        ],
        &["--trust-project", "--ask", "deny"],
    );
    let queued: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_queued")
        .collect();
    assert_eq!(queued.len(), 3);
    let ids: Vec<&str> = queued
        .iter()
        .map(|e| e["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(decision_of(&events, ids[0]), "allow");
    assert_eq!(decision_of(&events, ids[1]), "allow");
    // Headless: the prompt was answered `deny`; the engine asked.
    assert_eq!(decision_of(&events, ids[2]), "deny");
    let session_id = events[0]["session_id"].as_str().unwrap();

    // The rules as they are: nothing changes.
    let same = f.replay(&["--trust-project"]);
    assert_eq!(same["total"], 3, "{same}");
    assert_eq!(same["unchanged"], 3, "{same}");
    assert_eq!(same["changed_calls"], json!([]));

    // A deny rule from a --settings file: the allowed mkdir becomes a deny.
    let deny = f.write(
        &f.data.join("deny.json"),
        &json!({"permissions": {"deny": ["Bash(mkdir:*)"]}}),
    );
    let report = f.replay(&["--trust-project", "--settings", deny.to_str().unwrap()]);
    assert_eq!(report["total"], 3);
    assert_eq!(report["unchanged"], 2);
    assert_eq!(change_count(&report, "allow", "deny"), 1, "{report}");
    let changed = &report["changed_calls"][0];
    assert_eq!(changed["session_id"], session_id);
    assert_eq!(changed["tool_use_id"], ids[0]);
    assert_eq!(changed["tool_name"], "Bash");
    assert_eq!(changed["input"]["command"], "mkdir made-dir");
    assert_eq!(changed["from"], "allow");
    assert_eq!(changed["to"], "deny");
    assert_eq!(changed["new_reason"]["rule"], "Bash(mkdir:*)");
    // `seq` is the position of the call's `tool_queued` event.
    let position = events
        .iter()
        .position(|e| e["type"] == "tool_queued" && e["tool_use_id"] == ids[0])
        .unwrap();
    assert_eq!(changed["seq"], position as u64 + 1);

    // An edited (unsaved) project file replacing the one on disk: the
    // mkdir loses its allow rule (allow → ask) and touch gains one
    // (ask → allow). The file on disk is untouched.
    let edited = f.write(
        &f.data.join("edited.json"),
        &json!({"permissions": {"allow": ["Bash(touch made-by-agent)"]}}),
    );
    let edit = format!("{}={}", project_settings.display(), edited.display());
    let report = f.replay(&["--trust-project", "--edit", &edit]);
    assert_eq!(change_count(&report, "allow", "ask"), 1, "{report}");
    assert_eq!(change_count(&report, "ask", "allow"), 1, "{report}");
    assert_eq!(report["unchanged"], 1);
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(&project_settings).unwrap()).unwrap();
    assert_eq!(
        on_disk["permissions"]["allow"],
        json!(["Bash(mkdir made-dir)"])
    );

    // Without trust the project's allow rule does not apply.
    let untrusted = f.replay(&[]);
    assert_eq!(change_count(&untrusted, "allow", "ask"), 1, "{untrusted}");

    // Filters: a date after every call, another session, the limit.
    assert_eq!(f.replay(&["--since", "9999-01-01"])["total"], 0);
    assert_eq!(
        f.replay(&["--since", "2000-01-01", "--trust-project"])["total"],
        3
    );
    assert_eq!(f.replay(&["--session", "no-such-session"])["total"], 0);
    let limited = f.replay(&["--limit", "0"]);
    assert_eq!(limited["changed_calls"], json!([]));
    assert_eq!(limited["changed_calls_truncated"], true);
}

#[test]
fn replay_follows_mode_changes_and_sessions_of_other_projects_stay_out() {
    let f = Fixture::new();
    // Bypass mode: the session allowed `touch`; replayed in the session's
    // mode, it still is.
    let events = f.run_session(
        &[json!(["Bash", {"command": "touch x"}])],
        &["--mode", "bypassPermissions"],
    );
    assert_eq!(
        decision_of(
            &events,
            events.iter().find(|e| e["type"] == "tool_queued").unwrap()["tool_use_id"]
                .as_str()
                .unwrap()
        ),
        "allow"
    );
    let other = Fixture::new();
    other.run_session(&[json!(["Bash", {"command": "touch y"}])], &[]);
    let report = f.replay(&[]);
    assert_eq!(report["total"], 1, "{report}");
    assert_eq!(report["unchanged"], 1, "{report}");
    // A deny rule wins even in bypass mode.
    let deny = f.write(
        &f.data.join("deny.json"),
        &json!({"permissions": {"deny": ["Bash(touch:*)"]}}),
    );
    let report = f.replay(&["--settings", deny.to_str().unwrap()]);
    assert_eq!(change_count(&report, "allow", "deny"), 1, "{report}");
    assert_eq!(report["changed_calls"][0]["mode"], "bypassPermissions");
}

#[test]
fn replay_refuses_bad_arguments() {
    let f = Fixture::new();
    let project = f.project.to_str().unwrap();
    for args in [
        vec!["replay", "--project", project, "--since", "last tuesday"],
        vec![
            "replay",
            "--project",
            project,
            "--settings",
            "/no/such/file.json",
        ],
        vec!["replay", "--project", project, "--edit", "no-equals-sign"],
        vec!["replay", "--project", "/no/such/project"],
    ] {
        let out = f.cli().arg("rules").args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("gatehouse-cli: error:"),
            "{args:?}: {stderr}"
        );
    }
}

fn lint(f: &Fixture) -> (Output, Value) {
    f.rules(&[
        "lint",
        "--project",
        f.project.to_str().unwrap(),
        "--home",
        f.home.to_str().unwrap(),
    ])
}

#[test]
fn lint_reports_errors_with_positions_and_exits_1() {
    let f = Fixture::new();
    std::fs::write(
        f.project.join(".claude/settings.json"),
        "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*)\", \"Bash(rm\"]\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        f.home.join(".claude/settings.json"),
        "{\"permissions\": [1,\n",
    )
    .unwrap();
    let (out, report) = lint(&f);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert_eq!(report["errors"], 2, "{report}");
    let problems = report["problems"].as_array().unwrap();
    let rule_error = problems
        .iter()
        .find(|p| {
            p["file"]
                .as_str()
                .unwrap()
                .ends_with("project/.claude/settings.json")
        })
        .unwrap();
    assert_eq!(rule_error["severity"], "error");
    assert_eq!(rule_error["code"], "settings_error");
    assert_eq!(rule_error["line"], 3);
    // The rule starts at column 28; its missing `)` is 8 characters in.
    assert_eq!(rule_error["column"], 36, "{rule_error}");
    assert_eq!(rule_error["loses_restrictions"], true);
    let json_error = problems
        .iter()
        .find(|p| {
            p["file"]
                .as_str()
                .unwrap()
                .ends_with("home/.claude/settings.json")
        })
        .unwrap();
    assert_eq!(json_error["line"], 2, "{json_error}");
    let sources: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["source"].as_str().unwrap())
        .collect();
    assert_eq!(&sources[sources.len() - 3..], ["local", "project", "user"]);
}

#[test]
fn lint_warnings_do_not_fail_and_a_clean_project_passes() {
    let f = Fixture::new();
    let (out, report) = lint(&f);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["problems"], json!([]));

    f.write(
        &f.project.join(".claude/settings.local.json"),
        &json!({"permissions": {"allow": ["Bash(git push --force)", "Read(src/**)"], "deny": ["Bash(git push:*)"]}}),
    );
    f.write(
        &f.project.join(".claude/settings.json"),
        &json!({"permissions": {"allow": ["Read(src/**)"]}}),
    );
    let (out, report) = lint(&f);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["errors"], 0);
    let codes: Vec<(&str, &str)> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["code"].as_str().unwrap(), p["rule"].as_str().unwrap()))
        .collect();
    assert!(
        codes.contains(&("shadowed_by_deny", "Bash(git push --force)")),
        "{codes:?}"
    );
    assert!(codes.contains(&("duplicate", "Read(src/**)")), "{codes:?}");
    assert_eq!(report["warnings"], 2, "{report}");
}
