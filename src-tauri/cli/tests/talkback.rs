//! Issue 20 through `gatehouse-cli run` as a real process: AskUserQuestion
//! answered by `--answer` (or not: "no user to ask"), TodoWrite's lists
//! (and one refused with the field named), the plan mode round trip
//! approved (`--ask allow`) and kept planning (`--ask deny`), bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

struct Fixture {
    data: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self {
            data: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    /// Runs a replay of `turns` (each a list of content blocks) with
    /// `extra` flags; returns the JSON lines, checking the exit status.
    fn run(&self, turns: &[Value], extra: &[&str]) -> Vec<Value> {
        let script: PathBuf = self.data.path().join("script.json");
        let turns: Vec<Value> = turns.iter().map(|c| json!({ "content": c })).collect();
        std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
            .env("GATEHOUSE_DATA_DIR", self.data.path())
            .env("HOME", self.data.path())
            .args(["run", "--provider", "replay", "--prompt", "go", "--project"])
            .arg(self.project.path())
            .arg("--script")
            .arg(&script)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "exit {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    fn project(&self) -> &Path {
        self.project.path()
    }
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn done() -> Value {
    json!([{"type": "text", "text": "Done."}])
}

/// The `tool_completed` of call `id`: (status, text).
fn completed(lines: &[Value], id: &str) -> (String, String) {
    let c = lines
        .iter()
        .find(|l| l["type"] == "tool_completed" && l["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no tool_completed for {id}"));
    (
        c["status"].as_str().unwrap().to_owned(),
        c["content"][0]["text"].as_str().unwrap_or("").to_owned(),
    )
}

fn of_type<'a>(lines: &'a [Value], t: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == t).collect()
}

fn questions() -> Value {
    json!({"questions": [
        {"question": "Which library?", "header": "Library", "multiSelect": false,
         "options": [{"label": "React", "description": "components"},
                     {"label": "Vue", "description": "templates"}]},
        {"question": "Which checks should run?", "header": "Checks", "multiSelect": true,
         "options": [{"label": "lint", "description": "eslint"},
                     {"label": "types", "description": "tsc"},
                     {"label": "tests", "description": "vitest"}]}
    ]})
}

#[test]
fn ask_user_question_is_answered_by_the_script() {
    let f = Fixture::new();
    let lines = f.run(
        &[
            json!([tool_use("q1", "AskUserQuestion", questions())]),
            done(),
        ],
        &[
            "--answer",
            "library=vue",
            "--answer",
            "Checks=lint",
            "--answer",
            "Checks=tests",
            // Even with every prompt allowed, nothing answers for the user.
            "--ask",
            "allow",
        ],
    );
    let (status, text) = completed(&lines, "q1");
    assert_eq!(status, "ok");
    assert_eq!(
        text,
        "User has answered your questions: \"Which library?\"=\"Vue\", \
         \"Which checks should run?\"=\"lint, tests\". You can now continue with the user's answers in mind."
    );
    let asked = of_type(&lines, "interaction_requested");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["interaction"]["kind"], "questions");
    assert_eq!(asked[0]["interaction"]["questions"][1]["multiSelect"], true);
    let answered = of_type(&lines, "interaction_answered");
    assert_eq!(answered[0]["reply"]["kind"], "answers");
    assert_eq!(
        answered[0]["reply"]["answers"][0]["selected"],
        json!(["Vue"])
    );
    // The decision says the user answered; no rule or mode approved it.
    let decided = of_type(&lines, "permission_decided");
    assert_eq!(decided[0]["decision"], "allow");
    assert_eq!(decided[0]["reason"]["kind"], "user_answer");
}

#[test]
fn ask_user_question_without_answers_or_in_dont_ask_says_no_user() {
    let f = Fixture::new();
    // An answer for one question only; an "Other" text for it.
    let lines = f.run(
        &[
            json!([tool_use("q1", "AskUserQuestion", questions())]),
            done(),
        ],
        &["--answer", "Library=Svelte"],
    );
    let (status, text) = completed(&lines, "q1");
    assert_eq!(status, "ok");
    assert_eq!(
        text,
        "No answer to your questions: there is no user to ask in this headless run, and no \
         --answer was given for \"Checks\". Continue without the answers: decide what you can on \
         your own and say what you assumed."
    );

    let lines = f.run(
        &[
            json!([tool_use("q2", "AskUserQuestion", questions())]),
            done(),
        ],
        &["--mode", "dontAsk", "--answer", "Library=Vue"],
    );
    let (status, text) = completed(&lines, "q2");
    assert_eq!(status, "denied");
    assert_eq!(
        text,
        "AskUserQuestion needs an answer from the user, but there is no user to ask in this \
         session (the session is in dontAsk mode, where every prompt is refused), so nobody \
         answered. Continue without the answer: decide what you can on your own and say what \
         you assumed."
    );
    assert!(of_type(&lines, "interaction_requested").is_empty());
}

