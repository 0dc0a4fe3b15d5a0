//! WebFetch against real HTTP servers on 127.0.0.1, through the real
//! pipeline and permission engine (issue 22). Local addresses are refused
//! by the SSRF guard unless an allow rule names the host exactly, so every
//! test that fetches from its server carries `WebFetch(domain:127.0.0.1)`
//! (or `localhost`) — the exception is a rule, never a bypass in the tool.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod web_support;

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use gatehouse_core::ask::AskAnswer;
use gatehouse_core::runtime::CallStatus;
use gatehouse_core::testing::ScriptedAsk;
use gatehouse_core::{ToolRuntime, Typed};
use gatehouse_protocol::event::{ContentBlock, Event, EventBody};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_protocol::web::{WebHop, WebHopDecision};
use gatehouse_tools::web::{WebFetchConfig, WebFetchTool};
use tokio::io::AsyncWriteExt;
use web_support::{Server, engine, fetch, redirect, respond, runtime};

const LOCAL: &str = "WebFetch(domain:127.0.0.1)";

fn tool(config: WebFetchConfig) -> Arc<dyn gatehouse_core::Tool> {
    Typed::arc(WebFetchTool::new(config).unwrap())
}

/// A runtime allowing 127.0.0.1 by rule, default limits.
fn local_runtime(dir: &std::path::Path) -> Arc<ToolRuntime> {
    let rules = engine(dir, &[LOCAL], &[], PermissionMode::Default);
    runtime(tool(WebFetchConfig::default()), rules, None, dir).0
}

fn hops(events: &[Event]) -> Vec<WebHop> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolProgress {
                data: ToolProgressData::WebHop { hop },
                ..
            } => Some(hop.clone()),
            _ => None,
        })
        .collect()
}

async fn serve_fixture(name: &'static str) -> Server {
    let path = format!("{}/tests/fixtures/web/{name}", env!("CARGO_MANIFEST_DIR"));
    let html = std::fs::read(path).unwrap();
    Server::start(move |_, stream| {
        let html = html.clone();
        async move {
            respond(
                stream,
                "200 OK",
                &[("Content-Type", "text/html; charset=utf-8")],
                &html,
            )
            .await;
        }
    })
    .await
}

#[tokio::test]
async fn a_docs_page_becomes_markdown_with_its_code_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_fixture("docs-cargo-manifest.html").await;
    let result = fetch(&local_runtime(dir.path()), &server.url("/manifest.html")).await;
    assert_eq!(result.status, CallStatus::Succeeded, "{}", result.text());
    let text = result.text();
    assert!(
        text.starts_with(&format!("Source: {}", server.url("/manifest.html"))),
        "{text}"
    );
    // Headings keep their anchors as links; code stays fenced.
    assert!(
        text.contains("\n# [The Manifest Format](#the-manifest-format)\n"),
        "{text}"
    );
    assert!(
        text.contains("\n## [The `[package]` section](#the-package-section)\n"),
        "{text}"
    );
    assert!(text.contains("```"), "fenced code blocks are kept");
    assert!(
        text.contains("name = \"hello_world\" # the name of the package"),
        "{text}"
    );
    assert!(!text.contains("<script"), "scripts are dropped");
}

#[tokio::test]
async fn a_page_with_tables_and_code_keeps_both() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_fixture("tables-code-std-option.html").await;
    let result = fetch(&local_runtime(dir.path()), &server.url("/option.html")).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Succeeded, "{text}");
    // A GFM table: a header row and its delimiter row.
    assert!(
        text.lines()
            .any(|l| l.starts_with('|') && l.contains("---")),
        "{text}"
    );
    assert!(text.contains("```"), "{text}");
    assert!(text.contains("Option"), "{text}");
}

#[tokio::test]
async fn a_news_page_keeps_its_headlines_as_links() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_fixture("news-hacker-news.html").await;
    let result = fetch(&local_runtime(dir.path()), &server.url("/news")).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Succeeded, "{text}");
    assert!(text.contains("Hacker News"), "{text}");
    // Headlines are Markdown links with absolute targets.
    assert!(text.contains("](https://"), "{text}");
    assert!(
        text.contains("No small model is configured"),
        "the prompt was not applied: said so"
    );
}

