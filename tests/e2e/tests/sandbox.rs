//! Settings → Bash sandbox in the real window (issue 24 item 4): with
//! bubblewrap on the app's `PATH` it says the sandbox runs (a real probe)
//! and lists the `sandbox` settings in force with the file each came from
//! and the keys Gatehouse does not implement; without it, it says why and
//! how to fix it, from typed fields. And a real sandboxed Bash call (item
//! 5): its view lists the writes the sandbox refused, read from the
//! syscalls.

use std::path::Path;

use anyhow::Context as _;
use gatehouse_e2e::{App, setup, until};
use serde_json::json;

/// The user's Claude Code settings: the sandbox on, auto-allow, and a
/// network key Gatehouse does not implement.
const USER_SETTINGS: &str = r#"{
  "sandbox": {
    "enabled": true,
    "autoAllowBashIfSandboxed": true,
    "network": {"allowUnixSockets": ["/var/run/docker.sock"]}
  }
}
"#;

#[tokio::test]
async fn settings_show_the_sandbox_running_its_settings_and_an_unsupported_key()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    std::fs::create_dir_all(home.path().join(".claude"))?;
    let user_file = home.path().join(".claude/settings.json");
    std::fs::write(&user_file, USER_SETTINGS)?;
    let home_path = home.path().display().to_string();
    let window = App::launch(&app, &driver, data.path(), &[("HOME", &home_path)]).await?;
    window.wait_for("[data-testid=home]").await?;
    window.click("[data-testid=open-settings]").await?;
    window
        .wait_for("[data-testid=sandbox-availability][data-available=yes]")
        .await?;
    assert_eq!(
        window
            .attrs("[data-testid=sandbox-enabled]", "data-value")
            .await?,
        ["yes"]
    );
    assert_eq!(
        window
            .attrs("[data-testid=sandbox-auto-allow]", "data-value")
            .await?,
        ["yes"]
    );
    let rows = window.texts("[data-testid=sandbox-enabled]").await?;
    assert!(
        rows[0].contains(&user_file.display().to_string()),
        "the setting names its file: {rows:?}"
    );
    let problems = window.texts("[data-testid=sandbox-problem]").await?;
    assert!(
        problems.iter().any(|p| p.contains("allowUnixSockets")),
        "an unsupported key is named, never silently ignored: {problems:?}"
    );
    window
        .scroll_into_view("[data-testid=sandbox-settings]")
        .await?;
    window.screenshot("settings-bash-sandbox").await?;
    window.quit().await
}

#[tokio::test]
async fn without_bubblewrap_settings_say_the_sandbox_cannot_run_and_how_to_fix_it()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    std::fs::create_dir_all(home.path().join(".claude"))?;
    std::fs::write(home.path().join(".claude/settings.json"), USER_SETTINGS)?;
    // A PATH without bwrap: only the WebDriver tauri-driver starts (the
    // app itself starts nothing from PATH at launch).
    let bin = tempfile::tempdir()?;
    let web_driver = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("WebKitWebDriver"))
        .find(|p| p.is_file())
        .context("WebKitWebDriver is not on PATH")?;
    std::os::unix::fs::symlink(&web_driver, bin.path().join("WebKitWebDriver"))?;
    let home_path = home.path().display().to_string();
    let path = bin.path().display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("HOME", &home_path), ("PATH", &path)],
    )
    .await?;
    window.wait_for("[data-testid=home]").await?;
    window.click("[data-testid=open-settings]").await?;
    window
        .wait_for("[data-testid=sandbox-availability][data-available=no]")
        .await?;
    assert_eq!(
        window
            .attrs("[data-testid=sandbox-availability]", "data-reason")
            .await?,
        ["bwrap_missing"]
    );
    let fix = window.texts("[data-testid=sandbox-settings-fix]").await?;
    assert!(fix[0].contains("bubblewrap"), "{fix:?}");
    window
        .scroll_into_view("[data-testid=sandbox-settings]")
        .await?;
    window
        .screenshot("settings-bash-sandbox-unavailable")
        .await?;
    window.quit().await
}

/// A replayed model's Bash call writes `.git/config` (refused: read-only in
/// the sandbox) and a file in the project (allowed) from a script, so the
/// engine's own analysis sees only an unknown command, which the sandbox
/// auto-allows: the call's view says it ran sandboxed and lists the refused
/// write, relative to the project, from the typed `blocked` event.
#[tokio::test]
async fn a_sandboxed_bash_call_lists_the_write_the_sandbox_refused() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("sandboxed-project");
    std::fs::create_dir_all(project.join(".git"))?;
    std::fs::create_dir_all(project.join(".claude"))?;
    std::fs::write(project.join(".git/config"), "[core]\n")?;
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#,
    )?;
    std::fs::write(
        project.join("tidy.sh"),
        "echo evil >> .git/config\necho ok > fine.txt\n",
    )?;
    let project = project.canonicalize()?;
    let script = folders.path().join("sandboxed.json");
    std::fs::write(
        &script,
        serde_json::to_vec_pretty(&json!({"turns": [
            {"content": [{"type": "tool_use", "id": "s1", "name": "Bash", "input": {"command": "bash tidy.sh"}}]},
            {"content": [{"type": "text", "text": "done"}]},
        ]}))?,
    )?;
    let (home_path, project_text) = (
        home.path().display().to_string(),
        project.display().to_string(),
    );
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[
            ("HOME", &home_path),
            ("GATEHOUSE_TEST_PICK_FOLDER", &project_text),
        ],
    )
    .await?;
    window.open_replay_session(Path::new(&script)).await?;
    window.send_prompt("tidy up").await?;
    let call = "[data-testid=tool-call][data-tool-use-id=s1]";
    let blocked = format!("{call} [data-testid=bash-blocked]");
    until("the refused write to be listed", 60, || async {
        Ok(window.exists(&blocked).await?.then_some(()))
    })
    .await?;
    let line = window.texts(&blocked).await?.join(" ");
    assert_eq!(line, "blocked: write to .git/config", "{line}");
    assert_eq!(
        window
            .attrs(&format!("{call} [data-testid=bash-sandbox]"), "data-state")
            .await?,
        ["sandboxed"]
    );
    // The refusal was real and the allowed write happened.
    assert_eq!(
        std::fs::read_to_string(project.join(".git/config"))?,
        "[core]\n"
    );
    assert_eq!(std::fs::read_to_string(project.join("fine.txt"))?, "ok\n");
    window.scroll_into_view(call).await?;
    window.screenshot("bash-sandbox-blocked-write").await?;
    window.quit().await
}
