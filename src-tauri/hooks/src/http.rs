//! HTTP hook handlers: a POST of the same JSON a command hook gets on
//! stdin; the response body is read like a command's stdout (a 2xx status
//! is exit 0; other statuses are non-blocking errors). One client per
//! session keeps connections alive, so a local policy server costs a
//! round trip, not a handshake, per call.
//!
//! Headers in `secretHeaders` are read from the keychain account
//! [`header_account`] when the hook runs (never written in a file, event or
//! log), through the caller's [`SecretSource`], as MCP headers are.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::runner::{OUTPUT_CAP, RawRun};

/// Reads a secret by keychain account; `Ok(None)` when it is not stored.
/// Errors never contain secret bytes.
pub type SecretSource = Arc<dyn Fn(&str) -> Result<Option<String>, String> + Send + Sync>;

/// The keychain account of header `header` of the hook posting to `url`.
pub fn header_account(url: &str, header: &str) -> String {
    format!("hook:{url}:header:{}", header.to_ascii_lowercase())
}

/// A keep-alive client for a session's HTTP hooks.
pub fn client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(90))
        .tcp_nodelay(true)
        .build()
        .map_err(|e| format!("the HTTP client for hooks could not be built: {e}"))
}

/// POSTs `body` to `url` and reads the answer into a [`RawRun`]: the HTTP
/// status as the exit code (200–299 read as 0), the body as stdout, capped.
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    headers: &[(String, String)],
    secret_headers: &[String],
    secrets: Option<&SecretSource>,
    body: Vec<u8>,
    timeout: Duration,
) -> RawRun {
    let started = Instant::now();
    let mut run = RawRun::default();
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .body(body);
    for (k, v) in headers {
        request = request.header(k, v);
    }
    for name in secret_headers {
        let account = header_account(url, name);
        let value = match secrets {
            Some(lookup) => {
                // The keychain may block; it runs on the blocking pool.
                let lookup = Arc::clone(lookup);
                let acc = account.clone();
                tokio::task::spawn_blocking(move || lookup(&acc))
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|r| r)
            }
            None => Ok(None),
        };
        match value {
            Ok(Some(v)) => request = request.header(name, v),
            Ok(None) => {
                run.spawn_error = Some(format!(
                    "the secret header `{name}` is not in the keychain (account `{account}`)"
                ));
                run.duration = started.elapsed();
                return run;
            }
            Err(e) => {
                run.spawn_error = Some(format!("the keychain could not be read for `{name}`: {e}"));
                run.duration = started.elapsed();
                return run;
            }
        }
    }
    let exchange = async {
        let mut resp = request.send().await?;
        let status = resp.status();
        let mut body = Vec::new();
        let mut dropped = 0u64;
        while let Some(chunk) = resp.chunk().await? {
            let room = OUTPUT_CAP.saturating_sub(body.len());
            let take = chunk.len().min(room);
            body.extend_from_slice(&chunk[..take]);
            dropped += (chunk.len() - take) as u64;
        }
        Ok::<_, reqwest::Error>((status, body, dropped))
    };
    match tokio::time::timeout(timeout, exchange).await {
        Err(_) => run.timed_out = true,
        Ok(Err(e)) => {
            // reqwest's message names the URL; no header values are in it.
            run.spawn_error = Some(format!("POST {url} failed: {e}"));
        }
        Ok(Ok((status, body, dropped))) => {
            let text = String::from_utf8_lossy(&body).into_owned();
            run.dropped_bytes = dropped;
            run.http_status = Some(status.as_u16());
            if status.is_success() {
                run.exit_code = Some(0);
                run.stdout = text;
            } else {
                run.exit_code = Some(i32::from(status.as_u16()));
                // Read like a failing command: the body is what it said.
                run.stderr = text;
            }
        }
    }
    run.duration = started.elapsed();
    run
}
