//! The session browser in the real window (issue 11 item 8): real Claude
//! Code transcripts (the copies the transcripts crate's tests use, in
//! `src-tauri/transcripts/tests/fixtures/`) are imported from a fake home
//! (`GATEHOUSE_CLAUDE_HOME`), found by full-text search on a Grep result,
//! opened, a grouped call expanded, the Edit diff seen and the session
//! exported (`GATEHOUSE_TEST_SAVE_DIR` stands in for the save dialog); a
//! Gatehouse session recorded in the test is listed and resumed. Relies
//! only on the browser's and the session screen's test ids.

use std::path::Path;

use anyhow::Context;
use gatehouse_e2e::{App, setup, until};
use serde_json::json;

/// A fake home whose `.claude/projects/-home-user-project` holds the
/// fixture transcripts; one gets a malformed last line.
fn claude_home(dir: &Path) -> anyhow::Result<()> {
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src-tauri/transcripts/tests/fixtures");
    let project = dir.join(".claude/projects/-home-user-project");
    std::fs::create_dir_all(&project)?;
    for (name, target) in [
        ("basic.jsonl", "32a0fdb2-50b6-4f19-8eab-36dc180e601b.jsonl"),
        ("permission-denied-1.jsonl", "denied-1.jsonl"),
        ("streamed-blocks.jsonl", "streamed-blocks.jsonl"),
    ] {
        std::fs::copy(fixtures.join(name), project.join(target))
            .with_context(|| format!("copying fixture {name}"))?;
    }
    let mut denied = std::fs::read(project.join("denied-1.jsonl"))?;
    denied.extend_from_slice(b"{this line is not JSON\n");
    std::fs::write(project.join("denied-1.jsonl"), denied)?;
    Ok(())
}

#[tokio::test]
async fn imported_transcripts_are_searched_read_and_exported() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let exports = tempfile::tempdir()?;
    claude_home(home.path())?;
    let home_text = home.path().display().to_string();
    let exports_text = exports.path().display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[
            ("GATEHOUSE_CLAUDE_HOME", &home_text),
            ("GATEHOUSE_TEST_SAVE_DIR", &exports_text),
        ],
    )
    .await?;

    // Import: what was found, then all of it, with a progress bar and the
    // malformed line reported with its file and line number.
    window.click("[data-testid=open-sessions]").await?;
    window.click("[data-testid=browser-tab-import]").await?;
    let found = until("three transcripts listed", 30, || async {
        let rows = window
            .attrs("[data-testid=import-row]", "data-path")
            .await?;
        Ok((rows.len() == 3).then_some(rows))
    })
    .await?;
    assert!(found.iter().all(|p| p.starts_with(&home_text)), "{found:?}");
    window.click("[data-testid=import-all]").await?;
    until("the import to finish", 60, || async {
        Ok((window
            .attrs("[data-testid=import-progress]", "data-done")
            .await?
            == ["true"])
        .then_some(()))
    })
    .await?;
    let outcomes = window
        .attrs("[data-testid=import-result]", "data-outcome")
        .await?;
    assert_eq!(outcomes, ["imported", "imported", "imported"]);
    let problems = window.texts("[data-testid=import-problem]").await?;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("denied-1.jsonl:"), "{problems:?}");
    let statuses = window.texts("[data-testid=import-status]").await?;
    assert!(statuses.iter().all(|s| s == "imported"), "{statuses:?}");
    window.screenshot("browser-01-import").await?;

    // Search a string that only a Grep result contains; the hit opens the
    // session at that call.
    window.click("[data-testid=browser-tab-sessions]").await?;
    let rows = until("imported sessions listed", 30, || async {
        let rows = window
            .attrs("[data-testid=session-row]", "data-origin")
            .await?;
        Ok((rows.len() == 3).then_some(rows))
    })
    .await?;
    assert!(rows.iter().all(|o| o == "claude_code"), "{rows:?}");
    window.screenshot("browser-01b-list").await?;
    window
        .wait_for("[data-testid=session-search-input]")
        .await?
        .send_keys("occurrences")
        .await?;
    window.click("[data-testid=session-search-go]").await?;
    let hits = window
        .attrs("[data-testid=search-hit]", "data-session-id")
        .await?;
    assert!(
        !hits.is_empty()
            && hits
                .iter()
                .all(|h| h == "cc-32a0fdb2-50b6-4f19-8eab-36dc180e601b"),
        "only the basic transcript's Grep result says it: {hits:?}"
    );
    let marked = window.texts("[data-testid=search-snippet] mark").await?;
    assert!(
        !marked.is_empty() && marked.iter().all(|m| m == "occurrences"),
        "{marked:?}"
    );
    window.screenshot("browser-02-search").await?;
    window.click("[data-testid=search-hit]").await?;
    window
        .wait_for(
            "[data-testid=stored-session][data-session-id=cc-32a0fdb2-50b6-4f19-8eab-36dc180e601b]",
        )
        .await?;

    // The jump expanded the Grep's group; collapse and expand it again.
    let grep = "[data-testid=tool-group] [data-testid=tool-call][data-tool-name=Grep]";
    window.wait_for(grep).await?;
    let summary = window.texts("[data-testid=tool-group]").await?;
    assert!(summary[0].contains("searched 1 pattern"), "{summary:?}");
    set_group_expanded(&window, false).await?;
    assert!(
        !window.exists(grep).await?,
        "a collapsed group hides its calls"
    );
    set_group_expanded(&window, true).await?;
    let names = until("the group's calls", 10, || async {
        let names = window
            .attrs(
                "[data-testid=tool-group] [data-testid=tool-call]",
                "data-tool-name",
            )
            .await?;
        Ok((names.len() == 6).then_some(names))
    })
    .await?;
    assert_eq!(
        names.iter().filter(|n| *n == "Read").count(),
        5,
        "{names:?}"
    );

    // The Edit's diff, from Claude Code's structuredPatch.
    let diff = window
        .texts("[data-testid=tool-call][data-tool-name=Edit] [data-testid=diff]")
        .await?;
    assert!(
        diff[0].contains("hello mock") && diff[0].contains("hello world"),
        "{diff:?}"
    );
    window.wait_for("[data-testid=stats-panel]").await?;
    window.screenshot("browser-03-reader").await?;

    // Export as JSONL (re-importable events) and HTML.
    window.click("[data-testid=export-jsonl]").await?;
    let path = window
        .wait_for("[data-testid=export-result]")
        .await?
        .attr("data-path")
        .await?
        .context("the export result names its file")?;
    assert!(
        path.starts_with(&exports_text) && path.ends_with(".jsonl"),
        "{path}"
    );
    let text = std::fs::read_to_string(&path)?;
    let mut kinds = Vec::new();
    for line in text.lines() {
        let event: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("an exported line is not JSON: {line}"))?;
        kinds.push(event["type"].as_str().unwrap_or_default().to_owned());
    }
    assert!(kinds.iter().any(|k| k == "tool_queued"), "{kinds:?}");
    window.click("[data-testid=export-html]").await?;
    let html_path = exports
        .path()
        .join("cc-32a0fdb2-50b6-4f19-8eab-36dc180e601b.html");
    until("the HTML export", 30, || async {
        Ok(html_path.exists().then_some(()))
    })
    .await?;
    let html = std::fs::read_to_string(&html_path)?;
    assert!(html.trim_end().ends_with("</html>"), "a whole page");
    window.quit().await?;
    Ok(())
}