#[tokio::test]
async fn a_redirect_to_a_denied_host_is_refused_at_the_hop() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        let port = req
            .header("host")
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap()
            .to_owned();
        match req.path.as_str() {
            "/start" => redirect(stream, "/next").await,
            "/next" => redirect(stream, &format!("http://localhost:{port}/secret")).await,
            _ => {
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "text/plain")],
                    b"secret",
                )
                .await
            }
        }
    })
    .await;
    let rules = engine(
        dir.path(),
        &[LOCAL],
        &["WebFetch(domain:localhost)"],
        PermissionMode::Default,
    );
    let ask = ScriptedAsk::new(AskAnswer::AllowOnce);
    let (rt, sink) = runtime(
        tool(WebFetchConfig::default()),
        rules,
        Some(ask.clone()),
        dir.path(),
    );
    let result = fetch(&rt, &server.url("/start")).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Failed, "{text}");
    assert!(text.contains("to localhost was refused"), "{text}");
    assert!(
        text.contains("WebFetch(domain:localhost)"),
        "the deny rule is named: {text}"
    );
    assert_eq!(
        server.seen(),
        ["/start", "/next"],
        "the denied host was never contacted"
    );
    assert_eq!(ask.count(), 0, "a deny rule is final: nobody is asked");
    let decisions: Vec<_> = hops(&sink.events()).iter().map(|h| h.decision).collect();
    assert_eq!(
        decisions,
        [
            WebHopDecision::Covered,
            WebHopDecision::Covered,
            WebHopDecision::Denied
        ]
    );
}

#[tokio::test]
async fn a_redirect_to_a_new_host_is_a_new_permission_question() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        let port = req
            .header("host")
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap()
            .to_owned();
        match req.path.as_str() {
            "/start" => redirect(stream, &format!("http://localhost:{port}/page")).await,
            _ => {
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "text/plain")],
                    b"hello",
                )
                .await
            }
        }
    })
    .await;
    // Asked, and the user says no: refused at the hop.
    let denied = ScriptedAsk::new(AskAnswer::Deny { feedback: None });
    let (rt, sink) = runtime(
        tool(WebFetchConfig::default()),
        engine(dir.path(), &[LOCAL], &[], PermissionMode::Default),
        Some(denied.clone()),
        dir.path(),
    );
    let result = fetch(&rt, &server.url("/start")).await;
    assert_eq!(result.status, CallStatus::Failed);
    assert_eq!(denied.count(), 1);
    let asked = denied.requests.lock().unwrap()[0].clone();
    assert_eq!(asked.tool_name, "WebFetch");
    assert_eq!(
        asked.input["url"],
        format!("http://localhost:{}/page", server.port)
    );
    assert_eq!(
        hops(&sink.events()).last().unwrap().decision,
        WebHopDecision::Denied
    );

    // Asked, and the user allows it once: the host is permitted, but it is
    // on the local network and no allow rule names it, so the guard still
    // refuses it (an answer is not an explicit rule).
    let allowed = ScriptedAsk::new(AskAnswer::AllowOnce);
    let (rt, sink) = runtime(
        tool(WebFetchConfig::default()),
        engine(dir.path(), &[LOCAL], &[], PermissionMode::Default),
        Some(allowed.clone()),
        dir.path(),
    );
    let result = fetch(&rt, &server.url("/start")).await;
    assert_eq!(result.status, CallStatus::Failed, "{}", result.text());
    assert!(
        result.text().contains("resolves only to addresses"),
        "{}",
        result.text()
    );
    assert_eq!(allowed.count(), 1);
    assert_eq!(
        hops(&sink.events()).last().unwrap().decision,
        WebHopDecision::Blocked
    );

    // An allow rule naming the new host: no question, and it is fetched.
    let never = ScriptedAsk::new(AskAnswer::Deny { feedback: None });
    let (rt, sink) = runtime(
        tool(WebFetchConfig::default()),
        engine(
            dir.path(),
            &[LOCAL, "WebFetch(domain:localhost)"],
            &[],
            PermissionMode::Default,
        ),
        Some(never.clone()),
        dir.path(),
    );
    let result = fetch(&rt, &server.url("/start")).await;
    assert_eq!(result.status, CallStatus::Succeeded, "{}", result.text());
    assert!(result.text().contains("hello"));
    assert!(
        result
            .text()
            .starts_with(&format!("Source: http://localhost:{}/page", server.port)),
        "the final URL is cited: {}",
        result.text()
    );
    assert_eq!(never.count(), 0);
    let last = hops(&sink.events()).pop().unwrap();
    assert_eq!(last.decision, WebHopDecision::Allowed);
    assert_eq!(last.status, Some(200));
}

