//! OAuth 2.1 for HTTP MCP servers (MCP authorization spec), on rmcp's
//! `auth` support: discovery from the server's 401 challenge and its
//! protected-resource metadata, dynamic client registration, the
//! authorization-code flow with PKCE (S256), token refresh.
//!
//! * **Sign in** ([`sign_in`]): probe the server for its 401 challenge,
//!   discover the authorization server, register a client, open the
//!   authorize URL through an [`Opener`] (the OS browser in the app and the
//!   CLI; tests drive it with an HTTP client), catch the redirect on a
//!   `127.0.0.1` listener on an ephemeral port (state checked, timeout),
//!   exchange the code.
//! * **Storage**: the tokens and the client credentials (id, secret) live
//!   only in the OS keychain, one entry per server URL
//!   ([`oauth_account`]), through the caller's [`SecretLookup`]. Nothing
//!   else is written anywhere.
//! * **Connect**: a server with stored tokens gets rmcp's `AuthClient`,
//!   which sends the bearer token, refreshes it when it expires and once
//!   more when the server answers 401 (new tokens go back to the keychain).
//!   When that fails the connection manager puts the server in
//!   `needs_auth` with [`needs_sign_in_message`].
//! * **Sign out** ([`sign_out`]) deletes the keychain entry.
//!
//! OAuth applies to HTTP servers whose configuration sets no
//! `Authorization` header (plain or secret): those use their bearer header.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationMetadata,
    ClientRegistrationResponse, CredentialStore, InMemoryCredentialStore, OAuthClientConfig,
    StoredCredentials,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::config::{ServerConfig, ServerTransport};
use crate::secrets::SecretLookup;

/// How long [`sign_in`] waits for the browser's redirect by default.
pub const DEFAULT_SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);
/// The path of the redirect URI on the loopback listener.
const REDIRECT_PATH: &str = "/callback";
/// The client name sent with dynamic client registration.
const CLIENT_NAME: &str = "Gatehouse";
/// The largest redirect request head read from the browser.
const MAX_REDIRECT_REQUEST: usize = 16 * 1024;

/// Opens a URL for the user (the OS browser); tests pass one that follows
/// the authorize URL with an HTTP client.
pub type Opener = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// The OS way of opening a URL: `xdg-open` (Linux, BSD), `open` (macOS),
/// `explorer` (Windows). Errors when the opener cannot be started.
pub fn system_opener() -> Opener {
    Arc::new(|url: &str| {
        #[cfg(target_os = "macos")]
        let program = "open";
        #[cfg(target_os = "windows")]
        let program = "explorer";
        #[cfg(not(any(target_os = "macos", target_os = "windows")))]
        let program = "xdg-open";
        std::process::Command::new(program)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map(|_| ())
            .map_err(|e| format!("cannot start `{program}` to open the browser: {e}"))
    })
}

/// The keychain account holding a server's OAuth tokens and client
/// credentials, keyed by the server's URL (the OAuth resource), so every
/// configuration of the same server shares one sign-in.
pub fn oauth_account(url: &str) -> String {
    format!("mcp:oauth:{}", url.trim_end_matches('/'))
}

/// The server's URL when it is an HTTP server that authenticates with
/// OAuth (no `Authorization` header configured).
pub fn oauth_url(config: &ServerConfig) -> Option<&str> {
    match &config.transport {
        ServerTransport::Http {
            url,
            headers,
            secret_headers,
        } => {
            let has_authorization = headers
                .keys()
                .chain(secret_headers.iter())
                .any(|h| h.eq_ignore_ascii_case("authorization"));
            (!has_authorization).then_some(url.as_str())
        }
        ServerTransport::Stdio { .. } => None,
    }
}

/// What to tell the user when `server` needs (another) sign-in.
pub fn needs_sign_in_message(server: &str, had_tokens: bool, detail: Option<&str>) -> String {
    let what = if had_tokens {
        "refused the stored sign-in and it could not be refreshed"
    } else {
        "requires sign-in (OAuth)"
    };
    let detail = detail.map(|d| format!(" ({d})")).unwrap_or_default();
    format!(
        "`{server}` {what}{detail}: use Sign in in the MCP panel, or run \
         `gatehouse-cli mcp login {server} --project DIR`"
    )
}

