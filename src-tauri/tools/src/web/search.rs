//! `WebSearch` (`query`, `allowed_domains`, `blocked_domains`) through a
//! configurable [`SearchProvider`]: the Brave Search API (a hosted API; its
//! key lives in the OS keychain) or a SearXNG instance's JSON API (its URL
//! in settings). Results are title, URL and snippet; `allowed_domains` keeps
//! only results on those domains (and their sub-domains), `blocked_domains`
//! drops them. Without a provider the tool is disabled — left out of the
//! pool by its gate, with the reason reported to the UI — rather than
//! failing at call time.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::{InterruptBehavior, ToolError, ToolUseContext, TypedTool};
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_protocol::web::SearchResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use super::{error_chain, read_capped, ssrf};

const DESCRIPTION: &str = "Searches the web and returns results as title, URL and snippet. \
Use `allowed_domains` to keep only results from some sites, `blocked_domains` to drop some. \
Cite the URLs of results you use; fetch a page with WebFetch to read it.";

/// Results asked of the provider.
pub const RESULT_COUNT: usize = 20;
/// The largest API answer read.
const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// A search API.
#[async_trait]
pub trait SearchProvider: Send + Sync {
    /// Its name for people and errors ("Brave Search", "SearXNG").
    fn name(&self) -> &str;
    /// Up to `count` results for `query`, or why there are none.
    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchResult>, String>;
}

/// The HTTP client of search providers: rustls, timeouts, no redirects
/// (an API that redirects is misconfigured, and a key must not follow).
pub fn search_client(timeout: Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("Gatehouse-WebSearch/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {}", error_chain(&e)))
}

/// Sends `request` and reads its JSON answer, turning every failure into
/// a sentence naming `provider` and the cause.
async fn json_answer(provider: &str, request: reqwest::RequestBuilder) -> Result<Value, String> {
    let mut response = request
        .send()
        .await
        .map_err(|e| format!("{provider} could not be reached: {}", error_chain(&e)))?;
    let status = response.status();
    let (body, cut) = read_capped(&mut response, MAX_ANSWER_BYTES)
        .await
        .map_err(|(e, _)| format!("{provider}'s answer broke off: {}", error_chain(&e)))?;
    if !status.is_success() {
        let hint = match status.as_u16() {
            401 | 403 => " (the API key was refused: check it in Settings)",
            429 => " (rate limited: too many searches; try again later)",
            500..=599 => " (the search service failed)",
            _ => "",
        };
        let detail = String::from_utf8_lossy(&body[..body.len().min(300)])
            .trim()
            .to_owned();
        return Err(format!(
            "{provider} answered {status}{hint}{}",
            if detail.is_empty() {
                String::new()
            } else {
                format!(": {detail}")
            }
        ));
    }
    if cut {
        return Err(format!(
            "{provider}'s answer is larger than {MAX_ANSWER_BYTES} bytes"
        ));
    }
    serde_json::from_slice(&body)
        .map_err(|e| format!("{provider}'s answer is not the JSON expected: {e}"))
}

/// Title, URL and snippet from one result object, by the keys of the API.
fn result(item: &Value, snippet_key: &str) -> Option<SearchResult> {
    let text = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(SearchResult {
        url: text("url")?,
        title: text("title").unwrap_or_default(),
        snippet: text(snippet_key).unwrap_or_default(),
    })
}

/// The Brave Search API (`/res/v1/web/search`).
pub struct BraveSearch {
    client: reqwest::Client,
    base_url: Url,
    key: String,
}

impl fmt::Debug for BraveSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key.
        f.debug_struct("BraveSearch")
            .field("base_url", &self.base_url.as_str())
            .finish_non_exhaustive()
    }
}

impl BraveSearch {
    /// The public API's address.
    pub const BASE_URL: &'static str = "https://api.search.brave.com/";
    /// The keychain account its key is stored under.
    pub const KEY_ACCOUNT: &'static str = "brave-search";

    /// Brave Search at `base_url` (tests: a local server) with `key`.
    pub fn new(base_url: &str, key: String, client: reqwest::Client) -> Result<Self, String> {
        let base_url = Url::parse(base_url)
            .map_err(|e| format!("the Brave Search URL `{base_url}` is not valid: {e}"))?;
        Ok(Self {
            client,
            base_url,
            key,
        })
    }
}

