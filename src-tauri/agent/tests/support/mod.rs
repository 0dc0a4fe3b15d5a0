//! A tiny scripted HTTP/1.1 server on 127.0.0.1 for provider tests: each
//! connection gets the next scripted reply, streamed in chunks (chunked
//! transfer encoding) with pauses, waits and abrupt drops.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One piece of a reply body.
pub enum Part {
    /// Bytes sent as one chunk.
    Bytes(Vec<u8>),
    /// A pause.
    Pause(Duration),
    /// Wait for a condition (polled every 2 ms, up to 10 s).
    Until(Arc<dyn Fn() -> bool + Send + Sync>),
    /// Close the connection now, mid-body.
    Drop,
    /// Never send anything more; the client closing the connection is
    /// counted in [`Server::closed`].
    Hang,
}

/// One scripted reply.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub parts: Vec<Part>,
}

impl Reply {
    /// A 200 SSE reply.
    pub fn sse(parts: Vec<Part>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            parts,
        }
    }

    /// An error reply with a JSON body.
    pub fn error(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            parts: vec![Part::Bytes(body.as_bytes().to_vec())],
        }
    }

    /// Adds a header.
    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
}

/// One received request.
#[derive(Debug, Clone)]
pub struct Request {
    pub head: String,
    pub body: serde_json::Value,
    /// The body's bytes as received.
    pub raw: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
}

/// The server: a base URL, the replies still to send, the requests seen.
pub struct Server {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    /// When each request arrived.
    pub arrivals: Arc<Mutex<Vec<std::time::Instant>>>,
    /// When each reply's last byte was written.
    pub finished: Arc<Mutex<Vec<std::time::Instant>>>,
    /// How many hanging replies saw the client close the connection.
    pub closed: Arc<Mutex<u32>>,
}

type Boxed = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Starts a server on 127.0.0.1 with `replies`, one per connection.
pub async fn serve(replies: Vec<Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let finished = Arc::new(Mutex::new(Vec::new()));
    let closed = Arc::new(Mutex::new(0));
    let (req2, arr2, fin2, closed2) = (
        requests.clone(),
        arrivals.clone(),
        finished.clone(),
        closed.clone(),
    );
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            let (replies, requests, arrivals, finished, closed) = (
                replies.clone(),
                req2.clone(),
                arr2.clone(),
                fin2.clone(),
                closed2.clone(),
            );
            let task: Boxed = Box::pin(async move {
                handle(sock, replies, requests, arrivals, finished, closed).await;
            });
            tokio::spawn(task);
        }
    });
    Server {
        url,
        requests,
        arrivals,
        finished,
        closed,
    }
}

async fn read_request(sock: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let raw = buf[head_end..head_end + len].to_vec();
    let body = serde_json::from_slice(&raw).unwrap_or_default();
    Some(Request { head, body, raw })
}

async fn handle(
    mut sock: TcpStream,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<Request>>>,
    arrivals: Arc<Mutex<Vec<std::time::Instant>>>,
    finished: Arc<Mutex<Vec<std::time::Instant>>>,
    closed: Arc<Mutex<u32>>,
) {
    let Some(request) = read_request(&mut sock).await else {
        return;
    };
    arrivals.lock().unwrap().push(std::time::Instant::now());
    requests.lock().unwrap().push(request);
    let Some(reply) = replies.lock().unwrap().pop_front() else {
        let _ = sock
            .write_all(b"HTTP/1.1 500 No Script\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        return;
    };
    let mut head = format!(
        "HTTP/1.1 {} X\r\ntransfer-encoding: chunked\r\nconnection: close\r\n",
        reply.status
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    if sock.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for part in reply.parts {
        match part {
            Part::Bytes(b) => {
                if b.is_empty() {
                    continue;
                }
                let mut chunk = format!("{:x}\r\n", b.len()).into_bytes();
                chunk.extend_from_slice(&b);
                chunk.extend_from_slice(b"\r\n");
                if sock.write_all(&chunk).await.is_err() {
                    return;
                }
                let _ = sock.flush().await;
            }
            Part::Pause(d) => tokio::time::sleep(d).await,
            Part::Until(cond) => {
                let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
                while !cond() && tokio::time::Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            }
            Part::Drop => return,
            Part::Hang => {
                // Nothing more is sent; wait for the client to go away.
                let mut byte = [0_u8; 1];
                while matches!(sock.read(&mut byte).await, Ok(n) if n > 0) {}
                *closed.lock().unwrap() += 1;
                return;
            }
        }
    }
    let _ = sock.write_all(b"0\r\n\r\n").await;
    let _ = sock.flush().await;
    finished.lock().unwrap().push(std::time::Instant::now());
    let _ = sock.shutdown().await;
}

/// One SSE event as bytes.
pub fn sse(event: &str, data: &serde_json::Value) -> Vec<u8> {
    format!("event: {event}\ndata: {data}\n\n").into_bytes()
}