#[tokio::test]
async fn a_redirect_loop_ends_with_an_error_naming_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        let to = if req.path == "/a" { "/b" } else { "/a" };
        redirect(stream, to).await;
    })
    .await;
    let result = fetch(&local_runtime(dir.path()), &server.url("/a")).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Failed, "{text}");
    assert!(text.contains("redirect loop"), "{text}");
    assert!(text.contains(&server.url("/b")), "{text}");
    assert_eq!(server.seen(), ["/a", "/b"]);
}

#[tokio::test]
async fn a_redirect_to_a_file_url_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|_, stream| redirect(stream, "file:///etc/passwd")).await;
    let result = fetch(&local_runtime(dir.path()), &server.url("/")).await;
    assert_eq!(result.status, CallStatus::Failed);
    assert!(
        result.text().contains("`file:` scheme is refused"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_50_mb_body_is_cut_at_the_cap_while_streaming() {
    let dir = tempfile::tempdir().unwrap();
    let written = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&written);
    let server = Server::start(move |_, mut stream| {
        let counter = Arc::clone(&counter);
        async move {
            let total: u64 = 50 * 1024 * 1024;
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {total}\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await.unwrap();
            let chunk = vec![b'x'; 64 * 1024];
            while counter.load(Ordering::SeqCst) < total {
                if stream.write_all(&chunk).await.is_err() {
                    break; // the client stopped reading
                }
                counter.fetch_add(chunk.len() as u64, Ordering::SeqCst);
            }
        }
    })
    .await;
    let config = WebFetchConfig::default();
    let cap = config.max_bytes as u64;
    let rules = engine(dir.path(), &[LOCAL], &[], PermissionMode::Default);
    let (rt, sink) = runtime(tool(config), rules, None, dir.path());
    let result = fetch(&rt, &server.url("/big")).await;
    assert_eq!(
        result.status,
        CallStatus::Succeeded,
        "{:.200}",
        result.text()
    );
    let response = sink.events().into_iter().find_map(|e| match e.body {
        EventBody::ToolProgress {
            data: ToolProgressData::WebResponse {
                bytes, truncated, ..
            },
            ..
        } => Some((bytes, truncated)),
        _ => None,
    });
    assert_eq!(response, Some((cap, true)));
    assert!(result.text().contains("cut at the size cap"));
    // The client hung up at the cap: the server could not send it all.
    assert!(written.load(Ordering::SeqCst) < 50 * 1024 * 1024);
}

#[tokio::test]
async fn a_slow_loris_server_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|_, mut stream| async move {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n";
        stream.write_all(head.as_bytes()).await.unwrap();
        // One byte now and then, never the whole body.
        loop {
            if stream.write_all(b"x").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let config = WebFetchConfig {
        total_timeout: Duration::from_millis(300),
        ..WebFetchConfig::default()
    };
    let rules = engine(dir.path(), &[LOCAL], &[], PermissionMode::Default);
    let (rt, _) = runtime(tool(config), rules, None, dir.path());
    let result = fetch(&rt, &server.url("/slow")).await;
    assert_eq!(result.status, CallStatus::TimedOut, "{}", result.text());
    assert!(
        result.text().contains("took longer than"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_server_closing_mid_body_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|_, mut stream| async move {
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly this";
        stream.write_all(head.as_bytes()).await.unwrap();
        // Dropped: the connection closes 991 bytes early.
    })
    .await;
    let result = fetch(&local_runtime(dir.path()), &server.url("/cut")).await;
    assert_eq!(result.status, CallStatus::Failed);
    assert!(
        result
            .text()
            .contains(&format!("reading {} failed", server.url("/cut"))),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_non_utf8_page_is_decoded_by_its_charset() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        // "Crème brûlée — 5 €" in windows-1252 (€ is 0x80 there).
        let body: &[u8] = b"<html><body><h1>Cr\xe8me br\xfbl\xe9e</h1><p>5 \x80</p></body></html>";
        if req.path == "/header" {
            respond(
                stream,
                "200 OK",
                &[("Content-Type", "text/html; charset=windows-1252")],
                body,
            )
            .await;
        } else {
            // Shift_JIS declared in <meta> only: "日本語".
            let page = [
                &b"<html><head><meta charset=\"Shift_JIS\"></head><body><p>"[..],
                b"\x93\xfa\x96\x7b\x8c\xea",
                b"</p></body></html>",
            ]
            .concat();
            respond(stream, "200 OK", &[("Content-Type", "text/html")], &page).await;
        }
    })
    .await;
    let rt = local_runtime(dir.path());
    let text = fetch(&rt, &server.url("/header")).await.text();
    assert!(text.contains("# Crème brûlée"), "{text}");
    assert!(text.contains("5 €"), "{text}");
    let text = fetch(&rt, &server.url("/meta")).await.text();
    assert!(text.contains("日本語"), "{text}");
}

#[tokio::test]
async fn gzip_and_brotli_bodies_are_decompressed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        let page = b"<h1>Compressed</h1><p>it worked</p>";
        let accepts = req.header("accept-encoding").unwrap_or_default().to_owned();
        if req.path == "/gzip" {
            assert!(accepts.contains("gzip"), "{accepts}");
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(page).unwrap();
            let body = enc.finish().unwrap();
            respond(
                stream,
                "200 OK",
                &[("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
                &body,
            )
            .await;
        } else {
            assert!(accepts.contains("br"), "{accepts}");
            let mut body = Vec::new();
            {
                let mut enc = brotli::CompressorWriter::new(&mut body, 4096, 5, 22);
                enc.write_all(page).unwrap();
            }
            respond(
                stream,
                "200 OK",
                &[("Content-Type", "text/html"), ("Content-Encoding", "br")],
                &body,
            )
            .await;
        }
    })
    .await;
    let rt = local_runtime(dir.path());
    for path in ["/gzip", "/br"] {
        let text = fetch(&rt, &server.url(path)).await.text();
        assert!(text.contains("# Compressed"), "{path}: {text}");
        assert!(text.contains("it worked"), "{path}: {text}");
    }
}

#[tokio::test]
async fn json_is_kept_images_are_image_blocks_and_other_types_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        match req.path.as_str() {
            "/data.json" => {
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "application/json")],
                    br#"{"a": [1, 2]}"#,
                )
                .await
            }
            "/pixel.png" => {
                let mut png = std::io::Cursor::new(Vec::new());
                image::DynamicImage::new_rgb8(3, 2)
                    .write_to(&mut png, image::ImageFormat::Png)
                    .unwrap();
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "image/png")],
                    &png.into_inner(),
                )
                .await;
            }
            _ => {
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "application/zip")],
                    b"PK\x03\x04",
                )
                .await
            }
        }
    })
    .await;
    let rt = local_runtime(dir.path());
    let json = fetch(&rt, &server.url("/data.json")).await;
    assert!(json.text().contains(r#"{"a": [1, 2]}"#), "{}", json.text());
    let png = fetch(&rt, &server.url("/pixel.png")).await;
    assert_eq!(png.status, CallStatus::Succeeded, "{}", png.text());
    assert!(
        png.content.iter().any(
            |b| matches!(b, ContentBlock::Image { source } if source.media_type == "image/png")
        )
    );
    assert!(png.text().contains(&server.url("/pixel.png")));
    let zip = fetch(&rt, &server.url("/a.zip")).await;
    assert_eq!(zip.status, CallStatus::Failed);
    assert!(zip.text().contains("`application/zip`"), "{}", zip.text());
}

#[tokio::test]
async fn an_error_status_is_reported_with_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|_, stream| async move {
        respond(
            stream,
            "404 Not Found",
            &[("Content-Type", "text/plain")],
            b"no such page",
        )
        .await;
    })
    .await;
    let result = fetch(&local_runtime(dir.path()), &server.url("/missing")).await;
    assert_eq!(result.status, CallStatus::Failed);
    let text = result.text();
    assert!(
        text.contains(&server.url("/missing")) && text.contains("404"),
        "{text}"
    );
    assert!(text.contains("no such page"), "{text}");
}

