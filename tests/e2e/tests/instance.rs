//! One window per data directory, and a window that comes back where it was
//! (issue 23 items 4 and 7): real app processes, a real D-Bus session bus.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use anyhow::Context as _;
use gatehouse_e2e::keyring::SessionBus;
use gatehouse_e2e::{App, setup, until};

/// The pid the running app wrote into its data directory's lock file.
fn app_pid(data_dir: &Path) -> anyhow::Result<i32> {
    let text = std::fs::read_to_string(data_dir.join("gatehouse.lock"))
        .context("reading the app's lock file")?;
    text.trim()
        .parse()
        .with_context(|| format!("the lock file holds {text:?}, not a pid"))
}

/// Runs the app binary as a user would from a terminal: `gatehouse ARGS`,
/// with the given D-Bus address, waiting for it to exit.
async fn second_launch(
    app: &Path,
    data_dir: &Path,
    bus: &str,
    args: &[&Path],
) -> anyhow::Result<Output> {
    let mut cmd = Command::new(app);
    cmd.args(args)
        .env("GATEHOUSE_DATA_DIR", data_dir)
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .env_remove("GATEHOUSE_SMOKE");
    let child = tokio::task::spawn_blocking(move || cmd.output());
    tokio::time::timeout(Duration::from_secs(60), child)
        .await
        .context("the second launch did not exit within 60 s")?
        .context("joining the second launch")?
        .context("running the second launch")
}

#[tokio::test]
async fn a_second_launch_hands_its_folder_to_the_open_window_or_says_why_it_cannot()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let bus = SessionBus::start()?;
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("gadget-works");
    std::fs::create_dir(&project)?;
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("DBUS_SESSION_BUS_ADDRESS", &bus.address)],
    )
    .await?;
    window.wait_for("[data-testid=no-projects]").await?;
    let first_pid = app_pid(data.path())?;

    // Same bus: the running window takes the folder, the launch exits 0.
    let out = second_launch(&app, data.path(), &bus.address, &[&project]).await?;
    assert!(
        out.status.success(),
        "the second launch failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    window
        .wait_for("[data-testid=session-project-name]")
        .await?;
    assert_eq!(
        window.texts("[data-testid=session-project-name]").await?,
        ["gadget-works"]
    );
    // Still the first process: nothing else took the data directory.
    assert_eq!(app_pid(data.path())?, first_pid);

    // No bus to hand over on: the lock stops it, and it says why.
    let out = second_launch(
        &app,
        data.path(),
        "unix:path=/nonexistent/gatehouse-test-bus",
        &[],
    )
    .await?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{:?}: {stderr}", out.status);
    assert!(
        stderr.contains(&format!(
            "another Gatehouse window (process {first_pid}) is already using the data directory {}",
            data.path().display()
        )),
        "{stderr}"
    );
    assert_eq!(app_pid(data.path())?, first_pid);
    window.quit().await
}

#[tokio::test]
async fn the_window_comes_back_at_the_size_it_was_left_after_the_app_is_terminated()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let window = App::launch(&app, &driver, data.path(), &[]).await?;
    window.wait_for("[data-testid=home]").await?;
    window.set_size(1000, 640).await?;
    // The page's viewport (the window less its menu bar).
    let viewport = "return [window.innerWidth, window.innerHeight];";
    let before = window.client.execute(viewport, vec![]).await?;

    // SIGTERM (logout, `kill`) ends the app as Quit does: state saved.
    let pid = app_pid(data.path())?;
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()?;
    assert!(status.success());
    let proc_dir = format!("/proc/{pid}");
    until("the app to exit after SIGTERM", 30, || async {
        // A zombie until the driver reaps it: exited all the same.
        let state = std::fs::read_to_string(format!("{proc_dir}/stat")).unwrap_or_default();
        let gone = state.is_empty() || state.split_whitespace().nth(2) == Some("Z");
        Ok(gone.then_some(()))
    })
    .await?;
    window.quit().await?;
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        data.path().join("window-state.json"),
    )?)?;
    assert_eq!(saved["main"]["width"], 1000, "{saved}");
    assert_eq!(saved["main"]["height"], 640, "{saved}");

    let window = App::launch(&app, &driver, data.path(), &[]).await?;
    window.wait_for("[data-testid=home]").await?;
    let after = window.client.execute(viewport, vec![]).await?;
    assert_eq!(after, before);
    assert_eq!(after[0], 1000);
    window.quit().await
}
