//! The MCP panel's Sign in in the real window (issue 16 item 2): an HTTP
//! server that needs OAuth (gatehouse-mcp's test server on the Python SDK's
//! auth support, as `mcp/tests/oauth.rs` uses) shows `needs_auth`; Sign in
//! runs the real flow — the app's handler, the loopback redirect, tokens in
//! a real Secret Service (a private D-Bus and gnome-keyring) — and the
//! panel's probe then shows it `connected` with its tools. The browser is
//! the one thing replaced: `GATEHOUSE_TEST_FOLLOW_SIGN_IN` makes the app
//! follow the authorize URL with an HTTP client, as a browser would.
//!
//! Before the fix the handler called `Runtime::block_on` on a Tokio
//! worker: it panicked and the button's promise never settled.
//!
//! Needs `GATEHOUSE_MCP_TEST_SERVERS` (the venv with `mcp`, which `cargo
//! xtask test e2e` installs and sets); skips saying so otherwise.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use gatehouse_e2e::keyring::SecretService;
use gatehouse_e2e::{App, setup, until};
use serde_json::json;

const SERVER: &str = "[data-testid=mcp-server][data-name=web]";

/// The OAuth MCP server, stopped on drop.
struct OAuthServer(Child);

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

async fn server_state(window: &App) -> anyhow::Result<Option<String>> {
    let css = format!("{SERVER} [data-testid=mcp-server-state]");
    if !window.exists(&css).await? {
        return Ok(None);
    }
    Ok(window.attrs(&css, "data-state").await?.pop())
}

/// The panel's error, if it shows one (then the test fails naming it).
async fn fail_on_error(window: &App) -> anyhow::Result<()> {
    if window.exists("[data-testid=mcp-error]").await? {
        window.screenshot("mcp-sign-in-error").await?;
        let error = window.texts("[data-testid=mcp-error]").await?.join("\n");
        anyhow::bail!("the panel shows an error: {error}");
    }
    Ok(())
}

async fn wait_state(window: &App, want: &str, secs: u64) -> anyhow::Result<()> {
    let waited = until(&format!("the server to be {want}"), secs, || async {
        fail_on_error(window).await?;
        Ok((server_state(window).await?.as_deref() == Some(want)).then_some(()))
    })
    .await;
    if waited.is_err() {
        window
            .screenshot(&format!("mcp-sign-in-not-{want}"))
            .await?;
    }
    waited
}

#[tokio::test]
async fn sign_in_from_the_panel_connects_the_server_and_lists_its_tools() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let Some(servers) = std::env::var_os("GATEHOUSE_MCP_TEST_SERVERS").map(PathBuf::from) else {
        eprintln!(
            "SKIPPED: GATEHOUSE_MCP_TEST_SERVERS is not set (`cargo xtask test e2e` installs the \
             Python `mcp` venv and sets it)"
        );
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let Some(secrets) = SecretService::start(home.path())? else {
        return Ok(());
    };

    let port = free_port()?;
    let record = tempfile::NamedTempFile::new()?;
    let _server = OAuthServer(
        Command::new(servers.join("venv/bin/python"))
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../src-tauri/mcp/tests/servers/oauth_server.py"),
            )
            .arg(port.to_string())
            .arg(record.path())
            .spawn()?,
    );
    until("the OAuth server to listen", 60, || async {
        Ok(TcpStream::connect(("127.0.0.1", port))
            .is_ok()
            .then_some(()))
    })
    .await?;

    // A server of the user's own Gatehouse list: no project approval needed.
    std::fs::create_dir_all(home.path().join(".gatehouse"))?;
    std::fs::write(
        home.path().join(".gatehouse/mcp.json"),
        json!({"mcpServers": {"web": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}})
            .to_string(),
    )?;
    let project = folders.path().join("sign-in-project");
    std::fs::create_dir(&project)?;
    let project_path = project.canonicalize()?.display().to_string();
    let home_path = home.path().display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[
            ("GATEHOUSE_TEST_PICK_FOLDER", &project_path),
            ("HOME", &home_path),
            ("GATEHOUSE_TEST_FOLLOW_SIGN_IN", "1"),
            ("DBUS_SESSION_BUS_ADDRESS", &secrets.address),
        ],
    )
    .await?;

    window.click("[data-testid=open-folder]").await?;
    window
        .wait_for("[data-testid=session-project-name]")
        .await?;
    window.click("[data-testid=open-mcp]").await?;
    wait_state(&window, "needs_auth", 60).await?;
    window.screenshot("mcp-sign-in-01-needs-auth").await?;

    window
        .click(&format!("{SERVER} [data-testid=mcp-sign-in]"))
        .await?;
    // The handler settles (the notice), then the panel probes again.
    let notice = until("the sign-in to settle", 90, || async {
        fail_on_error(&window).await?;
        if !window.exists("[data-testid=mcp-notice]").await? {
            return Ok(None);
        }
        Ok(Some(
            window.texts("[data-testid=mcp-notice]").await?.join("\n"),
        ))
    })
    .await?;
    assert!(notice.contains("Signed in to web"), "{notice}");
    wait_state(&window, "connected", 60).await?;
    let tools = window
        .attrs(&format!("{SERVER} [data-testid=mcp-tool]"), "data-name")
        .await?;
    assert!(
        tools.contains(&"mcp__web__whoami".to_owned())
            && tools.contains(&"mcp__web__add".to_owned()),
        "tools shown: {tools:?}"
    );
    // The server granted an authorization code exactly as a browser's
    // sign-in would have it (its record of grants).
    let issued: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(record.path())?)?;
    assert_eq!(issued["grants"]["authorization_code"], 1, "{issued}");
    window.screenshot("mcp-sign-in-02-connected").await?;
    window.quit().await
}
