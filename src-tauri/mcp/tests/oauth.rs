//! OAuth 2.1 against a real authorization server no one here wrote: the
//! Python `mcp` SDK's auth support (`tests/servers/oauth_server.py` only
//! implements the provider's in-memory storage and an authorize step that
//! approves at once). Tokens live in a real Secret Service (gnome-keyring
//! under `dbus-run-session`, as `cargo xtask test` runs it; entries under
//! the service `gatehouse-test`).
//!
//! The browser is the one thing replaced: the opener follows the authorize
//! URL with an HTTP client (the 302 to our loopback redirect), as a browser
//! would.
//!
//! Needs `GATEHOUSE_MCP_TEST_SERVERS` (the venv with `mcp`) and a Secret
//! Service; skips with the reason printed otherwise.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use gatehouse_agent::keychain::OsKeyStore;
use gatehouse_agent::keys::KeyStore;
use gatehouse_mcp::McpServer;
use gatehouse_mcp::auth::{self, Opener, SignInError};
use gatehouse_mcp::secrets::SecretLookup;
use gatehouse_protocol::event::McpServerStatus;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The OS keychain (Secret Service) as the MCP secret store.
struct Keychain(OsKeyStore);

impl SecretLookup for Keychain {
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        self.0.get(account)
    }
    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        self.0.set(account, secret)
    }
    fn delete(&self, account: &str) -> Result<(), String> {
        self.0.delete(account)
    }
}

fn skip(test: &str, why: &str) {
    gatehouse_test_support::missing(format!("{test}: {why}"));
}

/// The test-server cache and a Secret Service, or `None` (skipped).
fn prerequisites(test: &str) -> Option<(PathBuf, Arc<Keychain>)> {
    let dir = common::servers_dir(test)?;
    match OsKeyStore::secret_service() {
        Ok(store) => Some((
            dir,
            Arc::new(Keychain(store.with_service("gatehouse-test"))),
        )),
        Err(e) => {
            skip(
                test,
                &format!(
                    "no Secret Service reachable ({e}); run under dbus-run-session with gnome-keyring"
                ),
            );
            None
        }
    }
}

/// The Python OAuth MCP server on a free port.
struct AuthServer {
    _child: common::KillOnDrop,
    port: u16,
    record: tempfile::NamedTempFile,
}

impl AuthServer {
    fn start(dir: &Path, token_lifetime_secs: u64) -> Self {
        let port = common::free_port();
        let record = tempfile::NamedTempFile::new().unwrap();
        let child = std::process::Command::new(common::python(dir))
            .arg(common::script("oauth_server.py"))
            .arg(port.to_string())
            .arg(record.path())
            .arg(token_lifetime_secs.to_string())
            .spawn()
            .unwrap();
        let _child = common::KillOnDrop(child);
        common::wait_until_listening(port, "the Python OAuth server");
        Self {
            _child,
            port,
            record,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// What the server issued: client secrets, access and refresh tokens,
    /// grant counts.
    fn record(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.record.path()).unwrap()).unwrap()
    }

    fn issued_secrets(&self) -> Vec<String> {
        let r = self.record();
        ["client_secrets", "access_tokens", "refresh_tokens"]
            .iter()
            .flat_map(|k| r[k].as_array().unwrap().clone())
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    }

    async fn revoke(&self, what: &str) {
        let r = reqwest::Client::new()
            .post(format!("http://127.0.0.1:{}/test/revoke-{what}", self.port))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }
}

/// A "browser" that follows the authorize URL: the authorization server
/// answers 302 to our loopback redirect URI, which is then requested.
fn http_opener(opened: Arc<Mutex<Vec<String>>>) -> Opener {
    Arc::new(move |url: &str| {
        opened.lock().unwrap().push(url.to_owned());
        let url = url.to_owned();
        tokio::spawn(async move {
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap();
            let r = client.get(&url).send().await.unwrap();
            assert_eq!(r.status().as_u16(), 302, "authorize answered {r:?}");
            let location = r.headers()["location"].to_str().unwrap().to_owned();
            assert!(location.starts_with("http://127.0.0.1:"), "{location}");
            let done = client.get(&location).send().await.unwrap();
            assert_eq!(done.status().as_u16(), 200);
        });
        Ok(())
    })
}

