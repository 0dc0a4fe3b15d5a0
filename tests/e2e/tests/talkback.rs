//! The agent talks back, in the real window (issue 20 item 6): a replayed
//! model's AskUserQuestion answered with the keyboard (the answer stored as
//! the call's tool_result); a todo list updated three times, its final
//! state in the panel, in the session browser's reader and after resume; a
//! plan (ExitPlanMode) approved with acceptEdits, after which a Write runs
//! unasked; a background `sleep` with coloured live output stopped from the
//! tasks panel, the process gone from /proc, its output file opened; the
//! mode menu reaching every mode, bypassPermissions behind a confirmation
//! and disabled by policy. Each new dialog and panel is screenshotted
//! (`talkback-*.png`) and checked for overflow and overlap at every window
//! size, as `layout.rs` checks the other screens. Relies only on the test
//! ids listed at the top of ui/src/session/SessionScreen.tsx (and the
//! components it names).

use std::path::{Path, PathBuf};

use anyhow::Context;
use gatehouse_e2e::{App, LAYOUT_SIZES, screenshot_dir, setup, until};
use serde_json::{Value, json};

fn tool(id: &str, name: &str, input: Value) -> Value {
    json!({"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]})
}

fn text(t: &str) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
}

/// A project folder and a replay script of `turns` in a fresh temp dir.
struct Project {
    folders: tempfile::TempDir,
    dir: PathBuf,
}

impl Project {
    fn new(name: &str) -> anyhow::Result<Self> {
        let folders = tempfile::tempdir()?;
        let dir = folders.path().join(name);
        std::fs::create_dir(&dir)?;
        let dir = dir.canonicalize()?;
        Ok(Self { folders, dir })
    }

    fn script(&self, name: &str, turns: &[Value]) -> anyhow::Result<PathBuf> {
        let path = self.folders.path().join(name);
        std::fs::write(
            &path,
            serde_json::to_vec_pretty(&json!({ "turns": turns }))?,
        )?;
        Ok(path)
    }

    fn text(&self) -> String {
        self.dir.display().to_string()
    }
}

fn no_problems(problems: &[String]) {
    assert!(
        problems.is_empty(),
        "layout problems:\n{}",
        problems.join("\n")
    );
}

/// Launches the app on `data` with `project` as the picked folder (and
/// `env`), and starts a replay session of `script` in it.
async fn open(
    app: &Path,
    driver: &Path,
    data: &Path,
    project: &Project,
    script: &Path,
    env: &[(&str, &str)],
) -> anyhow::Result<App> {
    let folder = project.text();
    let mut all = vec![("GATEHOUSE_TEST_PICK_FOLDER", folder.as_str())];
    all.extend_from_slice(env);
    let window = App::launch(app, driver, data, &all).await?;
    window.open_replay_session(script).await?;
    Ok(window)
}

async fn wait_reply(window: &App, want: &str) -> anyhow::Result<()> {
    until(&format!("the reply {want:?}"), 60, || async {
        if !window.exists("[data-testid=assistant-text]").await? {
            return Ok(None);
        }
        Ok(window
            .texts("[data-testid=assistant-text]")
            .await?
            .iter()
            .any(|t| t.contains(want))
            .then_some(()))
    })
    .await
}

/// Presses `key` (xdotool's name) as a real X key event; without xdotool,
/// dispatches the same keydown from script (printed as a fallback).
async fn press(window: &App, key: &str, dom_key: &str) -> anyhow::Result<()> {
    if window.press_x_keys(key).await? {
        return Ok(());
    }
    eprintln!("e2e: FALLBACK: {key} dispatched from script, not as a real key press");
    window
        .client
        .execute(
            "(document.activeElement || document.body).dispatchEvent(new KeyboardEvent('keydown', \
             {key: arguments[0], bubbles: true, cancelable: true}));",
            vec![Value::from(dom_key)],
        )
        .await?;
    Ok(())
}

/// The stored events of the only top-level session, as JSON.
fn stored_events(data: &Path) -> anyhow::Result<Vec<Value>> {
    let store = gatehouse_store::Store::open(data)?;
    let sessions: Vec<_> = store
        .list_sessions(None)?
        .into_iter()
        .filter(|s| s.parent_session_id.is_none())
        .collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let (events, _) = store.session_events(&sessions[0].id)?;
    events
        .iter()
        .map(|e| serde_json::to_value(e).context("an event as JSON"))
        .collect()
}

/// The stored `tool_completed` of call `id`: (status, text).
fn completed(events: &[Value], id: &str) -> (String, String) {
    let c = events
        .iter()
        .find(|e| e["type"] == "tool_completed" && e["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no stored tool_completed for {id}"));
    (
        c["status"].as_str().unwrap_or_default().to_owned(),
        c["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

#[tokio::test]
async fn a_question_is_answered_with_number_keys_and_enter_and_the_answer_is_stored()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let project = Project::new("question-project")?;
    let questions = json!({"questions": [
        {"question": "Which library should the widget use?", "header": "Library", "multiSelect": false,
         "options": [{"label": "React", "description": "components and hooks"},
                     {"label": "Vue", "description": "single-file components"},
                     {"label": "Svelte", "description": "compiled, no runtime"}]}
    ]});
    let script = project.script(
        "question.json",
        &[tool("q1", "AskUserQuestion", questions), text("Vue it is.")],
    )?;
    println!("e2e: screenshots go to {}", screenshot_dir().display());
    let window = open(&app, &driver, data.path(), &project, &script, &[]).await?;
    window.send_prompt("Build the widget").await?;
    window
        .wait_for("[data-testid=question-modal][data-tool-use-id=q1]")
        .await?;
    let mut problems = Vec::new();
    window
        .layout_at_sizes(
            "talkback-question-modal",
            "[data-testid=question-modal]",
            &mut problems,
        )
        .await?;
    // The modal has the focus (nothing typed reaches the prompt box).
    window
        .client
        .execute(
            "document.querySelector('[data-testid=question-modal]').focus();",
            vec![],
        )
        .await?;
    press(&window, "2", "2").await?;
    until("option 2 to be selected", 10, || async {
        Ok((window
            .attrs(
                "[data-testid=question-option][data-index='2']",
                "data-selected",
            )
            .await?
            .first()
            .map(String::as_str)
            == Some("true"))
        .then_some(()))
    })
    .await?;
    press(&window, "Return", "Enter").await?;
    wait_reply(&window, "Vue it is.").await?;
    assert!(!window.exists("[data-testid=question-modal]").await?);
    window.quit().await?;

    let events = stored_events(data.path())?;
    let (status, result) = completed(&events, "q1");
    assert_eq!(status, "ok");
    assert_eq!(
        result,
        "User has answered your questions: \"Which library should the widget use?\"=\"Vue\". \
         You can now continue with the user's answers in mind."
    );
    let answered = events
        .iter()
        .find(|e| e["type"] == "interaction_answered")
        .context("a stored interaction_answered")?;
    assert_eq!(answered["reply"]["answers"][0]["selected"], json!(["Vue"]));
    no_problems(&problems);
    Ok(())
}

fn item(content: &str, status: &str) -> Value {
    json!({"content": content, "activeForm": format!("{content}ing"), "status": status})
}

/// The todo panel's items in `scope`: (status, text).
async fn todo_items(window: &App, scope: &str) -> anyhow::Result<Vec<(String, String)>> {
    let css = format!("{scope} [data-testid=todo-panel] [data-testid=todo-item]");
    let states = window.attrs(&css, "data-status").await?;
    let texts = window.texts(&css).await?;
    Ok(states.into_iter().zip(texts).collect())
}

/// Waits for the todo panel in `scope` to list items, then reads them.
async fn wait_todos(window: &App, scope: &str) -> anyhow::Result<Vec<(String, String)>> {
    let css = format!("{scope} [data-testid=todo-item]");
    until(&format!("todo items in {scope}"), 30, || async {
        Ok(window.exists(&css).await?.then_some(()))
    })
    .await?;
    todo_items(window, scope).await
}

#[tokio::test]
async fn a_todo_list_updated_three_times_shows_its_last_state_in_the_reader_and_after_resume()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let project = Project::new("todo-project")?;
    let first = project.script(
        "todos.json",
        &[
            tool(
                "t1",
                "TodoWrite",
                json!({"todos": [item("Read", "in_progress"), item("Fix", "pending"), item("Test", "pending")]}),
            ),
            tool(
                "t2",
                "TodoWrite",
                json!({"todos": [item("Read", "completed"), item("Fix", "in_progress"), item("Test", "pending")]}),
            ),
            tool(
                "t3",
                "TodoWrite",
                json!({"todos": [item("Read", "completed"), item("Fix", "completed"), item("Test", "in_progress")]}),
            ),
            text("Testing now."),
        ],
    )?;
    let second = project.script("again.json", &[text("Still here.")])?;
    let window = open(&app, &driver, data.path(), &project, &first, &[]).await?;
    window.send_prompt("Fix and test").await?;
    wait_reply(&window, "Testing now.").await?;
    let want = vec![
        ("completed".to_owned(), "Read".to_owned()),
        ("completed".to_owned(), "Fix".to_owned()),
        ("in_progress".to_owned(), "Testing".to_owned()),
    ];
    assert_eq!(
        todo_items(&window, "[data-testid=session-screen]").await?,
        want
    );
    let mut problems = Vec::new();
    window
        .layout_at_sizes(
            "talkback-todo-panel",
            "[data-testid=todo-panel]",
            &mut problems,
        )
        .await?;

    // Home, then the session in the browser's reader: the same list.
    window.click("[data-testid=back-home]").await?;
    window.click("[data-testid=session-item]").await?;
    window.wait_for("[data-testid=stored-session]").await?;
    let reader = wait_todos(&window, "[data-testid=stored-session]").await?;
    assert_eq!(reader, want);
    window
        .layout_at_sizes(
            "talkback-reader-todo-panel",
            "[data-testid=stored-session] .session-side",
            &mut problems,
        )
        .await?;

    // Resumed: rebuilt from the stored events before anything new happens.
    window.click("[data-testid=reader-resume]").await?;
    window.wait_for("[data-testid=error-banner]").await?;
    window.start_replay(&second).await?;
    window.wait_for("[data-testid=session-screen]").await?;
    let resumed = wait_todos(&window, "[data-testid=session-screen]").await?;
    assert_eq!(resumed, want);
    window.screenshot("talkback-todo-panel-resumed").await?;
    // The grouped transcript shows each update as one line, not JSON.
    let rows = window
        .texts("[data-testid=tool-call][data-tool-name=TodoWrite]")
        .await
        .unwrap_or_default();
    assert!(rows.iter().all(|r| !r.contains("activeForm")), "{rows:?}");
    window.quit().await?;
    no_problems(&problems);
    Ok(())
}

#[tokio::test]
async fn a_plan_approved_with_accept_edits_lets_the_next_write_run_unasked() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let project = Project::new("plan-project")?;
    let plan = "# Plan\n\n1. Write `notes.txt` with one line.\n2. Stop.\n\n| step | file |\n|---|---|\n| 1 | notes.txt |";
    let script = project.script(
        "plan.json",
        &[
            tool("enter", "EnterPlanMode", json!({})),
            tool("exit", "ExitPlanMode", json!({ "plan": plan })),
            tool(
                "w1",
                "Write",
                json!({"file_path": "${PROJECT_DIR}/notes.txt", "content": "planned\n"}),
            ),
            text("Wrote it."),
        ],
    )?;
    let window = open(&app, &driver, data.path(), &project, &script, &[]).await?;
    window.send_prompt("Plan, then write").await?;
    window
        .wait_for("[data-testid=plan-modal][data-tool-use-id=exit]")
        .await?;
    // The plan is rendered, not shown as Markdown source.
    let heading = window.texts("[data-testid=plan-body] h1").await?;
    assert_eq!(heading, ["Plan"]);
    assert!(window.exists("[data-testid=plan-body] table").await?);
    // In plan mode while it waits.
    let mode = window
        .attrs("[data-testid=mode-indicator]", "data-mode")
        .await?;
    assert_eq!(mode, ["plan"]);
    let mut problems = Vec::new();
    window
        .layout_at_sizes(
            "talkback-plan-modal",
            "[data-testid=plan-modal]",
            &mut problems,
        )
        .await?;
    window
        .click("[data-testid=plan-approve-accept-edits]")
        .await?;
    wait_reply(&window, "Wrote it.").await?;
    assert_eq!(
        std::fs::read_to_string(project.dir.join("notes.txt"))?,
        "planned\n"
    );
    let mode = window
        .attrs("[data-testid=mode-indicator]", "data-mode")
        .await?;
    assert_eq!(mode, ["acceptEdits"]);
    window.quit().await?;

    let events = stored_events(data.path())?;
    let (status, result) = completed(&events, "exit");
    assert_eq!(status, "ok");
    assert_eq!(
        result,
        "User has approved your plan. You can now start coding. Start with updating your todo \
         list if applicable\n\nThe session has left plan mode and is now in acceptEdits mode: \
         file edits inside the working directories run without asking."
    );
    assert_eq!(completed(&events, "w1").0, "ok");
    assert!(
        !events
            .iter()
            .any(|e| e["type"] == "permission_requested" && e["tool_use_id"] == "w1"),
        "the Write after the approval ran without asking"
    );
    no_problems(&problems);
    Ok(())
}

#[tokio::test]
async fn a_background_sleep_is_stopped_from_the_tasks_panel_and_its_process_is_gone()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let project = Project::new("tasks-project")?;
    let pid_file = project.folders.path().join("sleep.pid");
    let opened = project.folders.path().join("opened.txt");
    // The shell writes its pid, prints a coloured line and becomes `sleep`
    // (same pid).
    let command = format!(
        "echo $$ > {}; printf '\\033[32mready\\033[0m\\n'; exec sleep 300",
        pid_file.display()
    );
    let script = project.script(
        "tasks.json",
        &[
            tool(
                "b1",
                "Bash",
                json!({"command": command, "run_in_background": true, "description": "sleep a while"}),
            ),
            text("It runs in the background."),
        ],
    )?;
    let opened_text = opened.display().to_string();
    let window = open(
        &app,
        &driver,
        data.path(),
        &project,
        &script,
        &[("GATEHOUSE_TEST_OPENED_FILES", &opened_text)],
    )
    .await?;
    window.send_prompt("Sleep in the background").await?;
    window
        .wait_for("[data-testid=permission-modal][data-tool-use-id=b1]")
        .await?;
    window.click("[data-testid=permission-allow-once]").await?;
    wait_reply(&window, "It runs in the background.").await?;

    let task = "[data-testid=task][data-task-id=bash_1]";
    window
        .wait_for(&format!("{task}[data-status=running]"))
        .await?;
    // The live output, coloured.
    until("the task's coloured output", 30, || async {
        Ok(window
            .exists(&format!("{task} [data-testid=task-output] .ansi-green-fg"))
            .await?
            .then_some(()))
    })
    .await?;
    let out = window
        .texts(&format!("{task} [data-testid=task-output]"))
        .await?;
    assert_eq!(out, ["ready"]);
    let pid: u32 = until("the sleep's pid", 30, || async {
        Ok(std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|p| p.trim().parse().ok()))
    })
    .await?;
    let proc = PathBuf::from(format!("/proc/{pid}"));
    assert!(proc.exists(), "the sleep runs as {pid}");
    let mut problems = Vec::new();
    window
        .layout_at_sizes(
            "talkback-tasks-panel-running",
            "[data-testid=task-panel]",
            &mut problems,
        )
        .await?;

    window
        .click(&format!("{task} [data-testid=task-stop]"))
        .await?;
    window
        .wait_for(&format!("{task}[data-status=stopped]"))
        .await?;
    // Stopped means gone: reaped, not a zombie left behind.
    until(&format!("/proc/{pid} to be gone"), 30, || async {
        Ok((!proc.exists()).then_some(()))
    })
    .await?;
    // Its exit line (read from the DOM: the line is cut with an ellipsis).
    let row = window
        .client
        .execute(
            "const row = document.querySelector(arguments[0]); \
             const exit = row && row.querySelector('[data-testid=task-exit]'); \
             return [exit ? exit.textContent : null, row ? row.outerHTML : null];",
            vec![Value::from(task)],
        )
        .await?;
    let exit = row[0].as_str().unwrap_or_default();
    assert!(
        exit.starts_with("stopped · stopped because the user stopped it"),
        "{exit:?} in {}",
        row[1]
    );
    assert!(
        !window
            .exists(&format!("{task} [data-testid=task-stop]"))
            .await?
    );
    window
        .layout_at_sizes(
            "talkback-tasks-panel-stopped",
            "[data-testid=task-panel]",
            &mut problems,
        )
        .await?;

    // The whole output file is opened (recorded instead of xdg-open).
    window
        .click(&format!("{task} [data-testid=task-open-output]"))
        .await?;
    let opened_path = until("the opened output file", 20, || async {
        Ok(std::fs::read_to_string(&opened)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_owned)))
    })
    .await?;
    assert!(opened_path.ends_with("tasks/bash_1.log"), "{opened_path}");
    assert!(std::fs::read_to_string(&opened_path)?.contains("ready"));
    window.quit().await?;

    let events = stored_events(data.path())?;
    let ended = events
        .iter()
        .find(|e| e["type"] == "task_completed")
        .context("a stored task_completed")?;
    assert_eq!(ended["status"], "stopped");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "task_output" && e["task_id"] == "bash_1"),
        "the live output is stored"
    );
    no_problems(&problems);
    Ok(())
}