#[async_trait]
impl SearchProvider for BraveSearch {
    fn name(&self) -> &str {
        "Brave Search"
    }
    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchResult>, String> {
        let mut url = self
            .base_url
            .join("res/v1/web/search")
            .map_err(|e| format!("bad Brave Search URL: {e}"))?;
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("count", &count.min(20).to_string());
        let request = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .header("X-Subscription-Token", &self.key);
        let answer = json_answer(self.name(), request).await?;
        Ok(answer
            .pointer("/web/results")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| result(i, "description"))
                    .collect()
            })
            .unwrap_or_default())
    }
}

/// A SearXNG instance's JSON API (`/search?format=json`; the instance must
/// have the `json` format enabled).
#[derive(Debug)]
pub struct Searxng {
    client: reqwest::Client,
    base_url: Url,
}

impl Searxng {
    /// SearXNG at `base_url` (e.g. `http://localhost:8888/`).
    pub fn new(base_url: &str, client: reqwest::Client) -> Result<Self, String> {
        let mut base = Url::parse(base_url)
            .map_err(|e| format!("the SearXNG URL `{base_url}` is not valid: {e}"))?;
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        Ok(Self {
            client,
            base_url: base,
        })
    }
}

#[async_trait]
impl SearchProvider for Searxng {
    fn name(&self) -> &str {
        "SearXNG"
    }
    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchResult>, String> {
        let mut url = self
            .base_url
            .join("search")
            .map_err(|e| format!("bad SearXNG URL: {e}"))?;
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("format", "json");
        let request = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json");
        let answer = json_answer(self.name(), request).await?;
        let mut results: Vec<SearchResult> = answer
            .get("results")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(|i| result(i, "content")).collect())
            .unwrap_or_default();
        results.truncate(count);
        Ok(results)
    }
}

/// WebSearch's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchInput {
    /// What to search for.
    pub query: String,
    /// Only results from these domains (and their sub-domains).
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// Never results from these domains (and their sub-domains).
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

/// What WebSearch returns.
#[derive(Debug, Clone, Serialize)]
pub struct WebSearchOutput {
    /// The query.
    pub query: String,
    /// The provider that answered.
    pub provider: String,
    /// The results kept, in the provider's order.
    pub results: Vec<SearchResult>,
    /// Results dropped by `allowed_domains` / `blocked_domains`.
    pub filtered_out: usize,
}

/// The WebSearch tool: enabled only with a provider.
pub struct WebSearchTool {
    provider: Option<Arc<dyn SearchProvider>>,
}

impl fmt::Debug for WebSearchTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebSearchTool")
            .field(
                "provider",
                &self.provider.as_ref().map(|p| p.name().to_owned()),
            )
            .finish()
    }
}

impl WebSearchTool {
    /// WebSearch through `provider`; `None` leaves it disabled.
    pub fn new(provider: Option<Arc<dyn SearchProvider>>) -> Self {
        Self { provider }
    }
}

/// A domain as the filters compare it: lowercased, no scheme, path, port,
/// leading `*.` or trailing dot.
fn normalise_domain(text: &str) -> Option<String> {
    let text = text.trim();
    let bare = text.strip_prefix("*.").unwrap_or(text);
    let url = if bare.contains("://") {
        Url::parse(bare).ok()?
    } else {
        Url::parse(&format!("https://{bare}")).ok()?
    };
    ssrf::rule_host(&url).filter(|h| !h.is_empty())
}