/// Every log line of this test binary (all levels), to scan for secrets.
fn captured_logs() -> &'static Mutex<String> {
    static LOGS: OnceLock<Mutex<String>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let _ = tracing::subscriber::set_global_default(CaptureAll);
        Mutex::new(String::new())
    })
}

/// A tracing subscriber that keeps every event's fields as text (there is
/// no tracing-subscriber in the workspace; this is all the test needs).
struct CaptureAll;

struct Text<'a>(&'a mut String);

impl tracing::field::Visit for Text<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={value:?} ", field.name()));
    }
}

impl tracing::Subscriber for CaptureAll {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut line = String::new();
        span.record(&mut Text(&mut line));
        captured_logs().lock().unwrap().push_str(&line);
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut line = String::new();
        values.record(&mut Text(&mut line));
        captured_logs().lock().unwrap().push_str(&line);
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut line = format!(
            "{} {}: ",
            event.metadata().level(),
            event.metadata().target()
        );
        event.record(&mut Text(&mut line));
        line.push('\n');
        captured_logs().lock().unwrap().push_str(&line);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

async fn call(server: &McpServer, a: i64, b: i64) -> Result<Value, String> {
    server
        .call_tool(
            "add",
            json!({"a": a, "b": b}),
            None,
            &CancellationToken::new(),
        )
        .await
        .map_err(|e| e.to_string())
}

async fn signed_in(
    server: &AuthServer,
    keychain: &Arc<Keychain>,
) -> (gatehouse_mcp::ServerConfig, auth::SignedIn) {
    let config = common::http("web", &server.url());
    let opened = Arc::new(Mutex::new(Vec::new()));
    let done = auth::sign_in(
        &config,
        keychain.clone(),
        &http_opener(opened.clone()),
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    let opened = opened.lock().unwrap().clone();
    assert_eq!(opened.len(), 1);
    // Authorization-code flow with PKCE S256 and a loopback redirect.
    let authorize = url::Url::parse(&opened[0]).unwrap();
    let q = |k: &str| {
        authorize
            .query_pairs()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.into_owned())
    };
    assert_eq!(q("response_type").as_deref(), Some("code"));
    assert_eq!(q("code_challenge_method").as_deref(), Some("S256"));
    assert!(q("redirect_uri").unwrap().starts_with("http://127.0.0.1:"));
    (config, done)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_flow_401_discovery_registration_authorize_token_then_tools_and_no_leak() {
    let logs = captured_logs();
    let Some((dir, keychain)) = prerequisites("full_flow") else {
        return;
    };
    let server = AuthServer::start(&dir, 3600);
    let config = common::http("web", &server.url());
    let (options, sink) = common::options(keychain.clone());

    // No tokens yet: the server's 401 puts it in needs_auth, saying what to do.
    let mcp = McpServer::start(config.clone(), options.clone());
    let state = mcp.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::NeedsAuth, "{state:?}");
    let message = state.message.unwrap();
    assert!(message.contains("requires sign-in"), "{message}");
    assert!(
        message.contains("gatehouse-cli mcp login web --project"),
        "{message}"
    );

    let (_, done) = signed_in(&server, &keychain).await;
    assert_eq!(done.server, "web");
    assert_eq!(
        done.issuer.as_deref(),
        Some(&*format!("http://127.0.0.1:{}", server.port))
    );
    let record = server.record();
    assert_eq!(record["grants"]["authorization_code"], 1);
    assert_eq!(record["client_secrets"].as_array().unwrap().len(), 1);
    // The tokens and the client secret are in the keychain entry of the URL.
    let account = auth::oauth_account(&server.url());
    let entry = keychain.get(&account).unwrap().expect("a keychain entry");
    for secret in server.issued_secrets() {
        assert!(
            entry.contains(&secret),
            "the keychain entry lacks an issued secret"
        );
    }
    assert!(auth::has_tokens(&server.url(), keychain.clone()).await);

    // The waiting server connects again with the stored tokens.
    assert!(mcp.reconnect());
    let state = mcp.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::Connected, "{state:?}");
    let tools: Vec<_> = state
        .tools
        .iter()
        .map(|t| t.qualified_name.clone())
        .collect();
    assert_eq!(tools, ["mcp__web__add", "mcp__web__whoami"]);
    let result = call(&mcp, 40, 2).await.unwrap();
    assert!(result.to_string().contains("42"), "{result}");
    let who = mcp
        .call_tool("whoami", json!({}), None, &CancellationToken::new())
        .await
        .unwrap();
    assert!(who.to_string().contains("signed in"), "{who}");
    mcp.shutdown();

