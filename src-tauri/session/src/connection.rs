//! A provider tried for real before the user relies on it (first run and
//! Settings): one `GET …/models` request, and a failure that names what is
//! wrong — no key, a key the server refuses, no network, an address that
//! is not the API — never the key itself.
//!
//! * Anthropic: `GET {base}/v1/models` with `x-api-key` and
//!   `anthropic-version` (the same headers as a message request).
//! * OpenAI-compatible: `GET {base}/models` (the base ends in `/v1`, as for
//!   `{base}/chat/completions`), with `Authorization: Bearer` when a key is
//!   set; its model list fills the model picker.

use std::time::Duration;

use gatehouse_agent::keys::ApiKey;
use gatehouse_agent::provider::anthropic::{API_VERSION, DEFAULT_BASE_URL};
use gatehouse_protocol::onboarding::{ConnectionFailure, ConnectionTest, ProviderSetting};
use serde_json::Value;

/// How long the whole test may take.
const TEST_TIMEOUT: Duration = Duration::from_secs(15);

/// How long connecting may take (a wrong host fails fast).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(8);

/// Larger answers are cut off (a model list is a few kilobytes).
const MAX_BODY_BYTES: usize = 1024 * 1024;

/// At most this many model names are returned.
const MAX_MODELS: usize = 500;

fn failed(failure: ConnectionFailure, message: String) -> ConnectionTest {
    ConnectionTest {
        failure: Some(failure),
        message,
        models: Vec::new(),
    }
}

/// Tries `provider` with `key` (looked up by the caller: environment, then
/// keychain). The demo needs nothing and always passes.
pub async fn test_connection(provider: &ProviderSetting, key: Option<ApiKey>) -> ConnectionTest {
    match provider {
        ProviderSetting::Demo => ConnectionTest {
            failure: None,
            message: "the offline demo needs no connection".into(),
            models: Vec::new(),
        },
        ProviderSetting::Anthropic { base_url } => {
            let Some(key) = key else {
                return failed(
                    ConnectionFailure::NoKey,
                    "no Anthropic API key: type one above (it goes to the OS keychain) or set ANTHROPIC_API_KEY".into(),
                );
            };
            let env_base = std::env::var("ANTHROPIC_BASE_URL")
                .ok()
                .filter(|v| !v.is_empty());
            let base = base_url
                .clone()
                .or(env_base)
                .unwrap_or_else(|| DEFAULT_BASE_URL.into());
            let url = format!("{}/v1/models", base.trim_end_matches('/'));
            let headers = [
                ("x-api-key", key.expose().to_owned()),
                ("anthropic-version", API_VERSION.to_owned()),
            ];
            probe("Anthropic", &url, &headers, true).await
        }
        ProviderSetting::OpenAi { base_url } => {
            let url = format!("{}/models", base_url.trim().trim_end_matches('/'));
            let headers: Vec<(&str, String)> = key
                .map(|k| ("authorization", format!("Bearer {}", k.expose())))
                .into_iter()
                .collect();
            probe("the OpenAI-compatible server", &url, &headers, false).await
        }
    }
}

/// One GET to `url`, its outcome classified.
async fn probe(
    who: &str,
    url: &str,
    headers: &[(&str, String)],
    key_required: bool,
) -> ConnectionTest {
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
        _ => {
            return failed(
                ConnectionFailure::InvalidUrl,
                format!("`{url}` is not an http or https address"),
            );
        }
    }
    let client = match reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(TEST_TIMEOUT)
        .build()
    {
        Ok(c) => c,
        Err(e) => return failed(ConnectionFailure::Other, format!("no HTTP client: {e}")),
    };
    let mut request = client.get(url);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let mut response = match request.send().await {
        Ok(r) => r,
        Err(e) => {
            return failed(
                ConnectionFailure::NoNetwork,
                format!("could not reach {who} at {url}: {}", error_chain(&e)),
            );
        }
    };
    let status = response.status();
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_BODY_BYTES.saturating_sub(body.len());
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if body.len() >= MAX_BODY_BYTES {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                return failed(
                    ConnectionFailure::NoNetwork,
                    format!("{who} at {url} stopped answering: {e}"),
                );
            }
        }
    }
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    let detail = json
        .as_ref()
        .and_then(|j| j.pointer("/error/message").and_then(Value::as_str))
        .map(|m| format!(" ({})", m.chars().take(200).collect::<String>()))
        .unwrap_or_default();
    match status.as_u16() {
        401 | 403 => failed(
            ConnectionFailure::BadKey,
            if key_required || headers.iter().any(|(n, _)| *n == "authorization") {
                format!("{who} refused the API key: HTTP {status}{detail}")
            } else {
                format!("{who} wants an API key: HTTP {status}{detail}")
            },
        ),
        404 => failed(
            ConnectionFailure::WrongUrl,
            format!("{url} was not found (HTTP 404): is this the API's address?"),
        ),
        200..=299 => match json.as_ref().and_then(model_ids) {
            Some(models) => ConnectionTest {
                failure: None,
                message: format!("{who} answered at {url}: {} model(s)", models.len()),
                models,
            },
            None => failed(
                ConnectionFailure::WrongUrl,
                format!("{url} answered, but not with a model list: is this the API's address?"),
            ),
        },
        _ => failed(
            ConnectionFailure::Other,
            format!("{who} at {url} answered HTTP {status}{detail}"),
        ),
    }
}

/// An error with its causes (reqwest's own message hides "connection
/// refused" in its source).
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The model ids of a `/models` answer (`{"data": [{"id": …}, …]}`, the
/// shape both APIs share); `None` when it is not one.
pub fn model_ids(body: &Value) -> Option<Vec<String>> {
    let data = body.get("data")?.as_array()?;
    let mut ids: Vec<String> = data
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str))
        .filter(|id| !id.is_empty() && id.len() <= 200)
        .take(MAX_MODELS)
        .map(str::to_owned)
        .collect();
    ids.dedup();
    Some(ids)
}