#[tokio::test]
async fn a_recorded_gatehouse_session_is_listed_opened_and_resumed() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let project = folders.path().join("browsed");
    std::fs::create_dir(&project)?;
    std::fs::write(project.join("notes.txt"), "capybara notes\n")?;
    let dir = "${PROJECT_DIR}";
    let first = folders.path().join("first.json");
    std::fs::write(
        &first,
        json!({"turns": [
            {"content": [{"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": format!("{dir}/notes.txt")}}]},
            {"content": [{"type": "text", "text": "first answer"}]}
        ]})
        .to_string(),
    )?;
    let second = folders.path().join("second.json");
    std::fs::write(
        &second,
        json!({"turns": [{"content": [{"type": "text", "text": "second answer"}]}]}).to_string(),
    )?;
    let project_text = project.canonicalize()?.display().to_string();
    let home_text = home.path().display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[
            ("GATEHOUSE_TEST_PICK_FOLDER", &project_text),
            ("GATEHOUSE_CLAUDE_HOME", &home_text),
        ],
    )
    .await?;
    window.click("[data-testid=open-folder]").await?;
    window.start_replay(&first).await?;
    window.send_prompt("read the capybara notes").await?;
    until("the first answer", 30, || async {
        Ok((window.texts("[data-testid=assistant-text]").await? == ["first answer"]).then_some(()))
    })
    .await?;
    let session_id = window
        .attrs("[data-testid=session-screen]", "data-session-id")
        .await?
        .pop()
        .context("the session screen names its session")?;

    // The browser lists it (title = first prompt) and opens it read-only.
    window.click("[data-testid=open-sessions]").await?;
    let row = format!("[data-testid=session-row][data-session-id='{session_id}']");
    window.wait_for(&row).await?;
    let origin = window.attrs(&row, "data-origin").await?;
    assert_eq!(origin, ["gatehouse"]);
    let title = window
        .texts(&format!("{row} [data-testid=session-open]"))
        .await?;
    assert_eq!(title, ["read the capybara notes"]);
    window
        .click(&format!("{row} [data-testid=session-open]"))
        .await?;
    window
        .wait_for(&format!(
            "[data-testid=stored-session][data-session-id='{session_id}']"
        ))
        .await?;
    window
        .wait_for("[data-testid=tool-call][data-tool-name=Read][data-status=completed]")
        .await?;
    assert!(
        !window.exists("[data-testid=prompt-input]").await?,
        "the reader is read-only"
    );

    // Resume: a replay session's script is not stored, so the session view
    // asks for one, then continues the same session.
    window.click("[data-testid=reader-resume]").await?;
    window.start_replay(&second).await?;
    window
        .wait_for(&format!(
            "[data-testid=session-screen][data-session-id='{session_id}']"
        ))
        .await?;
    window.send_prompt("more").await?;
    until("the resumed session's answer", 30, || async {
        let texts = window.texts("[data-testid=assistant-text]").await?;
        Ok((texts == ["first answer", "second answer"]).then_some(()))
    })
    .await?;
    window.screenshot("browser-04-resumed").await?;
    window.quit().await?;
    Ok(())
}

/// Clicks the first group's toggle until its `aria-expanded` says
/// `expanded`, waiting for each click to take effect before judging (a
/// re-rendered row can briefly drop its calls from the DOM, so presence of
/// the calls is not a reliable signal of the state).
async fn set_group_expanded(window: &App, expanded: bool) -> anyhow::Result<()> {
    let toggle = "[data-testid=tool-group-toggle]";
    let want = expanded.to_string();
    for _ in 0..3 {
        if window.attrs(toggle, "aria-expanded").await?.first() == Some(&want) {
            return Ok(());
        }
        window.click(toggle).await?;
        let settled = until("the group's toggle to change", 5, || async {
            let now = window.attrs(toggle, "aria-expanded").await?;
            Ok((now.first() == Some(&want)).then_some(()))
        })
        .await;
        if settled.is_ok() {
            return Ok(());
        }
    }
    anyhow::bail!("the group's toggle never became aria-expanded={want}")
}
