//! The MCP panel in the real window: add a stdio server (gatehouse-mcp's
//! standard-library Python test server, so nothing needs installing) → its
//! tools appear; break its command → failed, with the error shown. And a
//! server added while a session is open serves that session's next call.

use gatehouse_e2e::{App, setup, until};
use std::path::Path;

const SERVER: &str = "[data-testid=mcp-server][data-name=fault]";

async fn server_state(window: &App) -> anyhow::Result<Option<String>> {
    let css = format!("{SERVER} [data-testid=mcp-server-state]");
    if !window.exists(&css).await? {
        return Ok(None);
    }
    Ok(window.attrs(&css, "data-state").await?.pop())
}

/// The state of the `fault` server once it is known; a backend error shown
/// in the panel fails at once (with a screenshot), naming it.
async fn settled_state(window: &App) -> anyhow::Result<Option<String>> {
    if window.exists("[data-testid=mcp-error]").await? {
        window.screenshot("mcp-error").await?;
        let error = window.texts("[data-testid=mcp-error]").await?.join("\n");
        anyhow::bail!("the panel shows an error: {error}");
    }
    Ok(server_state(window)
        .await?
        .filter(|s| s != "connecting" && !s.is_empty()))
}

/// gatehouse-mcp's standard-library Python test server (nothing to install).
fn fault_server() -> anyhow::Result<String> {
    Ok(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../src-tauri/mcp/tests/servers/fault_server.py")
        .canonicalize()?
        .display()
        .to_string())
}

/// Fills the open add form with the fault server, waits until it is valid,
/// and saves it.
async fn fill_and_save_fault_server(window: &App, fault_server: &str) -> anyhow::Result<()> {
    window
        .type_into("[data-testid=mcp-form-name]", "fault")
        .await?;
    window
        .type_into("[data-testid=mcp-form-command]", "python3")
        .await?;
    window
        .type_into("[data-testid=mcp-form-args]", fault_server)
        .await?;
    until("the form to be valid", 10, || async {
        Ok((!window.exists("[data-testid^=mcp-form-error]").await?).then_some(()))
    })
    .await?;
    window.click("[data-testid=mcp-form-save]").await
}

#[tokio::test]
async fn a_stdio_server_added_in_the_panel_shows_its_tools_then_fails_when_broken()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let fault_server = fault_server()?;
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("mcp-project");
    std::fs::create_dir(&project)?;
    let project_path = project.canonicalize()?.display().to_string();
    let home_path = home.path().display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[
            ("GATEHOUSE_TEST_PICK_FOLDER", &project_path),
            // ~/.gatehouse/mcp.json is written here, not in the real home.
            ("HOME", &home_path),
        ],
    )
    .await?;

    // A project to list servers for, then the MCP screen.
    window.click("[data-testid=open-folder]").await?;
    window
        .wait_for("[data-testid=session-project-name]")
        .await?;
    window.click("[data-testid=open-mcp]").await?;
    window.wait_for("[data-testid=mcp-empty]").await?;

    // Add: the form validates as you type, and says nothing before
    // anything is typed (issue 17 item 9).
    window.click("[data-testid=mcp-add-gatehouse]").await?;
    window.wait_for("[data-testid=mcp-form]").await?;
    assert!(
        !window.exists("[data-testid^=mcp-form-error]").await?,
        "an untouched form shows no errors"
    );
    fill_and_save_fault_server(&window, &fault_server).await?;

    // Connected, with its tools (qualified names) listed.
    let state = match until("the server to connect", 60, || settled_state(&window)).await {
        Ok(state) => state,
        Err(e) => {
            window.screenshot("mcp-no-state").await?;
            return Err(e);
        }
    };
    if state != "connected" {
        window.screenshot("mcp-not-connected").await?;
    }
    assert_eq!(state, "connected");
    let tools = window
        .attrs(&format!("{SERVER} [data-testid=mcp-tool]"), "data-name")
        .await?;
    assert!(
        tools.contains(&"mcp__fault__echo".to_owned()),
        "tools shown: {tools:?}"
    );
    let written = std::fs::read_to_string(home.path().join(".gatehouse/mcp.json"))?;
    assert!(written.contains("\"fault\""), "{written}");

    // Break its command: failed, and the error says why.
    window
        .click(&format!("{SERVER} [data-testid=mcp-edit]"))
        .await?;
    let command = window.wait_for("[data-testid=mcp-form-command]").await?;
    command
        .send_keys(&"\u{E003}".repeat("python3".len()))
        .await?;
    command.send_keys("/nonexistent/mcp-server").await?;
    window.click("[data-testid=mcp-form-save]").await?;
    until("the server to fail", 60, || async {
        Ok((server_state(&window).await?.as_deref() == Some("failed")).then_some(()))
    })
    .await?;
    let message = window
        .texts(&format!("{SERVER} [data-testid=mcp-server-message]"))
        .await?
        .join("\n");
    assert!(
        message.contains("cannot start `/nonexistent/mcp-server`"),
        "{message}"
    );
    assert!(
        !window
            .exists(&format!("{SERVER} [data-testid=mcp-tool]"))
            .await?
    );
    window.screenshot("mcp-failed").await?;
    window.quit().await
}

