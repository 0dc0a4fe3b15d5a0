//! Issue 22 item 4 in the real window: a WebFetch call shows every URL it
//! visited with the decision for each hop (a redirect to another host
//! decided by its own rule; a redirect into the cloud-metadata range asked
//! about as a new host and, allowed once, still blocked), the response's
//! status, type and size, and the page as Markdown behind "Show page". The pages come from a real HTTP server on
//! 127.0.0.1; the loopback hosts are reachable only because the project's
//! settings name them in allow rules.

use std::io::{Read, Write};
use std::net::TcpListener;

use gatehouse_e2e::{App, setup, until};
use serde_json::json;

fn call(id: &str) -> String {
    format!("[data-testid=tool-call][data-tool-use-id={id}]")
}

/// Serves `/start` (a redirect to `localhost`), `/page` (HTML) and
/// `/metadata` (a redirect to 169.254.169.254) until the test ends.
fn serve() -> anyhow::Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let n = stream.read(&mut request).unwrap_or(0);
            let head = String::from_utf8_lossy(&request[..n]);
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let reply = match path.as_str() {
                "/start" => format!(
                    "HTTP/1.1 302 Found\r\nLocation: http://localhost:{port}/page\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                ),
                "/metadata" => "HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned(),
                _ => {
                    let body = "<html><head><title>Release notes</title></head><body><h1>Release notes</h1><p>Version <b>2.1</b> fixes the parser.</p><ul><li>faster</li><li>safer</li></ul></body></html>";
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                }
            };
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    Ok(port)
}

#[tokio::test]
async fn a_webfetch_call_shows_each_hop_with_its_decision_and_the_page() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let port = serve()?;
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("web");
    std::fs::create_dir_all(project.join(".claude"))?;
    std::fs::write(
        project.join(".claude/settings.json"),
        json!({"permissions": {"allow": [
            "WebFetch(domain:127.0.0.1)",
            "WebFetch(domain:localhost)"
        ]}})
        .to_string(),
    )?;
    let project = project.canonicalize()?;
    let script = folders.path().join("script.json");
    let fetch = |id: &str, path: &str| {
        json!({"content": [{"type": "tool_use", "id": id, "name": "WebFetch", "input": {
            "url": format!("http://127.0.0.1:{port}{path}"),
            "prompt": "What changed?"
        }}]})
    };
    std::fs::write(
        &script,
        serde_json::to_vec(&json!({"turns": [
            fetch("w1", "/start"),
            {"content": [{"type": "text", "text": "Read."}]},
            fetch("w2", "/metadata"),
            {"content": [{"type": "text", "text": "Refused."}]}
        ]}))?,
    )?;
    let project_text = project.display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_text)],
    )
    .await?;
    window.open_replay_session(&script).await?;

    window.send_prompt("read the release notes").await?;
    let hops_css = format!("{} [data-testid=web-hop]", call("w1"));
    until("w1's two hops", 60, || async {
        Ok((window.exists(&hops_css).await?
            && window.attrs(&hops_css, "data-decision").await?.len() == 2)
            .then_some(()))
    })
    .await?;
    // The first URL is the one the call's own decision covered; the
    // redirect to another host was decided again, by that host's own rule.
    assert_eq!(
        window.attrs(&hops_css, "data-decision").await?,
        ["covered", "allowed"]
    );
    let hops = window.texts(&hops_css).await?;
    assert!(
        hops[0].contains(&format!("127.0.0.1:{port}/start")),
        "{hops:?}"
    );
    assert!(
        hops[1].contains(&format!("localhost:{port}/page")),
        "{hops:?}"
    );
    let response = window
        .texts(&format!("{} [data-testid=web-response]", call("w1")))
        .await?
        .join("");
    assert!(
        response.contains("200") && response.contains("text/html"),
        "{response}"
    );
    window
        .click(&format!("{} [data-testid=web-page-toggle]", call("w1")))
        .await?;
    let page = window
        .texts(&format!("{} [data-testid=web-page]", call("w1")))
        .await?
        .join("");
    assert!(
        page.contains("Release notes") && page.contains("fixes the parser"),
        "{page}"
    );
    window.screenshot("webfetch-hops-and-page").await?;

    window.send_prompt("and the metadata").await?;
    // The redirect to a new host is a new permission question, shown as one;
    // "Allow once" does not open the local network: only an allow rule
    // naming the host would, so the hop is still blocked.
    let modal = window
        .texts("[data-testid=permission-modal]")
        .await?
        .join("");
    assert!(modal.contains("169.254.169.254"), "{modal}");
    window.click("[data-testid=permission-allow-once]").await?;
    let blocked_css = format!("{} [data-testid=web-hop]", call("w2"));
    until("w2's blocked hop", 60, || async {
        Ok((window.exists(&blocked_css).await?
            && window.attrs(&blocked_css, "data-decision").await?.len() == 2)
            .then_some(()))
    })
    .await?;
    assert_eq!(
        window.attrs(&blocked_css, "data-decision").await?,
        ["covered", "blocked"],
        "the redirect into 169.254.0.0/16 is refused at the hop"
    );
    window.screenshot("webfetch-blocked-hop").await?;
    window.quit().await
}
