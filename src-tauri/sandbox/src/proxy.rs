//! The filtering HTTP/HTTPS proxy behind `sandbox.network.allowedDomains`.
//!
//! Gatehouse runs it on the host, one per sandboxed call, listening on a
//! Unix socket that is bound into the sandbox; inside, the
//! [`crate::bridge`] forwards a loopback port of the sandbox's own network
//! namespace to that socket, and `HTTP_PROXY`/`HTTPS_PROXY` point at the
//! port. The socket is the only way out: the namespace has nothing but
//! `lo`.
//!
//! Each connection sends one request head: `CONNECT host:port` (HTTPS and
//! anything tunnelled) or an absolute-form `GET http://host/…` (plain
//! HTTP). The host is normalised and decided by WebFetch's domain rules
//! ([`gatehouse_permissions::domain`]); an allowed one is connected to
//! from the host and relayed, a refused one gets `403 Forbidden`. Every
//! decision is recorded with the bytes relayed ([`ProxyConnection`]).
//!
//! Bounded: connections per call ([`ProxyLimits::max_connections`], then
//! `503`), at once ([`ProxyLimits::max_concurrent`]), the request head's
//! size and time, the connect time and the idle time of a relay. Dropping
//! the [`NetProxy`] ends the listener and every relay.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use gatehouse_permissions::domain::{DomainPattern, url_host};
use tokio::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};

/// What the proxy allows at most.
#[derive(Debug, Clone, Copy)]
pub struct ProxyLimits {
    /// Connections accepted per call; later ones get `503`.
    pub max_connections: usize,
    /// Connections relayed at once; others wait for a slot.
    pub max_concurrent: usize,
    /// Bytes of a request head (request line and headers).
    pub max_head_bytes: usize,
    /// Time to send the request head.
    pub head_timeout: Duration,
    /// Time to resolve and connect to the host.
    pub connect_timeout: Duration,
    /// A relay with no byte either way for this long is closed.
    pub idle_timeout: Duration,
}

impl Default for ProxyLimits {
    fn default() -> Self {
        Self {
            max_connections: 512,
            max_concurrent: 32,
            max_head_bytes: 16 * 1024,
            head_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
        }
    }
}

/// The hosts a proxy lets through, and how it finds them.
#[derive(Debug, Clone, Default)]
pub struct ProxyRules {
    /// `sandbox.network.allowedDomains`, parsed.
    pub allowed: Vec<DomainPattern>,
    /// Host names answered without DNS (normalised host → address). Empty
    /// in the app; the tests map a made-up name to 127.0.0.1 so they reach
    /// a local server without the internet or `/etc/hosts`.
    pub resolve: HashMap<String, IpAddr>,
    /// The bounds.
    pub limits: ProxyLimits,
}

impl ProxyRules {
    /// Whether `host` (normalised, as [`url_host`] gives it) is allowed.
    pub fn allows(&self, host: &str) -> bool {
        self.allowed.iter().any(|p| p.matches_host(host))
    }
}

/// One connection a sandboxed command asked the proxy for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyConnection {
    /// The host asked for (normalised).
    pub host: String,
    /// The port.
    pub port: u16,
    /// Whether `allowedDomains` let it through.
    pub allowed: bool,
    /// Bytes from the command to the host.
    pub bytes_up: u64,
    /// Bytes from the host to the command.
    pub bytes_down: u64,
    /// Why an allowed connection failed (resolve, connect), if it did.
    pub error: Option<String>,
}

type Log = Arc<Mutex<Vec<ProxyConnection>>>;

/// A running proxy: its socket, the connections so far. Dropping it stops
/// the listener and every relay and removes the socket.
#[derive(Debug)]
pub struct NetProxy {
    _dir: tempfile::TempDir,
    socket: PathBuf,
    log: Log,
    task: JoinHandle<()>,
}