#[test]
fn bad_questions_are_refused_with_the_field_named() {
    let f = Fixture::new();
    let mut five = questions();
    five["questions"][0]["options"] = json!([
        {"label": "a", "description": "1"}, {"label": "b", "description": "2"},
        {"label": "c", "description": "3"}, {"label": "d", "description": "4"},
        {"label": "e", "description": "5"}]);
    let mut dup = questions();
    dup["questions"][1]["options"][2]["label"] = json!("Lint");
    let mut one = questions();
    one["questions"][0]["options"] = json!([{"label": "a", "description": "1"}]);
    let lines = f.run(
        &[
            json!([tool_use("five", "AskUserQuestion", five)]),
            json!([tool_use("dup", "AskUserQuestion", dup)]),
            json!([tool_use("one", "AskUserQuestion", one)]),
            done(),
        ],
        &["--answer", "Library=React"],
    );
    let (status, text) = completed(&lines, "five");
    assert_eq!(status, "error");
    assert!(
        text.contains("questions[0].options: value has more than 4 items"),
        "{text}"
    );
    let (status, text) = completed(&lines, "dup");
    assert_eq!(status, "error");
    assert!(
        text.contains("questions[1].options[2].label: \"Lint\" is the label of an earlier option"),
        "{text}"
    );
    let (_, text) = completed(&lines, "one");
    assert!(
        text.contains("questions[0].options: value has less than 2 items"),
        "{text}"
    );
    // The session went on to its last turn.
    assert_eq!(
        of_type(&lines, "session_completed")[0]["status"],
        "completed"
    );
}

#[test]
fn todo_lists_update_and_two_in_progress_are_refused() {
    let f = Fixture::new();
    let item =
        |c: &str, s: &str| json!({"content": c, "activeForm": format!("{c}ing"), "status": s});
    let lines = f.run(
        &[
            json!([tool_use(
                "t1",
                "TodoWrite",
                json!({"todos": [item("Read", "in_progress"), item("Fix", "pending")]})
            )]),
            json!([tool_use(
                "t2",
                "TodoWrite",
                json!({"todos": [item("Read", "in_progress"), item("Fix", "in_progress")]})
            )]),
            json!([tool_use(
                "t3",
                "TodoWrite",
                json!({"todos": [item("Read", "completed"), item("Fix", "in_progress")]})
            )]),
            done(),
        ],
        &[],
    );
    let (status, text) = completed(&lines, "t1");
    assert_eq!(status, "ok");
    assert_eq!(
        text,
        "Todos have been modified successfully. Ensure that you continue to use the todo list to \
         track your progress. Please proceed with the current tasks if applicable"
    );
    let (status, text) = completed(&lines, "t2");
    assert_eq!(status, "error");
    assert!(
        text.contains("todos[1].status: todos[0] is already in_progress; at most one item may be in_progress at a time"),
        "{text}"
    );
    // Typed progress: the UI's panel reads it, never the text.
    let updates: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "tool_progress" && l["data"]["kind"] == "todos_updated")
        .collect();
    assert_eq!(updates.len(), 2, "the refused list is never shown");
    assert_eq!(updates[1]["data"]["todos"][1]["status"], "in_progress");
    assert_eq!(updates[1]["data"]["todos"][0]["activeForm"], "Reading");

    // The current list, rebuilt from the stored events.
    let store = gatehouse_store::Store::open(f.data.path()).unwrap();
    let session = lines[0]["session_id"].as_str().unwrap();
    let (events, _) = store.session_events(session).unwrap();
    let current = gatehouse_session::todos::current_todos(&events);
    assert_eq!(current.len(), 2);
    assert_eq!(current[0].content, "Read");
    assert_eq!(
        current[1].status,
        gatehouse_protocol::interaction::TodoStatus::InProgress
    );
}

