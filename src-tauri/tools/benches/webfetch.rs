//! `cargo xtask bench webfetch` (issue 22): what WebFetch costs over a plain
//! HTTP GET. A 100 KB HTML page (the saved Cargo manifest docs page,
//! repeated) served by a keep-alive-less server on 127.0.0.1; the median of
//! 200 fetches through the whole pipeline (real permission engine with a
//! `WebFetch(domain:127.0.0.1)` rule, SSRF guard, body stream, HTML →
//! Markdown, result mapping; a new query string each time so the cache never
//! answers) against the median of 200 plain `reqwest` GETs reading the same
//! body. Prints both medians and the ratio; sets no target (the issue asks
//! for the figure).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/web_support/mod.rs"]
mod web_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::testing::call;
use gatehouse_core::{ToolUseContext, Typed};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_tools::web::{WebFetchConfig, WebFetchTool};
use tokio_util::sync::CancellationToken;
use web_support::{Server, engine, respond, runtime};

const RUNS: usize = 200;
const WARMUP: usize = 20;
const PAGE_BYTES: usize = 100 * 1024;

fn page() -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/web/docs-cargo-manifest.html",
        env!("CARGO_MANIFEST_DIR")
    );
    let html = std::fs::read_to_string(path).unwrap();
    let body_at = html.find("<body").unwrap();
    let (head, body) = html.split_at(body_at);
    let mut page = head.to_owned();
    while page.len() < PAGE_BYTES {
        page.push_str(&body[..body.len().min(PAGE_BYTES - page.len())]);
    }
    page.into_bytes()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let body = Arc::new(page());
        let served = Arc::clone(&body);
        let server = Server::start(move |_, stream| {
            let body = Arc::clone(&served);
            async move {
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "text/html; charset=utf-8")],
                    &body,
                )
                .await;
            }
        })
        .await;

        let client = reqwest::Client::new();
        let mut plain = Vec::new();
        for i in 0..RUNS + WARMUP {
            let started = Instant::now();
            let bytes = client
                .get(server.url(&format!("/page?plain={i}")))
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            let took = started.elapsed();
            assert_eq!(bytes.len(), body.len());
            if i >= WARMUP {
                plain.push(took);
            }
        }

        let dir = tempfile::tempdir().unwrap();
        let rules = engine(
            dir.path(),
            &["WebFetch(domain:127.0.0.1)"],
            &[],
            PermissionMode::Default,
        );
        let tool = Typed::arc(WebFetchTool::new(WebFetchConfig::default()).unwrap());
        let (pipeline, _) = runtime(tool, rules, None, dir.path());
        let mut ctx = ToolUseContext::default();
        let token = CancellationToken::new();
        let mut fetched = Vec::new();
        for i in 0..RUNS + WARMUP {
            let input = serde_json::json!({
                "url": server.url(&format!("/page?fetch={i}")),
                "prompt": "What is on the page?"
            });
            let started = Instant::now();
            let result = pipeline
                .run_one(call(&format!("f{i}"), "WebFetch", input), &mut ctx, &token)
                .await;
            let took = started.elapsed();
            assert!(!result.is_error, "{}", result.text());
            if i >= WARMUP {
                fetched.push(took);
            }
        }

        let (plain, fetched) = (median(plain), median(fetched));
        println!("webfetch: {} KB page, median of {RUNS}", body.len() / 1024);
        println!(
            "  plain reqwest GET:        {:>9.3} ms",
            plain.as_secs_f64() * 1e3
        );
        println!(
            "  WebFetch via pipeline:    {:>9.3} ms",
            fetched.as_secs_f64() * 1e3
        );
        println!(
            "  overhead: {:.3} ms ({:.1}×)",
            (fetched.as_secs_f64() - plain.as_secs_f64()) * 1e3,
            fetched.as_secs_f64() / plain.as_secs_f64()
        );
    });
}