impl NetProxy {
    /// Starts a proxy for `rules` on a fresh Unix socket (in a private
    /// temporary folder). Must be called inside a tokio runtime.
    pub fn start(rules: Arc<ProxyRules>) -> std::io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("gatehouse-proxy-")
            .tempdir()?;
        let socket = dir.path().join("proxy.sock");
        let listener = UnixListener::bind(&socket)?;
        let log: Log = Arc::default();
        let task = tokio::spawn(serve(listener, rules, Arc::clone(&log)));
        Ok(Self {
            _dir: dir,
            socket,
            log,
            task,
        })
    }

    /// The socket's path on the host.
    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// The connections so far, in the order they were asked for.
    pub fn connections(&self) -> Vec<ProxyConnection> {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for NetProxy {
    fn drop(&mut self) {
        // The accept task owns the relays' JoinSet: aborting it ends them.
        self.task.abort();
    }
}

async fn serve(listener: UnixListener, rules: Arc<ProxyRules>, log: Log) {
    let slots = Arc::new(Semaphore::new(rules.limits.max_concurrent.max(1)));
    let mut relays = JoinSet::new();
    let mut accepted = 0usize;
    loop {
        let Ok((mut client, _)) = listener.accept().await else {
            // Out of fds, say: do not spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        // Reap finished relays so the set stays small.
        while relays.try_join_next().is_some() {}
        accepted += 1;
        if accepted > rules.limits.max_connections {
            relays.spawn(async move {
                refuse(
                    &mut client,
                    answer(
                        503,
                        "the sandbox's connection limit for this command was reached",
                    ),
                )
                .await;
            });
            continue;
        }
        let (rules, log, slots) = (Arc::clone(&rules), Arc::clone(&log), Arc::clone(&slots));
        relays.spawn(async move {
            let Ok(_slot) = slots.acquire_owned().await else {
                return;
            };
            handle(client, &rules, &log).await;
        });
    }
}

/// A short plain-text answer that closes the connection.
fn answer(status: u16, why: &str) -> Vec<u8> {
    let reason = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        502 => "Bad Gateway",
        _ => "Service Unavailable",
    };
    let body = format!("Gatehouse sandbox: {why}\n");
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Sends `answer` and closes, first reading (and dropping) what the client
/// still sends, within bounds: a Unix socket closed with unread data makes
/// the client's read fail, and it would never see the answer.
async fn refuse(client: &mut UnixStream, answer: Vec<u8>) {
    if client.write_all(&answer).await.is_err() {
        return;
    }
    let _ = client.shutdown().await;
    let mut sink = [0u8; 4096];
    let mut left = 64 * 1024usize;
    let drain = async {
        while left > 0 {
            match client.read(&mut sink).await {
                Ok(n) if n > 0 => left = left.saturating_sub(n),
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
}

/// A parsed request head: where to, and what to send there first.
struct Request {
    host: String,
    port: u16,
    /// `None` for CONNECT; for plain HTTP the head rewritten to origin
    /// form.
    forward: Option<Vec<u8>>,
}

async fn handle(mut client: UnixStream, rules: &ProxyRules, log: &Log) {
    let limits = rules.limits;
    let head = match tokio::time::timeout(
        limits.head_timeout,
        read_head(&mut client, limits.max_head_bytes),
    )
    .await
    {
        Ok(Ok(Some(h))) => h,
        Ok(Ok(None)) => {
            refuse(&mut client, answer(400, "the request head is too large")).await;
            return;
        }
        Ok(Err(_)) | Err(_) => return,
    };
    let (req, rest) = match parse_head(&head) {
        Ok(r) => r,
        Err(why) => {
            refuse(&mut client, answer(400, &why)).await;
            return;
        }
    };
    let allowed = rules.allows(&req.host);
    let index = {
        let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
        log.push(ProxyConnection {
            host: req.host.clone(),
            port: req.port,
            allowed,
            bytes_up: 0,
            bytes_down: 0,
            error: None,
        });
        log.len() - 1
    };
    let record = |f: &(dyn Fn(&mut ProxyConnection) + Sync)| {
        if let Some(c) = log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(index)
        {
            f(c);
        }
    };
    if !allowed {
        let why = format!("{} is not in sandbox.network.allowedDomains", req.host);
        refuse(&mut client, answer(403, &why)).await;
        return;
    }
    let upstream =
        match tokio::time::timeout(limits.connect_timeout, connect(&req.host, req.port, rules))
            .await
        {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                let why = format!("cannot connect to {}:{}: {e}", req.host, req.port);
                record(&|c| c.error = Some(why.clone()));
                refuse(&mut client, answer(502, &why)).await;
                return;
            }
            Err(_) => {
                let why = format!(
                    "{}:{} did not answer within {} s",
                    req.host,
                    req.port,
                    limits.connect_timeout.as_secs()
                );
                record(&|c| c.error = Some(why.clone()));
                refuse(&mut client, answer(502, &why)).await;
                return;
            }
        };
    let mut first_up = Vec::new();
    match req.forward {
        None => {
            if client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await
                .is_err()
            {
                return;
            }
        }
        Some(head) => first_up = head,
    }
    first_up.extend_from_slice(rest);
    // The counts are written as bytes pass, so the record is current
    // whenever the command has seen them.
    let count = |up: u64, down: u64| {
        record(&|c| {
            c.bytes_up = up;
            c.bytes_down = down;
        });
    };
    relay(client, upstream, first_up, limits.idle_timeout, &count).await;
}

/// Reads up to the end of the request head (`\r\n\r\n`), at most `max`
/// bytes; `None` when it is longer. What follows the head in the same
/// read is kept after it.
async fn read_head(client: &mut UnixStream, max: usize) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
        if head_end(&buf).is_some() {
            return Ok(Some(buf));
        }
        if buf.len() > max {
            return Ok(None);
        }
    }
}

fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// The request and the bytes after its head.
fn parse_head(buf: &[u8]) -> Result<(Request, &[u8]), String> {
    let end = head_end(buf).ok_or("the request head is incomplete")?;
    let (head, rest) = buf.split_at(end);
    let text = std::str::from_utf8(head).map_err(|_| "the request head is not UTF-8")?;
    let (line, headers) = text.split_once("\r\n").ok_or("no request line")?;
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("`{line}` is not an HTTP request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(format!("{version} is not HTTP/1.x"));
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        if target.contains(['/', '@', '?', '#']) {
            return Err(format!("`{target}` is not host:port"));
        }
        let url = url::Url::parse(&format!("http://{target}/"))
            .map_err(|e| format!("`{target}` is not host:port: {e}"))?;
        let host = url_host(url.as_str()).ok_or(format!("`{target}` has no host"))?;
        let port = url.port().ok_or(format!("`{target}` has no port"))?;
        return Ok((
            Request {
                host,
                port,
                forward: None,
            },
            rest,
        ));
    }
    let url = url::Url::parse(target).map_err(|_| {
        format!("`{target}` is not an absolute http:// URL (a proxy request needs one)")
    })?;
    if url.scheme() != "http" {
        return Err(format!(
            "`{target}`: only http:// is proxied this way (https goes through CONNECT)"
        ));
    }
    let host = url_host(url.as_str()).ok_or(format!("`{target}` has no host"))?;
    let port = url.port_or_known_default().unwrap_or(80);
    let mut origin = url.path().to_owned();
    if let Some(q) = url.query() {
        origin.push('?');
        origin.push_str(q);
    }
    let mut forward = format!("{method} {origin} {version}\r\n");
    for header in headers.split("\r\n").filter(|h| !h.is_empty()) {
        let name = header.split(':').next().unwrap_or_default().trim();
        // Meant for the proxy, not the server.
        if name.eq_ignore_ascii_case("proxy-connection")
            || name.eq_ignore_ascii_case("proxy-authorization")
        {
            continue;
        }
        forward.push_str(header);
        forward.push_str("\r\n");
    }
    forward.push_str("\r\n");
    Ok((
        Request {
            host,
            port,
            forward: Some(forward.into_bytes()),
        },
        rest,
    ))
}

/// Connects to `host:port` from the host: the rules' own address when they
/// have one for the host, else DNS.
async fn connect(host: &str, port: u16, rules: &ProxyRules) -> std::io::Result<TcpStream> {
    if let Some(ip) = rules.resolve.get(host) {
        return TcpStream::connect(SocketAddr::new(*ip, port)).await;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    for addr in tokio::net::lookup_host((bare, port)).await? {
        match TcpStream::connect(addr).await {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Relays both ways until both sides are done or nothing moves for
/// `idle`, telling `count` the bytes (up, down) so far after each chunk.
/// `first_up` goes to the server first.
async fn relay(
    client: UnixStream,
    server: TcpStream,
    first_up: Vec<u8>,
    idle: Duration,
    count: &(dyn Fn(u64, u64) + Sync),
) {
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    if sw.write_all(&first_up).await.is_err() {
        return;
    }
    let mut up = first_up.len() as u64;
    let mut down = 0u64;
    count(up, down);
    let (mut up_open, mut down_open) = (true, true);
    let mut a = vec![0u8; 16 * 1024];
    let mut b = vec![0u8; 16 * 1024];
    while up_open || down_open {
        tokio::select! {
            r = cr.read(&mut a), if up_open => match pump(r, &a, &mut sw).await {
                Some(n) => up += n,
                None => up_open = false,
            },
            r = sr.read(&mut b), if down_open => match pump(r, &b, &mut cw).await {
                Some(n) => down += n,
                None => down_open = false,
            },
            () = tokio::time::sleep(idle) => break,
        }
        count(up, down);
    }
}

/// Writes what a read gave to `to`; `None` at the end of the stream or on
/// an error (then `to` is shut down so the other side sees the end).
async fn pump<W: AsyncWrite + Unpin>(
    read: std::io::Result<usize>,
    buf: &[u8],
    to: &mut W,
) -> Option<u64> {
    match read {
        Ok(n) if n > 0 => {
            let bytes = buf.get(..n).unwrap_or_default();
            match to.write_all(bytes).await {
                Ok(()) => Some(n as u64),
                Err(_) => None,
            }
        }
        _ => {
            let _ = to.shutdown().await;
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn connect_and_absolute_heads_are_parsed() {
        let (r, rest) =
            parse_head(b"CONNECT Example.COM.:443 HTTP/1.1\r\nHost: x\r\n\r\nabc").unwrap();
        assert_eq!(
            (r.host.as_str(), r.port, r.forward.is_none()),
            ("example.com", 443, true)
        );
        assert_eq!(rest, b"abc");
        let (r, _) = parse_head(
            b"GET http://a.test:8080/p?q=1 HTTP/1.1\r\nHost: a.test\r\nProxy-Connection: keep-alive\r\n\r\n",
        )
        .unwrap();
        assert_eq!((r.host.as_str(), r.port), ("a.test", 8080));
        assert_eq!(
            String::from_utf8(r.forward.unwrap()).unwrap(),
            "GET /p?q=1 HTTP/1.1\r\nHost: a.test\r\n\r\n"
        );
    }

    #[test]
    fn tricks_in_the_target_are_refused() {
        for head in [
            "CONNECT good.test@evil.test:443 HTTP/1.1\r\n\r\n",
            "CONNECT good.test:443/x HTTP/1.1\r\n\r\n",
            "CONNECT good.test HTTP/1.1\r\n\r\n",
            "GET /relative HTTP/1.1\r\n\r\n",
            "GET https://good.test/ HTTP/1.1\r\n\r\n",
            "GET http://good.test/ HTTP/2\r\n\r\n",
        ] {
            assert!(parse_head(head.as_bytes()).is_err(), "{head}");
        }
        // user-info in an absolute URL: the host is the one after `@`.
        let (r, _) = parse_head(b"GET http://good.test@evil.test/ HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(r.host, "evil.test");
    }
}