/// One keychain entry: rmcp's stored credentials (client id, token
/// response) plus what rmcp does not keep (the client secret and the
/// redirect URI it was registered with).
#[derive(Default, Serialize, Deserialize)]
struct OAuthEntry {
    credentials: Option<StoredCredentials>,
    client_secret: Option<String>,
    redirect_uri: Option<String>,
    /// How the authorization server told this client to authenticate at
    /// the token endpoint (RFC 7591 §3.2.1).
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// rmcp's credential store on the OS keychain entry of one server.
struct KeychainCredentialStore {
    secrets: Arc<dyn SecretLookup>,
    account: String,
}

impl KeychainCredentialStore {
    async fn read(&self) -> Result<Option<OAuthEntry>, String> {
        let secrets = Arc::clone(&self.secrets);
        let account = self.account.clone();
        let raw = tokio::task::spawn_blocking(move || secrets.get(&account))
            .await
            .map_err(|e| format!("keychain task failed: {e}"))??;
        match raw {
            None => Ok(None),
            // The entry's text is never part of the message.
            Some(raw) => serde_json::from_str(&raw).map(Some).map_err(|e| {
                format!(
                    "the keychain entry `{}` is not a Gatehouse OAuth entry (line {}, column {}); sign out and in again",
                    self.account,
                    e.line(),
                    e.column()
                )
            }),
        }
    }

    async fn write(&self, entry: &OAuthEntry) -> Result<(), String> {
        let text = serde_json::to_string(entry)
            .map_err(|e| format!("cannot encode the OAuth entry: {e}"))?;
        let secrets = Arc::clone(&self.secrets);
        let account = self.account.clone();
        tokio::task::spawn_blocking(move || secrets.set(&account, &text))
            .await
            .map_err(|e| format!("keychain task failed: {e}"))?
    }

    async fn delete(&self) -> Result<(), String> {
        let secrets = Arc::clone(&self.secrets);
        let account = self.account.clone();
        tokio::task::spawn_blocking(move || secrets.delete(&account))
            .await
            .map_err(|e| format!("keychain task failed: {e}"))?
    }
}

fn store_error(e: String) -> AuthError {
    AuthError::CredentialStoreError(e)
}

#[async_trait::async_trait]
impl CredentialStore for KeychainCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self
            .read()
            .await
            .map_err(store_error)?
            .and_then(|e| e.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        // Keep the client secret and redirect URI stored at sign-in.
        let mut entry = self.read().await.map_err(store_error)?.unwrap_or_default();
        if entry
            .credentials
            .as_ref()
            .is_some_and(|c| c.client_id != credentials.client_id)
        {
            entry.client_secret = None;
        }
        entry.credentials = Some(credentials);
        self.write(&entry).await.map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.delete().await.map_err(store_error)
    }
}

/// Why signing in failed. Messages never contain tokens or secrets.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The server is not an HTTP server that uses OAuth.
    #[error(
        "MCP server `{0}` does not use OAuth (only HTTP servers without an Authorization header do)"
    )]
    NotOAuth(String),
    /// Discovery, registration or the token exchange failed.
    #[error("MCP server `{server}`: {step} failed: {message}")]
    Flow {
        /// The server.
        server: String,
        /// Which step.
        step: &'static str,
        /// What went wrong.
        message: String,
    },
    /// The browser could not be opened.
    #[error("MCP server `{server}`: {message}")]
    Browser {
        /// The server.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// No redirect came back in time.
    #[error(
        "MCP server `{server}`: no answer from the browser within {} s; sign in again",
        timeout.as_secs()
    )]
    Timeout {
        /// The server.
        server: String,
        /// The limit.
        timeout: Duration,
    },
    /// The authorization server refused (the user denied, or an error).
    #[error("MCP server `{server}`: the authorization server answered `{error}`{}", description.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    Denied {
        /// The server.
        server: String,
        /// The OAuth error code.
        error: String,
        /// Its description.
        description: Option<String>,
    },
    /// The keychain could not store the credentials.
    #[error("MCP server `{server}`: the keychain refused the credentials: {message}")]
    Keychain {
        /// The server.
        server: String,
        /// What went wrong.
        message: String,
    },
}

/// The outcome of a sign-in. No secrets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignedIn {
    /// The server's name.
    pub server: String,
    /// The server's URL.
    pub url: String,
    /// The authorization server's issuer.
    pub issuer: Option<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
}

