//! HTTP hooks against a real HTTP/1.1 server on 127.0.0.1 that keeps
//! connections alive.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Env, hooks_json};
use gatehouse_core::CallStatus;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A keep-alive server answering every POST with `reply`; counts
/// connections and records bodies and headers.
struct Server {
    url: String,
    connections: Arc<AtomicUsize>,
    requests: Arc<std::sync::Mutex<Vec<(String, Value)>>>,
}

async fn serve(reply: &'static str, status: u16) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (c, r) = (Arc::clone(&connections), Arc::clone(&requests));
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            c.fetch_add(1, Ordering::SeqCst);
            let r = Arc::clone(&r);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                loop {
                    // One request: headers, then content-length bytes.
                    let head_end = loop {
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                        let mut chunk = [0u8; 4096];
                        match sock.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .map_or(0, |v| v.trim().parse().unwrap());
                    while buf.len() < head_end + len {
                        let mut chunk = [0u8; 4096];
                        match sock.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let body: Value =
                        serde_json::from_slice(&buf[head_end..head_end + len]).unwrap();
                    r.lock().unwrap().push((head, body));
                    buf.drain(..head_end + len);
                    let resp = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n{reply}",
                        reply.len()
                    );
                    if sock.write_all(resp.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Server {
        url,
        connections,
        requests,
    }
}

#[tokio::test]
async fn an_http_hook_gets_the_same_json_and_its_answer_decides_on_one_connection() {
    let server = serve(
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy server says no"}}"#,
        200,
    )
    .await;
    let env = Env::new();
    env.project_settings(&hooks_json(
        "PreToolUse",
        Some("Glob"),
        json!({"type": "http", "url": server.url, "headers": {"X-Team": "core"}}),
    ));
    let mut s = env.session();
    for id in ["t1", "t2", "t3"] {
        let r = s.call(id, "Glob", json!({"pattern": "*"})).await;
        assert_eq!(r.status, CallStatus::Denied);
        assert_eq!(
            r.text(),
            "PreToolUse:Glob hook error: policy server says no"
        );
    }
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    assert_eq!(server.connections.load(Ordering::SeqCst), 1, "kept alive");
    let (head, body) = &requests[0];
    assert!(head.contains("x-team: core"));
    assert!(head.contains("content-type: application/json"));
    assert_eq!(body["hook_event_name"], "PreToolUse");
    assert_eq!(body["tool_name"], "Glob");
    assert_eq!(body["tool_input"]["pattern"], "*");
    let run = s.hook_runs()[0].run.clone().unwrap();
    assert_eq!(run.exit_code, Some(200));
    assert_eq!(run.command, server.url);
}

#[tokio::test]
async fn an_http_hook_that_fails_refuses_or_lacks_its_secret_is_a_non_blocking_error() {
    let failing = serve("internal trouble", 500).await;
    // A port nobody listens on: bind, note it, close.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/hook", l.local_addr().unwrap())
    };
    let env = Env::new();
    let settings = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "http", "url": failing.url},
        {"type": "http", "url": closed},
        {"type": "http", "url": failing.url, "secretHeaders": ["Authorization"]}
    ]}]}});
    env.project_settings(&settings.to_string());
    let mut s = env.session();
    let r = s.call("t1", "Glob", json!({"pattern": "*"})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let runs = s.hook_runs();
    let errors: Vec<String> = runs.iter().map(|r| r.error.clone().unwrap()).collect();
    assert!(
        errors[0].contains("500") && errors[0].contains("internal trouble"),
        "{errors:#?}"
    );
    assert!(
        errors[1].contains(&format!("POST {closed} failed")),
        "{errors:#?}"
    );
    assert!(
        errors[2].contains("the secret header `Authorization` is not in the keychain"),
        "{errors:#?}"
    );
    assert!(runs.iter().all(|r| r.decision.is_none()));
}