/// EnterPlanMode, a Write refused in plan mode, ExitPlanMode, the Write again.
fn plan_round_trip() -> Vec<Value> {
    let write = |id: &str| {
        tool_use(
            id,
            "Write",
            json!({"file_path": "${PROJECT_DIR}/plan.txt", "content": "x"}),
        )
    };
    vec![
        json!([tool_use("enter", "EnterPlanMode", json!({}))]),
        json!([write("w1")]),
        json!([tool_use(
            "exit",
            "ExitPlanMode",
            json!({"plan": "# Plan\n\n1. Write plan.txt"})
        )]),
        json!([write("w2")]),
        done(),
    ]
}

#[test]
fn a_plan_approved_by_ask_allow_leaves_plan_mode() {
    let f = Fixture::new();
    let lines = f.run(&plan_round_trip(), &["--ask", "allow"]);
    let (status, text) = completed(&lines, "enter");
    assert_eq!(status, "ok");
    assert_eq!(
        text,
        "Entered plan mode.\n\nIn plan mode, you should:\n1. Explore codebase\n2. Design approach\n3. Use ExitPlanMode when ready"
    );
    let (status, text) = completed(&lines, "w1");
    assert_eq!(status, "denied");
    assert_eq!(
        text,
        "Write was not run: the session is in plan mode, where only read-only tools run until the \
         user approves a plan. Keep exploring with read-only tools, then present your plan with \
         ExitPlanMode; once the user approves it, calls like this one can run."
    );
    let (status, text) = completed(&lines, "exit");
    assert_eq!(status, "ok");
    assert_eq!(
        text,
        "User has approved your plan. You can now start coding. Start with updating your todo list \
         if applicable\n\nThe session has left plan mode and is now in default mode: edits and \
         commands ask the user as usual."
    );
    let (status, _) = completed(&lines, "w2");
    assert_eq!(
        status, "ok",
        "--ask allow allows the Write once plan mode is over"
    );
    assert!(f.project().join("plan.txt").exists());
    // The mode changes are events, in order.
    let modes: Vec<&str> = of_type(&lines, "mode_changed")
        .iter()
        .map(|l| l["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["plan", "default"]);
    let plan = of_type(&lines, "interaction_requested");
    assert_eq!(plan[0]["interaction"]["kind"], "plan_approval");
    assert_eq!(
        plan[0]["interaction"]["plan"],
        "# Plan\n\n1. Write plan.txt"
    );
    assert_eq!(
        of_type(&lines, "interaction_answered")[0]["reply"],
        json!({"kind": "plan_approved", "mode": "default"})
    );
}

#[test]
fn a_plan_refused_by_ask_deny_keeps_planning() {
    let f = Fixture::new();
    let lines = f.run(&plan_round_trip(), &[]);
    let (status, text) = completed(&lines, "exit");
    assert_eq!(status, "ok");
    assert_eq!(
        text,
        "The user did not approve the plan and wants you to keep planning. The session is still in \
         plan mode: only read-only tools run. Revise the plan and present it again with \
         ExitPlanMode. The user said:\nThis is a headless run and nobody can approve the plan \
         (--ask deny)."
    );
    let (status, _) = completed(&lines, "w2");
    assert_eq!(status, "denied", "still in plan mode");
    assert!(!f.project().join("plan.txt").exists());
    let modes: Vec<&str> = of_type(&lines, "mode_changed")
        .iter()
        .map(|l| l["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["plan"]);
}

#[test]
fn exit_plan_mode_outside_plan_mode_is_an_error_and_the_session_goes_on() {
    let f = Fixture::new();
    let lines = f.run(
        &[
            json!([tool_use("exit", "ExitPlanMode", json!({"plan": "# Plan"}))]),
            done(),
        ],
        &["--ask", "allow"],
    );
    let (status, text) = completed(&lines, "exit");
    assert_eq!(status, "error");
    assert!(
        text.contains("the session is not in plan mode (it is in default mode)"),
        "{text}"
    );
    assert!(of_type(&lines, "mode_changed").is_empty());
    assert_eq!(
        of_type(&lines, "session_completed")[0]["status"],
        "completed"
    );
}

#[test]
fn a_malformed_answer_flag_is_refused_before_the_session() {
    let f = Fixture::new();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", f.data.path())
        .args([
            "run",
            "--provider",
            "replay",
            "--script",
            "x.json",
            "--project",
        ])
        .arg(f.project())
        .args(["--answer", "Library"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("expected HEADER=OPTION"), "{stderr}");
}