#[tokio::test]
async fn a_page_is_cached_for_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|_, stream| async move {
        respond(
            stream,
            "200 OK",
            &[("Content-Type", "text/plain")],
            b"cached text",
        )
        .await;
    })
    .await;
    let rules = engine(dir.path(), &[LOCAL], &[], PermissionMode::Default);
    let (rt, sink) = runtime(tool(WebFetchConfig::default()), rules, None, dir.path());
    assert!(
        fetch(&rt, &server.url("/c"))
            .await
            .text()
            .contains("cached text")
    );
    assert!(
        fetch(&rt, &server.url("/c"))
            .await
            .text()
            .contains("cached text")
    );
    assert_eq!(
        server.seen(),
        ["/c"],
        "the second fetch came from the cache"
    );
    let from_cache: Vec<bool> = sink
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::ToolProgress {
                data: ToolProgressData::WebResponse { from_cache, .. },
                ..
            } => Some(from_cache),
            _ => None,
        })
        .collect();
    assert_eq!(from_cache, [false, true]);
}

// --- The local network (SSRF) ---------------------------------------------

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_without_an_allow_rule() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|_, stream| async move {
        respond(
            stream,
            "200 OK",
            &[("Content-Type", "text/plain")],
            b"internal",
        )
        .await;
    })
    .await;
    // bypassPermissions allows the call without any rule: the guard alone
    // stands between the call and the loopback address.
    let rules = engine(dir.path(), &[], &[], PermissionMode::BypassPermissions);
    let (rt, sink) = runtime(tool(WebFetchConfig::default()), rules, None, dir.path());
    let url = format!("http://localhost:{}/", server.port);
    let result = fetch(&rt, &url).await;
    assert_eq!(result.status, CallStatus::Failed, "{}", result.text());
    assert!(
        result.text().contains("127.0.0.1 (loopback)") || result.text().contains("::1 (loopback)"),
        "{}",
        result.text()
    );
    assert!(server.seen().is_empty(), "nothing reached the server");
    assert_eq!(hops(&sink.events())[0].decision, WebHopDecision::Blocked);
    // The same with an IP literal.
    let result = fetch(&rt, &server.url("/")).await;
    assert!(result.text().contains("loopback"), "{}", result.text());
    assert!(server.seen().is_empty());
    // A wildcard rule does not name the host exactly.
    let rules = engine(
        dir.path(),
        &["WebFetch(domain:*.localhost)"],
        &[],
        PermissionMode::BypassPermissions,
    );
    let (rt, _) = runtime(tool(WebFetchConfig::default()), rules, None, dir.path());
    assert_eq!(fetch(&rt, &url).await.status, CallStatus::Failed);
    // An allow rule naming it: fetched (in bypassPermissions too, where
    // the mode, not the rule, decides the call).
    let rules = engine(
        dir.path(),
        &["WebFetch(domain:localhost)"],
        &[],
        PermissionMode::BypassPermissions,
    );
    let (rt, _) = runtime(tool(WebFetchConfig::default()), rules, None, dir.path());
    let result = fetch(&rt, &url).await;
    assert_eq!(result.status, CallStatus::Succeeded, "{}", result.text());
    assert!(result.text().contains("internal"));
}