async fn pick_mode(window: &App, mode: &str) -> anyhow::Result<()> {
    window.click("[data-testid=mode-menu-toggle]").await?;
    window
        .click(&format!("[data-testid=mode-option][data-mode={mode}]"))
        .await
}

async fn shown_mode(window: &App, want: &str) -> anyhow::Result<()> {
    until(&format!("mode {want}"), 20, || async {
        Ok((window
            .attrs("[data-testid=mode-indicator]", "data-mode")
            .await?
            .first()
            .map(String::as_str)
            == Some(want))
        .then_some(()))
    })
    .await
}

#[tokio::test]
async fn the_mode_menu_reaches_every_mode_and_bypass_needs_a_confirmation() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let project = Project::new("modes-project")?;
    let script = project.script("modes.json", &[text("hello")])?;
    let window = open(&app, &driver, data.path(), &project, &script, &[]).await?;
    window.send_prompt("hi").await?;
    wait_reply(&window, "hello").await?;
    let mut problems = Vec::new();
    // The session bar with the menu's toggle fits at every size too.
    for (w, h) in LAYOUT_SIZES {
        window.set_size(w, h).await?;
        for p in window.layout_problems(".session-bar").await? {
            problems.push(format!("session bar at {w}x{h}: {p}"));
        }
    }
    window.set_size(1400, 900).await?;
    window.click("[data-testid=mode-menu-toggle]").await?;
    let modes = window
        .attrs("[data-testid=mode-option]", "data-mode")
        .await?;
    assert_eq!(
        modes,
        [
            "default",
            "acceptEdits",
            "plan",
            "bypassPermissions",
            "dontAsk"
        ]
    );
    window
        .layout_at_sizes(
            "talkback-mode-menu",
            "[data-testid=mode-menu]",
            &mut problems,
        )
        .await?;

    window
        .click("[data-testid=mode-option][data-mode=dontAsk]")
        .await?;
    shown_mode(&window, "dontAsk").await?;
    pick_mode(&window, "plan").await?;
    shown_mode(&window, "plan").await?;

    pick_mode(&window, "bypassPermissions").await?;
    let words = window.texts("[data-testid=bypass-confirm]").await?;
    assert!(words[0].contains("every tool without asking"), "{words:?}");
    window
        .layout_at_sizes(
            "talkback-bypass-confirm",
            "[data-testid=bypass-confirm]",
            &mut problems,
        )
        .await?;
    window.click("[data-testid=bypass-confirm-cancel]").await?;
    shown_mode(&window, "plan").await?;
    pick_mode(&window, "bypassPermissions").await?;
    window.click("[data-testid=bypass-confirm-yes]").await?;
    shown_mode(&window, "bypassPermissions").await?;
    window.quit().await?;

    // The backend changed modes: each is a stored mode_changed.
    let events = stored_events(data.path())?;
    let changes: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "mode_changed")
        .filter_map(|e| e["mode"].as_str())
        .collect();
    assert_eq!(changes, ["dontAsk", "plan", "bypassPermissions"]);
    no_problems(&problems);
    Ok(())
}

#[tokio::test]
async fn bypass_permissions_is_disabled_with_the_reason_when_policy_disables_it()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let project = Project::new("policy-project")?;
    std::fs::create_dir(project.dir.join(".claude"))?;
    std::fs::write(
        project.dir.join(".claude/settings.json"),
        r#"{"permissions": {"disableBypassPermissionsMode": "disable"}}"#,
    )?;
    let script = project.script("policy.json", &[text("hello")])?;
    let window = open(&app, &driver, data.path(), &project, &script, &[]).await?;
    window.click("[data-testid=mode-menu-toggle]").await?;
    assert!(
        window
            .exists("[data-testid=mode-option][data-mode=bypassPermissions]:disabled")
            .await?
    );
    let reason = window.texts("[data-testid=mode-bypass-disabled]").await?;
    assert!(
        reason[0].contains("disableBypassPermissionsMode"),
        "{reason:?}"
    );
    window
        .screenshot("talkback-mode-menu-bypass-disabled")
        .await?;
    window.quit().await?;
    Ok(())
}