/// Runs the OAuth sign-in for `config` and stores the result in the
/// keychain (replacing an earlier sign-in). `opener` gets the authorize URL;
/// the redirect must arrive within `timeout`.
pub async fn sign_in(
    config: &ServerConfig,
    secrets: Arc<dyn SecretLookup>,
    opener: &Opener,
    timeout: Duration,
) -> Result<SignedIn, SignInError> {
    let server = config.name.clone();
    let url = oauth_url(config)
        .ok_or_else(|| SignInError::NotOAuth(server.clone()))?
        .to_owned();
    let flow = |step: &'static str| {
        let server = server.clone();
        move |e: AuthError| SignInError::Flow {
            server,
            step,
            message: e.to_string(),
        }
    };

    // The 401 challenge names the protected-resource metadata.
    let challenge = probe_challenge(&url).await;
    let mut manager = AuthorizationManager::new(url.as_str())
        .await
        .map_err(flow("setting up OAuth"))?;
    let resolution = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(flow("authorization server discovery"))?;
    if !resolution.source.is_discovered() {
        // rmcp would make up /authorize, /token, /register on the server's
        // origin; a server that neither sent a challenge nor publishes
        // metadata is not an OAuth server.
        return Err(SignInError::Flow {
            server: server.clone(),
            step: "authorization server discovery",
            message: format!(
                "{url} {} and publishes no OAuth metadata (RFC 9728 / RFC 8414)",
                if challenge.is_some() {
                    "answered 401"
                } else {
                    "did not ask for a sign-in"
                }
            ),
        });
    }
    let metadata = resolution.metadata;
    let issuer = metadata.issuer.clone();

    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| SignInError::Browser {
            server: server.clone(),
            message: format!("cannot listen on 127.0.0.1 for the redirect: {e}"),
        })?;
    let port = listener
        .local_addr()
        .map_err(|e| SignInError::Browser {
            server: server.clone(),
            message: format!("the redirect listener has no address: {e}"),
        })?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}{REDIRECT_PATH}");

    manager.set_metadata(metadata.clone());
    let scopes = manager.select_initial_scopes(&[]).await;
    let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
    let registration = register_client(&metadata, &redirect_uri, &scopes)
        .await
        .map_err(|message| SignInError::Flow {
            server: server.clone(),
            step: "dynamic client registration",
            message,
        })?;
    let auth_method = registration
        .additional_fields
        .get("token_endpoint_auth_method")
        .and_then(|m| m.as_str())
        .map(str::to_owned);
    let client_secret = registration.client_secret.filter(|s| !s.is_empty());
    manager.set_metadata(for_client(metadata, auth_method.as_deref()));
    let mut client = OAuthClientConfig::new(registration.client_id, redirect_uri.clone())
        .with_scopes(scopes.clone());
    if let Some(secret) = &client_secret {
        client = client.with_client_secret(secret.clone());
    }
    manager
        .configure_client(client)
        .map_err(flow("configuring the OAuth client"))?;
    let auth_url = manager
        .get_authorization_url(&scope_refs)
        .await
        .map_err(flow("building the authorization URL"))?;
    let expected_state = url::Url::parse(&auth_url)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .ok_or_else(|| SignInError::Flow {
            server: server.clone(),
            step: "building the authorization URL",
            message: "the URL has no state parameter".into(),
        })?;

    // The flow's tokens stay in memory until it succeeded: then the whole
    // entry replaces the old sign-in in one keychain write (a failed or
    // abandoned sign-in leaves the previous one working).
    let flow_store = InMemoryCredentialStore::new();
    manager.set_credential_store(flow_store.clone());
    finish_sign_in(
        &manager,
        &server,
        opener,
        &auth_url,
        &listener,
        &expected_state,
        timeout,
    )
    .await?;
    let credentials = flow_store.load().await.ok().flatten();
    if credentials.is_none() {
        return Err(SignInError::Flow {
            server: server.clone(),
            step: "the token exchange",
            message: "no tokens were received".into(),
        });
    }
    let store = KeychainCredentialStore {
        secrets,
        account: oauth_account(&url),
    };
    store
        .write(&OAuthEntry {
            credentials,
            client_secret,
            redirect_uri: Some(redirect_uri.clone()),
            token_endpoint_auth_method: auth_method,
        })
        .await
        .map_err(|message| SignInError::Keychain {
            server: server.clone(),
            message,
        })?;
    let granted = manager.get_current_scopes().await;
    let scopes = if granted.is_empty() { scopes } else { granted };
    Ok(SignedIn {
        server: config.name.clone(),
        url,
        issuer,
        scopes,
    })
}

