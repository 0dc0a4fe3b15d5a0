//! WebFetch's http→https upgrade against real servers on 127.0.0.1
//! (issue 22): an http URL is read over https when the host serves it, over
//! http when it does not, and never over an https whose certificate does not
//! verify. The https server's certificate is made here (rcgen); the tool
//! trusts it only because the test passes it to
//! [`WebFetchTool::with_roots`] — nothing in the tool skips verification.
//! The tool's upgrade ports are set to the two servers' ports (80 and 443
//! by default).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod web_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gatehouse_core::Typed;
use gatehouse_core::runtime::{CallStatus, ToolCallResult};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_tools::web::{WebFetchConfig, WebFetchTool};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use web_support::{Server, engine, fetch, respond, runtime};

/// A TLS server on 127.0.0.1 answering every request with `body`; its port,
/// its certificate (DER) and how many requests it answered.
async fn tls_server(body: &'static str) -> (u16, Vec<u8>, Arc<AtomicUsize>) {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let cert = made.cert.der().clone();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.clone()], key)
    .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&served);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let count = Arc::clone(&count);
            tokio::spawn(async move {
                // A client that refuses the certificate ends the handshake.
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut head = Vec::new();
                let mut buf = [0_u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf).await {
                        Ok(n) if n > 0 && head.len() < 65536 => head.extend_from_slice(&buf[..n]),
                        _ => return,
                    }
                }
                count.fetch_add(1, Ordering::SeqCst);
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(reply.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, cert.to_vec(), served)
}

/// A plain http server answering every request with "plain page".
async fn http_server() -> Server {
    Server::start(|_, stream| async move {
        respond(
            stream,
            "200 OK",
            &[("Content-Type", "text/plain")],
            b"plain page",
        )
        .await;
    })
    .await
}

/// A port nothing listens on.
async fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

async fn fetch_with(tool: WebFetchTool, url: &str) -> ToolCallResult {
    let dir = tempfile::tempdir().unwrap();
    let rules = engine(
        dir.path(),
        &["WebFetch(domain:127.0.0.1)"],
        &[],
        PermissionMode::Default,
    );
    let (rt, _) = runtime(Typed::arc(tool), rules, None, dir.path());
    fetch(&rt, url).await
}

fn config(http_port: u16, https_port: u16) -> WebFetchConfig {
    WebFetchConfig {
        http_port,
        https_port,
        ..WebFetchConfig::default()
    }
}

#[tokio::test]
async fn an_http_url_is_read_over_https_when_the_host_serves_it() {
    let plain = http_server().await;
    let (tls_port, cert, served) = tls_server("secure page").await;
    let root = reqwest::Certificate::from_der(&cert).unwrap();
    let tool = WebFetchTool::with_roots(config(plain.port, tls_port), vec![root]).unwrap();
    let result = fetch_with(tool, &plain.url("/page?x=1")).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Succeeded, "{text}");
    assert!(text.contains("secure page"), "{text}");
    // The citation is the https URL, path and query kept.
    assert!(
        text.starts_with(&format!("Source: https://127.0.0.1:{tls_port}/page?x=1")),
        "{text}"
    );
    assert!(
        text.contains(&format!("Requested: {}", plain.url("/page?x=1"))),
        "{text}"
    );
    assert_eq!(served.load(Ordering::SeqCst), 1);
    assert!(
        plain.seen().is_empty(),
        "http was not used: {:?}",
        plain.seen()
    );
}

#[tokio::test]
async fn an_http_url_stays_http_when_the_host_has_no_https() {
    let plain = http_server().await;
    let tool = WebFetchTool::new(config(plain.port, closed_port().await)).unwrap();
    let result = fetch_with(tool, &plain.url("/page")).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Succeeded, "{text}");
    assert!(text.contains("plain page"), "{text}");
    assert!(
        text.starts_with(&format!("Source: {}", plain.url("/page"))),
        "{text}"
    );
    assert_eq!(plain.seen(), vec!["/page".to_owned()]);
}

#[tokio::test]
async fn an_https_whose_certificate_does_not_verify_is_not_used() {
    // The same TLS server, but the tool was not told to trust its
    // certificate: the upgrade is abandoned and the page read over http.
    let plain = http_server().await;
    let (tls_port, _, served) = tls_server("secure page").await;
    let tool = WebFetchTool::new(config(plain.port, tls_port)).unwrap();
    let result = fetch_with(tool, &plain.url("/page")).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Succeeded, "{text}");
    assert!(text.contains("plain page"), "{text}");
    assert!(!text.contains("secure page"), "{text}");
    assert_eq!(
        served.load(Ordering::SeqCst),
        0,
        "no request over unverified TLS"
    );
    assert_eq!(plain.seen(), vec!["/page".to_owned()]);
}

#[tokio::test]
async fn an_http_url_on_another_port_is_not_upgraded() {
    // Only the http port is upgraded: a URL naming another port is read as
    // written, even when the https port serves.
    let plain = http_server().await;
    let (tls_port, cert, served) = tls_server("secure page").await;
    let root = reqwest::Certificate::from_der(&cert).unwrap();
    let other = closed_port().await;
    let tool = WebFetchTool::with_roots(config(other, tls_port), vec![root]).unwrap();
    let result = fetch_with(tool, &plain.url("/page")).await;
    assert!(result.text().contains("plain page"), "{}", result.text());
    assert_eq!(served.load(Ordering::SeqCst), 0);
}