    // A new connection (a new session) finds the tokens in the keychain.
    let again = McpServer::start(config.clone(), options.clone());
    let state = again.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::Connected, "{state:?}");
    again.shutdown();

    // No event and no log line carries a token or the client secret.
    let mut haystack = logs.lock().unwrap().clone();
    for e in sink.events() {
        haystack.push_str(&serde_json::to_string(&e).unwrap());
    }
    haystack.push_str(&format!("{mcp:?} {again:?} {done:?}"));
    let issued = server.issued_secrets();
    assert_eq!(issued.len(), 3, "{issued:?}");
    for secret in issued {
        assert!(
            !haystack.contains(&secret),
            "an OAuth secret leaked into events or logs"
        );
    }
    assert!(haystack.len() > 1000, "the capture saw the flow's logs");
    keychain.delete(&account).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refreshed_and_the_new_tokens_are_stored() {
    let Some((dir, keychain)) = prerequisites("refresh_after_expiry") else {
        return;
    };
    let server = AuthServer::start(&dir, 3600);
    let (config, _) = signed_in(&server, &keychain).await;
    // The stored tokens were received two hours ago (their lifetime is one):
    // expired for the client, with no waiting for a clock (rmcp measures the
    // age from `token_received_at`, in epoch seconds).
    let account = auth::oauth_account(&server.url());
    let mut entry: Value = serde_json::from_str(&keychain.get(&account).unwrap().unwrap()).unwrap();
    let received = entry["credentials"]["token_received_at"]
        .as_u64()
        .expect("the entry records when its tokens were received");
    entry["credentials"]["token_received_at"] = json!(received - 2 * 3600);
    keychain.set(&account, &entry.to_string()).unwrap();
    assert_eq!(server.record()["grants"]["refresh_token"], 0);

    let (options, _) = common::options(keychain.clone());
    let mcp = McpServer::start(config, options);
    let state = mcp.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::Connected, "{state:?}");
    let result = call(&mcp, 1, 2).await.unwrap();
    assert!(result.to_string().contains('3'), "{result}");
    let record = server.record();
    assert!(
        record["grants"]["refresh_token"].as_u64().unwrap() >= 1,
        "{record}"
    );
    // The rotated tokens went back to the keychain.
    let entry = keychain.get(&account).unwrap().unwrap();
    let latest = record["access_tokens"].as_array().unwrap().last().unwrap();
    assert!(entry.contains(latest.as_str().unwrap()));
    mcp.shutdown();
    keychain.delete(&account).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_refreshes_once_and_a_revoked_grant_moves_the_server_to_needs_auth() {
    let Some((dir, keychain)) = prerequisites("revoked") else {
        return;
    };
    let server = AuthServer::start(&dir, 3600);
    let (config, _) = signed_in(&server, &keychain).await;
    let (options, sink) = common::options(keychain.clone());
    let mcp = McpServer::start(config.clone(), options.clone());
    assert_eq!(
        mcp.settled(Duration::from_secs(20)).await.status,
        McpServerStatus::Connected
    );

    // The access token is revoked, the refresh token still good: the 401
    // leads to a refresh and the call goes through. Each refused request
    // costs at most one refresh (no loop); the connection's own GET stream
    // may be refused beside the call, so two refused requests may refresh
    // twice (CI once saw 2).
    server.revoke("access").await;
    let result = call(&mcp, 2, 2).await.unwrap();
    assert!(result.to_string().contains('4'), "{result}");
    let record = server.record();
    let refreshes = record["grants"]["refresh_token"].as_u64().unwrap();
    let refused = record["rejected_requests"].as_u64().unwrap();
    assert!(
        refreshes >= 1 && refreshes <= refused,
        "{refreshes} refreshes for {refused} refused requests: {record}"
    );

    // Everything revoked: the call fails and the server needs a sign-in.
    server.revoke("all").await;
    let err = call(&mcp, 2, 3).await.unwrap_err();
    assert!(err.contains("needs authentication"), "{err}");
    let state = mcp.state();
    assert_eq!(state.status, McpServerStatus::NeedsAuth, "{state:?}");
    let message = state.message.unwrap();
    assert!(
        message.contains("refused the stored sign-in") && message.contains("mcp login web"),
        "{message}"
    );
    assert!(sink.events().iter().any(|e| {
        let v = serde_json::to_value(e).unwrap();
        v.to_string().contains("needs_auth")
    }));

    // Signing in again brings the same server back (a new connection).
    signed_in(&server, &keychain).await;
    assert!(mcp.reconnect());
    let state = mcp.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::Connected, "{state:?}");
    let result = call(&mcp, 2, 5).await.unwrap();
    assert!(result.to_string().contains('7'), "{result}");
    assert!(!mcp.reconnect(), "a connected server is left alone");
    mcp.shutdown();
    server.revoke("all").await;

    // A new connection with the dead tokens: needs_auth at once.
    let again = McpServer::start(config, options);
    let state = again.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::NeedsAuth, "{state:?}");
    assert!(
        state
            .message
            .unwrap()
            .contains("refused the stored sign-in"),
    );
    again.shutdown();
    keychain
        .delete(&auth::oauth_account(&server.url()))
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_out_removes_the_tokens_from_the_keychain() {
    let Some((dir, keychain)) = prerequisites("sign_out") else {
        return;
    };
    let server = AuthServer::start(&dir, 3600);
    let (config, _) = signed_in(&server, &keychain).await;
    let account = auth::oauth_account(&server.url());
    assert!(keychain.get(&account).unwrap().is_some());

    assert!(auth::sign_out(&config, keychain.clone()).await.unwrap());
    assert_eq!(keychain.get(&account).unwrap(), None);
    assert!(!auth::has_tokens(&server.url(), keychain.clone()).await);
    assert!(!auth::sign_out(&config, keychain.clone()).await.unwrap());

    let (options, _) = common::options(keychain.clone());
    let mcp = McpServer::start(config, options);
    let state = mcp.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::NeedsAuth, "{state:?}");
    assert!(state.message.unwrap().contains("requires sign-in"));
    mcp.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_nobody_completes_times_out_and_leaves_the_keychain_as_it_was() {
    let Some((dir, keychain)) = prerequisites("sign_in_timeout") else {
        return;
    };
    let server = AuthServer::start(&dir, 3600);
    let config = common::http("web", &server.url());
    let never: Opener = Arc::new(|_: &str| Ok(()));
    let err = auth::sign_in(
        &config,
        keychain.clone(),
        &never,
        Duration::from_millis(500),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, SignInError::Timeout { .. }), "{err}");
    assert!(err.to_string().contains("sign in again"), "{err}");
    let account = auth::oauth_account(&server.url());
    assert_eq!(keychain.get(&account).unwrap(), None);

    // An abandoned second sign-in keeps the first one working.
    signed_in(&server, &keychain).await;
    let before = keychain.get(&account).unwrap().unwrap();
    let again = auth::sign_in(
        &config,
        keychain.clone(),
        &never,
        Duration::from_millis(500),
    )
    .await;
    assert!(again.is_err());
    assert_eq!(keychain.get(&account).unwrap(), Some(before));
    keychain.delete(&account).unwrap();

    // A server that does not do OAuth (the plain Python server) is refused
    // with the reason, and nothing is stored.
    let plain_port = common::free_port();
    let _plain = common::start_python_http(&dir, plain_port, None);
    let plain_url = format!("http://127.0.0.1:{plain_port}/mcp");
    let err = auth::sign_in(
        &common::http("plain", &plain_url),
        keychain.clone(),
        &never,
        Duration::from_secs(10),
    )
    .await
    .unwrap_err();
    assert!(
        err.to_string().contains("publishes no OAuth metadata"),
        "{err}"
    );
    assert_eq!(
        keychain.get(&auth::oauth_account(&plain_url)).unwrap(),
        None
    );

    // A stdio server has no OAuth.
    let stdio = common::stdio("local", "true", &[]);
    let err = auth::sign_in(&stdio, keychain, &never, Duration::from_secs(1))
        .await
        .unwrap_err();
    assert!(matches!(err, SignInError::NotOAuth(_)), "{err}");
}