/// Opens the authorize URL, waits for the redirect and exchanges the code
/// (the manager's store keeps the tokens).
async fn finish_sign_in(
    manager: &AuthorizationManager,
    server: &str,
    opener: &Opener,
    auth_url: &str,
    listener: &TcpListener,
    expected_state: &str,
    timeout: Duration,
) -> Result<(), SignInError> {
    let server = server.to_owned();
    opener(auth_url).map_err(|message| SignInError::Browser {
        server: server.clone(),
        message,
    })?;
    let callback = tokio::time::timeout(timeout, wait_for_redirect(listener, expected_state))
        .await
        .map_err(|_| SignInError::Timeout {
            server: server.clone(),
            timeout,
        })?
        .map_err(|(error, description)| SignInError::Denied {
            server: server.clone(),
            error,
            description,
        })?;
    manager
        .exchange_code_for_token_with_issuer(
            &callback.code,
            &callback.csrf_token,
            callback.issuer.as_deref(),
        )
        .await
        .map(|_| ())
        .map_err(|e| SignInError::Flow {
            server,
            step: "the token exchange",
            message: e.to_string(),
        })
}

/// Deletes the stored OAuth tokens and client credentials of `config`'s
/// server; `Ok(false)` when there were none.
pub async fn sign_out(
    config: &ServerConfig,
    secrets: Arc<dyn SecretLookup>,
) -> Result<bool, String> {
    let url =
        oauth_url(config).ok_or_else(|| SignInError::NotOAuth(config.name.clone()).to_string())?;
    let store = KeychainCredentialStore {
        secrets,
        account: oauth_account(url),
    };
    let had = store.read().await.ok().flatten().is_some();
    store.delete().await.map_err(|e| {
        format!(
            "MCP server `{}`: cannot delete the sign-in from the keychain: {e}",
            config.name
        )
    })?;
    Ok(had)
}

/// Whether tokens for `url` are stored (an unreadable keychain counts as
/// no).
pub async fn has_tokens(url: &str, secrets: Arc<dyn SecretLookup>) -> bool {
    let store = KeychainCredentialStore {
        secrets,
        account: oauth_account(url),
    };
    matches!(
        store.read().await,
        Ok(Some(OAuthEntry { credentials: Some(c), .. })) if c.token_response.is_some()
    )
}

/// An HTTP client that sends the stored bearer token of `url` and refreshes
/// it, or `None` when nothing is stored (the server is then tried without a
/// token; its 401 means sign-in is needed). Errors say why the keychain or
/// the authorization server could not be used.
pub(crate) async fn authorized_client(
    url: &str,
    secrets: Arc<dyn SecretLookup>,
) -> Result<Option<AuthClient<reqwest::Client>>, String> {
    let store = KeychainCredentialStore {
        secrets,
        account: oauth_account(url),
    };
    let Some(entry) = store.read().await? else {
        return Ok(None);
    };
    let Some(client_id) = entry
        .credentials
        .as_ref()
        .filter(|c| c.token_response.is_some())
        .map(|c| c.client_id.clone())
    else {
        return Ok(None);
    };
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| crate::failure::without_url(&format!("OAuth setup for {url}: {e}"), url))?;
    manager.set_credential_store(store);
    // Discovers the authorization server again (its endpoints are not
    // stored); `initialize_from_store` then drops tokens of another issuer.
    let resolution = manager.resolve_metadata().await.map_err(|e| {
        crate::failure::without_url(&format!("OAuth discovery for {url}: {e}"), url)
    })?;
    manager.set_metadata(for_client(
        resolution.metadata,
        entry.token_endpoint_auth_method.as_deref(),
    ));
    let usable = manager.initialize_from_store().await.map_err(|e| {
        crate::failure::without_url(&format!("OAuth discovery for {url}: {e}"), url)
    })?;
    if !usable {
        return Ok(None);
    }
    if let Some(secret) = entry.client_secret {
        // rmcp re-creates the client from the id only; a confidential
        // client also needs its secret for refreshes.
        let redirect = entry.redirect_uri.unwrap_or_else(|| url.to_owned());
        manager
            .configure_client(
                OAuthClientConfig::new(client_id, redirect).with_client_secret(secret),
            )
            .map_err(|e| {
                crate::failure::without_url(&format!("OAuth client for {url}: {e}"), url)
            })?;
    }
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| crate::failure::without_url(&format!("HTTP client for {url}: {e}"), url))?;
    Ok(Some(AuthClient::new(http, manager)))
}