/// True when `host` is `domain` or one of its sub-domains.
fn on_domain(host: &str, domain: &str) -> bool {
    host == domain
        || (host.len() > domain.len()
            && host.ends_with(domain)
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.')
}

/// Applies the filters; returns the kept results and how many were dropped.
pub fn filter_results(
    results: Vec<SearchResult>,
    allowed: &[String],
    blocked: &[String],
) -> (Vec<SearchResult>, usize) {
    let total = results.len();
    let kept: Vec<SearchResult> = results
        .into_iter()
        .filter(|r| {
            let Some(host) = Url::parse(&r.url).ok().as_ref().and_then(ssrf::rule_host) else {
                return false;
            };
            let allowed_here = allowed.is_empty() || allowed.iter().any(|d| on_domain(&host, d));
            allowed_here && !blocked.iter().any(|d| on_domain(&host, d))
        })
        .collect();
    let dropped = total - kept.len();
    (kept, dropped)
}

fn domains(list: Option<&Vec<String>>, field: &str) -> Result<Vec<String>, ToolError> {
    list.map(|l| l.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|d| {
            normalise_domain(d)
                .ok_or_else(|| ToolError::invalid(format!("`{d}` in `{field}` is not a domain")))
        })
        .collect()
}

#[async_trait]
impl TypedTool for WebSearchTool {
    type Input = WebSearchInput;
    type Output = WebSearchOutput;

    fn name(&self) -> &str {
        "WebSearch"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("search the web for pages")
    }
    fn is_enabled(&self) -> bool {
        self.provider.is_some()
    }
    fn is_concurrency_safe(&self, _input: &WebSearchInput) -> bool {
        true
    }
    fn is_read_only(&self, _input: &WebSearchInput) -> bool {
        true
    }
    fn is_open_world(&self, _input: &WebSearchInput) -> bool {
        true
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    async fn validate_input(
        &self,
        input: &WebSearchInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        if input.query.trim().chars().count() < 2 {
            return Err(ToolError::invalid("`query` must be at least 2 characters"));
        }
        domains(input.allowed_domains.as_ref(), "allowed_domains")?;
        domains(input.blocked_domains.as_ref(), "blocked_domains")?;
        Ok(())
    }
    async fn call(
        &self,
        input: WebSearchInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<WebSearchOutput>, ToolError> {
        let Some(provider) = &self.provider else {
            return Err(ToolError::failed(
                "WebSearch has no search provider configured (Settings → Web search)",
            ));
        };
        let allowed = domains(input.allowed_domains.as_ref(), "allowed_domains")?;
        let blocked = domains(input.blocked_domains.as_ref(), "blocked_domains")?;
        let results = tokio::select! {
            r = provider.search(input.query.trim(), RESULT_COUNT) => r.map_err(ToolError::failed)?,
            () = cx.cancel.cancelled() => return Err(ToolError::Cancelled),
        };
        let (results, filtered_out) = filter_results(results, &allowed, &blocked);
        cx.progress.report(ToolProgressData::WebSearchResults {
            provider: provider.name().to_owned(),
            results: results.clone(),
            filtered_out: u32::try_from(filtered_out).unwrap_or(u32::MAX),
        });
        Ok(ToolResult::new(WebSearchOutput {
            query: input.query,
            provider: provider.name().to_owned(),
            results,
            filtered_out,
        }))
    }
    fn map_result(&self, output: &WebSearchOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        let mut text = format!(
            "Web search results for \"{}\" ({}):\n",
            output.query, output.provider
        );
        if output.results.is_empty() {
            text.push_str("\nNo results.");
        }
        for (n, r) in output.results.iter().enumerate() {
            text.push_str(&format!("\n{}. [{}]({})\n", n + 1, r.title, r.url));
            if !r.snippet.is_empty() {
                text.push_str(&format!("   {}\n", r.snippet));
            }
        }
        if output.filtered_out > 0 {
            text.push_str(&format!(
                "\n({} results were dropped by allowed_domains / blocked_domains.)",
                output.filtered_out
            ));
        }
        vec![ContentBlock::Text { text }]
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hit(url: &str) -> SearchResult {
        SearchResult {
            title: url.into(),
            url: url.into(),
            snippet: String::new(),
        }
    }

    #[test]
    fn filters_cover_subdomains_not_lookalikes() {
        let results = vec![
            hit("https://docs.rs/x"),
            hit("https://www.docs.rs/y"),
            hit("https://notdocs.rs/z"),
            hit("https://evil.com/docs.rs"),
        ];
        let allowed = vec![normalise_domain("Docs.RS.").unwrap()];
        let (kept, dropped) = filter_results(results.clone(), &allowed, &[]);
        assert_eq!(kept.len(), 2);
        assert_eq!(dropped, 2);
        let blocked = vec![normalise_domain("https://www.docs.rs/").unwrap()];
        let (kept, _) = filter_results(results, &[], &blocked);
        assert!(kept.iter().all(|r| !r.url.contains("www.docs.rs")));
        assert_eq!(kept.len(), 3);
    }
}
