//! Real HTTP servers on 127.0.0.1 for the web tool tests: a plain tokio
//! listener speaking just enough HTTP/1.1 that each test can answer the
//! way it needs (redirects, slow bodies, endless bodies, compression), and
//! the real permission engine and pipeline around the tool.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use gatehouse_core::ask::AskHandler;
use gatehouse_core::events::MemorySink;
use gatehouse_core::runtime::ToolCallResult;
use gatehouse_core::testing::call;
use gatehouse_core::{Tool, ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_permissions::rule::RuleKind;
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::permission::PermissionMode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request target (`/path?query`).
    pub path: String,
    /// Header lines, names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

type Handler =
    Arc<dyn Fn(Request, TcpStream) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// A server on 127.0.0.1 and the paths it was asked for.
pub struct Server {
    /// Its port.
    pub port: u16,
    /// Every request target, in order.
    pub requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Starts a server answering each request with `handler`.
    pub async fn start<F, Fut>(handler: F) -> Server
    where
        F: Fn(Request, TcpStream) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |r, s| Box::pin(handler(r, s)));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let handler = Arc::clone(&handler);
                let seen = Arc::clone(&seen);
                tokio::spawn(async move {
                    if let Some(request) = read_request(&mut stream).await {
                        seen.lock().unwrap().push(request.path.clone());
                        handler(request, stream).await;
                    }
                });
            }
        });
        Server { port, requests }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The paths requested so far.
    pub fn seen(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// Reads one request head (bounded: 64 KiB).
async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut byte = [0_u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut byte).await.ok()?;
        if n == 0 || buf.len() > 65536 {
            return None;
        }
        buf.extend_from_slice(&byte[..n]);
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let mut lines = text.split("\r\n");
    let path = lines.next()?.split(' ').nth(1)?.to_owned();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Some(Request { path, headers })
}

/// Writes a whole response and closes the connection.
pub async fn respond(mut stream: TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body).await;
    let _ = stream.shutdown().await;
}

/// A redirect to `location`.
pub async fn redirect(stream: TcpStream, location: &str) {
    respond(stream, "302 Found", &[("Location", location)], b"").await;
}

/// The real permission engine with these rules given as flags (the highest
/// non-policy source), in `mode`.
pub fn engine(
    dir: &Path,
    allow: &[&str],
    deny: &[&str],
    mode: PermissionMode,
) -> Arc<PermissionEngine> {
    let mut layout = SettingsLayout::new(dir, dir);
    layout.flag_rules = allow
        .iter()
        .map(|r| (RuleKind::Allow, (*r).to_owned()))
        .chain(deny.iter().map(|r| (RuleKind::Deny, (*r).to_owned())))
        .collect();
    Arc::new(PermissionEngine::new(
        EngineContext {
            cwd: dir.to_path_buf(),
            home: dir.to_path_buf(),
            additional_dirs: Vec::new(),
            mode,
        },
        load(&layout),
    ))
}

/// A runtime over `tool` deciding with `engine`, answering asks with `ask`.
pub fn runtime(
    tool: Arc<dyn Tool>,
    engine: Arc<PermissionEngine>,
    ask: Option<Arc<dyn AskHandler>>,
    dir: &Path,
) -> (Arc<ToolRuntime>, Arc<MemorySink>) {
    let sink = Arc::new(MemorySink::new());
    let mut builder = ToolRuntime::builder(Arc::new(ToolPool::new(vec![tool])), engine, dir)
        .session_id("web-test")
        .event_sink(sink.clone());
    if let Some(ask) = ask {
        builder = builder.ask_handler(ask);
    }
    (builder.build(), sink)
}

/// Runs one WebFetch of `url` (id `fetch-1`) through `rt`.
pub async fn fetch(rt: &Arc<ToolRuntime>, url: &str) -> ToolCallResult {
    let mut ctx = ToolUseContext {
        session_id: "web-test".into(),
        ..ToolUseContext::default()
    };
    rt.run_one(
        call(
            "fetch-1",
            "WebFetch",
            serde_json::json!({"url": url, "prompt": "What is on the page?"}),
        ),
        &mut ctx,
        &CancellationToken::new(),
    )
    .await
}