#[tokio::test]
async fn cloud_metadata_and_wrapped_loopback_are_refused_before_connecting() {
    let dir = tempfile::tempdir().unwrap();
    let rules = engine(dir.path(), &[], &[], PermissionMode::BypassPermissions);
    let (rt, _) = runtime(tool(WebFetchConfig::default()), rules, None, dir.path());
    for (url, why) in [
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::ffff:127.0.0.1]:9/", "IPv4-mapped"),
        ("http://[::1]:9/", "loopback"),
        ("http://10.0.0.1/", "private"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://0x7f.0.0.1:9/", "loopback"),
        ("http://[fd00::1]/", "unique local"),
    ] {
        let result = fetch(&rt, url).await;
        assert_eq!(result.status, CallStatus::Failed, "{url}");
        assert!(result.text().contains(why), "{url}: {}", result.text());
        assert!(
            result.text().contains("allow rule"),
            "the way out is named: {}",
            result.text()
        );
    }
}

#[tokio::test]
async fn other_schemes_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, _) = runtime(
        tool(WebFetchConfig::default()),
        engine(dir.path(), &[], &[], PermissionMode::BypassPermissions),
        None,
        dir.path(),
    );
    for url in [
        "file:///etc/passwd",
        "data:text/plain,hi",
        "ftp://example.com/x",
        "not a url",
    ] {
        let result = fetch(&rt, url).await;
        assert!(
            matches!(result.status, CallStatus::Rejected(_)),
            "{url}: {:?}",
            result.status
        );
        assert!(
            result.text().contains(url),
            "the URL is named: {}",
            result.text()
        );
    }
}

#[tokio::test]
async fn a_backslash_userinfo_url_is_judged_by_its_real_host() {
    // WHATWG: `https://evil.com\@good.com/` is evil.com. An allow rule for
    // good.com must not cover it: the engine asks about it.
    let dir = tempfile::tempdir().unwrap();
    let ask = ScriptedAsk::new(AskAnswer::Deny { feedback: None });
    let (rt, _) = runtime(
        tool(WebFetchConfig::default()),
        engine(
            dir.path(),
            &["WebFetch(domain:good.com)"],
            &[],
            PermissionMode::Default,
        ),
        Some(ask.clone()),
        dir.path(),
    );
    let result = fetch(&rt, "https://evil.com\\@good.com/").await;
    assert_eq!(result.status, CallStatus::Denied, "{}", result.text());
    assert_eq!(ask.count(), 1, "asked, not allowed by the good.com rule");
}