/// Issue 16 item 8: the MCP panel opens over a live session, and a server
/// added there serves that session's very next call — no restart.
#[tokio::test]
async fn a_server_added_over_an_open_session_serves_its_next_call() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let fault_server = fault_server()?;
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("live-mcp");
    std::fs::create_dir(&project)?;
    let project_path = project.canonicalize()?.display().to_string();
    let home_path = home.path().display().to_string();
    let script = serde_json::json!({"turns": [
        {"content": [{"type": "text", "text": "Ready."}]},
        {"content": [{"type": "tool_use", "id": "m1", "name": "mcp__fault__echo",
                      "input": {"text": "echoed from the live server"}}]},
        {"content": [{"type": "text", "text": "Done."}]}
    ]});
    let script_path = folders.path().join("script.json");
    std::fs::write(&script_path, serde_json::to_vec(&script)?)?;
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[
            ("GATEHOUSE_TEST_PICK_FOLDER", &project_path),
            ("HOME", &home_path),
        ],
    )
    .await?;
    window.click("[data-testid=open-folder]").await?;
    window.start_replay(&script_path).await?;
    window.send_prompt("get ready").await?;
    until("the first turn", 60, || async {
        let texts = window.texts("[data-testid=assistant-text]").await?;
        Ok(texts.iter().any(|t| t.contains("Ready.")).then_some(()))
    })
    .await?;

    // The panel over the session: add the server, wait until it connects.
    window.click("[data-testid=open-mcp]").await?;
    window.wait_for("[data-testid=mcp-empty]").await?;
    window.click("[data-testid=mcp-add-gatehouse]").await?;
    fill_and_save_fault_server(&window, &fault_server).await?;
    let state = until("the server to connect", 60, || settled_state(&window)).await?;
    assert_eq!(state, "connected");

    // Back to the same session (not a new one): its next call uses the tool.
    window.click("[data-testid=mcp-back]").await?;
    assert!(
        window
            .texts("[data-testid=assistant-text]")
            .await?
            .iter()
            .any(|t| t.contains("Ready.")),
        "back on the session that was open"
    );
    window.send_prompt("use the new server").await?;
    let call = "[data-testid=tool-call][data-tool-use-id=m1]";
    // An MCP tool without read-only annotations asks first.
    until("the call to ask or finish", 60, || async {
        Ok((window.exists("[data-testid=permission-modal]").await?
            || window
                .exists(&format!("{call}[data-status=completed]"))
                .await?)
            .then_some(()))
    })
    .await?;
    if window.exists("[data-testid=permission-modal]").await? {
        window.click("[data-testid=permission-allow-once]").await?;
    }
    let status = until("the MCP call to finish", 60, || async {
        let s = window
            .attrs(call, "data-status")
            .await?
            .pop()
            .unwrap_or_default();
        let pending = ["", "queued", "running", "waiting_permission"];
        Ok((!pending.contains(&s.as_str())).then_some(s))
    })
    .await?;
    window.screenshot("mcp-live-session-call").await?;
    assert_eq!(status, "completed");
    let shown = window.texts(call).await?.join("\n");
    assert!(shown.contains("echoed from the live server"), "{shown}");
    window.quit().await?;
    Ok(())
}
