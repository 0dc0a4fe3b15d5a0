//! The browser of an MCP sign-in in end-to-end tests
//! ([`crate::mcp_auth::TEST_FOLLOW_SIGN_IN_ENV`]): WebDriver cannot drive
//! the OS browser, so this GETs the authorize URL and then the redirect it
//! answers with (the loopback callback), as a browser whose user approves
//! would. Loopback `http://` URLs only; each answer is read up to a cap
//! and a timeout, on a thread of its own.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;

use gatehouse_session::mcp_auth::Opener;

/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of an answer that is read (only its headers matter).
const MAX_ANSWER: u64 = 64 * 1024;
/// Redirects followed at most.
const MAX_HOPS: usize = 5;

/// The opener: follows the URL's redirects on a new thread.
pub(crate) fn opener() -> Opener {
    std::sync::Arc::new(|url: &str| {
        let url = url.to_owned();
        std::thread::Builder::new()
            .name("gatehouse-test-browser".into())
            .spawn(move || {
                if let Err(e) = follow(&url) {
                    eprintln!("gatehouse: the test browser could not follow {url}: {e}");
                }
            })
            .map(drop)
            .map_err(|e| format!("cannot start the test browser: {e}"))
    })
}

/// GETs `url` and every redirect after it.
fn follow(url: &str) -> Result<(), String> {
    let mut next = Some(url.to_owned());
    for _ in 0..MAX_HOPS {
        let Some(url) = next.take() else {
            return Ok(());
        };
        next = get_location(&url)?;
    }
    Err(format!("more than {MAX_HOPS} redirects"))
}

/// One GET; the answer's `Location` header, if any.
fn get_location(url: &str) -> Result<Option<String>, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url} is not an http:// URL"))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    if !matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
        return Err(format!("{url} is not on this machine"));
    }
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(authority).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(REQUEST_TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(REQUEST_TIMEOUT)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    // A read error after the headers arrived (a reset) still leaves them.
    let _ = stream.take(MAX_ANSWER).read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    Ok(head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("location")
            .then(|| value.trim().to_owned())
    }))
}