/// Dynamic client registration (RFC 7591) as a public native client with a
/// loopback redirect, like rmcp's `register_client`, but keeping the whole
/// response: rmcp's drops the `token_endpoint_auth_method` the server
/// assigned, so a server that hands out a secret for `client_secret_post`
/// would get it by Basic auth and refuse it.
async fn register_client(
    metadata: &AuthorizationMetadata,
    redirect_uri: &str,
    scopes: &[String],
) -> Result<ClientRegistrationResponse, String> {
    let endpoint = metadata.registration_endpoint.as_deref().ok_or(
        "the authorization server offers no dynamic client registration (no registration_endpoint)",
    )?;
    let mut request = serde_json::json!({
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
        "response_types": ["code"],
        "application_type": "native",
    });
    if !scopes.is_empty() {
        request["scope"] = scopes.join(" ").into();
    }
    let response = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?
        .post(endpoint)
        .json(&request)
        .send()
        .await
        .map_err(|e| format!("POST {endpoint}: {e}"))?;
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(|e| format!("reading the answer of {endpoint}: {e}"))?;
    if !status.is_success() {
        // An error body names the problem (RFC 7591 §3.2.2), no secrets.
        let text = String::from_utf8_lossy(&body);
        return Err(format!(
            "{endpoint} answered HTTP {status}: {}",
            text.chars().take(300).collect::<String>()
        ));
    }
    serde_json::from_slice(&body).map_err(|e| {
        format!("{endpoint} answered something that is not a client registration: {e}")
    })
}

/// The authorization server's metadata as it applies to this client: when
/// the registration assigned a secret-based method, rmcp's client must use
/// it (rmcp picks Basic unless the server supports only `client_secret_post`).
fn for_client(mut metadata: AuthorizationMetadata, method: Option<&str>) -> AuthorizationMetadata {
    if let Some(method @ ("client_secret_post" | "client_secret_basic")) = method {
        metadata.additional_fields.insert(
            "token_endpoint_auth_methods_supported".into(),
            serde_json::json!([method]),
        );
    }
    metadata
}

/// The `WWW-Authenticate` header of the server's answer to an
/// unauthenticated `initialize`, when it is a 401.
async fn probe_challenge(url: &str) -> Option<String> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "gatehouse", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let response = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Accepts connections on `listener` until one is the redirect with
/// `expected_state`: `Ok` with its code, `Err((error, description))` when
/// the authorization server sent an error. Requests for other paths or with
/// another state get an error page and are otherwise ignored.
async fn wait_for_redirect(
    listener: &TcpListener,
    expected_state: &str,
) -> Result<AuthorizationCallback, (String, Option<String>)> {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            // Out of descriptors or the like: do not spin.
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let Some(target) = read_request_target(&mut stream).await else {
            respond(&mut stream, "400 Bad Request", "Not an HTTP GET request.").await;
            continue;
        };
        let Ok(full) = url::Url::parse(&format!("http://127.0.0.1{target}")) else {
            respond(&mut stream, "400 Bad Request", "Unreadable request.").await;
            continue;
        };
        if full.path() != REDIRECT_PATH {
            respond(&mut stream, "404 Not Found", "Not found.").await;
            continue;
        }
        let param = |name: &str| {
            full.query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        // Anything without our state is not the answer to our request.
        if param("state").as_deref() != Some(expected_state) {
            respond(
                &mut stream,
                "400 Bad Request",
                "This sign-in link does not belong to the sign-in Gatehouse started.",
            )
            .await;
            continue;
        }
        if let Some(error) = param("error") {
            respond(
                &mut stream,
                "200 OK",
                "Sign-in was not completed. You can close this tab and return to Gatehouse.",
            )
            .await;
            return Err((error, param("error_description")));
        }
        match AuthorizationCallback::from_redirect_url(full.as_str()) {
            Ok(callback) => {
                respond(
                    &mut stream,
                    "200 OK",
                    "Signed in. You can close this tab and return to Gatehouse.",
                )
                .await;
                return Ok(callback);
            }
            Err(e) => {
                respond(&mut stream, "400 Bad Request", "The redirect has no code.").await;
                return Err(("invalid_request".into(), Some(e.to_string())));
            }
        }
    }
}

/// The request target of a `GET` request head, read up to
/// [`MAX_REDIRECT_REQUEST`] bytes.
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0_u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 || head.len() + n > MAX_REDIRECT_REQUEST {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&head);
    let mut parts = text.lines().next()?.split_whitespace();
    (parts.next()? == "GET").then_some(())?;
    let target = parts.next()?;
    target.starts_with('/').then(|| target.to_owned())
}

async fn respond(stream: &mut tokio::net::TcpStream, status: &str, text: &str) {
    let body = format!("<!doctype html><meta charset=utf-8><title>Gatehouse</title><p>{text}</p>");
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\ncache-control: no-store\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::config::ConfigScope;
    use std::collections::BTreeMap;

    fn http(headers: &[&str], secret: &[&str]) -> ServerConfig {
        ServerConfig {
            name: "web".into(),
            scope: ConfigScope::User,
            file: "/x".into(),
            transport: ServerTransport::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: headers
                    .iter()
                    .map(|h| ((*h).to_owned(), "v".to_owned()))
                    .collect::<BTreeMap<_, _>>(),
                secret_headers: secret.iter().map(|h| (*h).to_owned()).collect(),
            },
            disabled: false,
            trusted: false,
            startup_timeout: Duration::from_secs(1),
            call_timeout: Duration::from_secs(1),
            entry: serde_json::Value::Null,
        }
    }

    #[test]
    fn oauth_applies_only_to_http_servers_without_an_authorization_header() {
        assert_eq!(oauth_url(&http(&[], &[])), Some("http://127.0.0.1:1/mcp"));
        assert_eq!(
            oauth_url(&http(&["X-Api"], &[])),
            Some("http://127.0.0.1:1/mcp")
        );
        assert_eq!(oauth_url(&http(&["authorization"], &[])), None);
        assert_eq!(oauth_url(&http(&[], &["Authorization"])), None);
    }

    #[test]
    fn the_account_is_keyed_by_url() {
        assert_eq!(
            oauth_account("https://h.example/mcp/"),
            oauth_account("https://h.example/mcp")
        );
        assert_ne!(
            oauth_account("https://a/mcp"),
            oauth_account("https://b/mcp")
        );
    }

    async fn redirect_with(
        path: &str,
        state: &str,
    ) -> (
        String,
        Result<AuthorizationCallback, (String, Option<String>)>,
    ) {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let path = path.to_owned();
        let client = tokio::spawn(async move {
            let mut answers = String::new();
            for p in [path.as_str(), "/callback?code=good&state=s1"] {
                let r = reqwest::get(format!("http://127.0.0.1:{port}{p}")).await;
                if let Ok(r) = r {
                    answers.push_str(&format!("{} ", r.status().as_u16()));
                }
            }
            answers
        });
        let result =
            tokio::time::timeout(Duration::from_secs(10), wait_for_redirect(&listener, state))
                .await
                .unwrap();
        drop(listener);
        (client.await.unwrap(), result)
    }

    #[tokio::test]
    async fn a_redirect_with_another_state_is_refused_and_the_wait_goes_on() {
        let (answers, result) = redirect_with("/callback?code=evil&state=forged", "s1").await;
        assert!(answers.starts_with("400 200"), "{answers}");
        assert_eq!(result.unwrap().code, "good");
    }

    #[tokio::test]
    async fn other_paths_get_404_and_an_error_redirect_fails_the_sign_in() {
        let (answers, result) = redirect_with("/favicon.ico", "s1").await;
        assert!(answers.starts_with("404 200"), "{answers}");
        assert_eq!(result.unwrap().code, "good");
        let (_, result) = redirect_with(
            "/callback?error=access_denied&error_description=no&state=s1",
            "s1",
        )
        .await;
        assert_eq!(
            result.unwrap_err(),
            ("access_denied".to_owned(), Some("no".to_owned()))
        );
    }
}
