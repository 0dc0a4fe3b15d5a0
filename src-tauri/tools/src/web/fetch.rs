//! `WebFetch` (`url`, `prompt`): one page from the web, as Markdown.
//!
//! Redirects are followed one hop at a time (reqwest's own redirect policy
//! is off): a hop to a host the call has not been allowed for is a new
//! permission question, asked through the call's
//! [`Recheck`](gatehouse_core::recheck::Recheck) exactly as the call's own
//! (a deny rule refuses it at the hop, an ask prompts the user); every hop
//! is reported as `tool_progress` `web_hop` with its decision. Addresses
//! on the local network are refused by [`super::ssrf`] unless an allow rule
//! names the host exactly. The body is read as a stream and cut at the size
//! cap; connect and total timeouts bound the time. Results cite the final
//! URL and are cached per session for 15 minutes.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::recheck::Recheck;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::{InterruptBehavior, ToolError, ToolUseContext, TypedTool};
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior};
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_protocol::web::{WebHop, WebHopDecision};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use url::Url;

use super::content::{self, Kind};
use super::ssrf::{self, Exemptions, GuardedResolver};
use super::{PagePrompter, error_chain, read_capped};
use crate::read::image::{ImageOutput, image_from_bytes};
use crate::read::pdf::{MAX_PAGES, pdf_from_bytes};

const DESCRIPTION: &str = "Fetches a web page and returns its content as Markdown (HTML is \
converted; text, JSON and XML are kept; PDFs are read as text and images returned as images). \
`url` must be a full http(s) URL; http is upgraded to https when the host supports it. \
Redirects to another host need permission of their own, and addresses on the local network are \
refused. `prompt` says what to look for in the page; when a small, fast model is configured it \
answers the prompt from the page and its answer is returned instead of the page. Results cite \
the final URL and are cached for 15 minutes.";

/// Limits of a fetch; tests shorten the timeouts.
#[derive(Debug, Clone)]
pub struct WebFetchConfig {
    /// Time to establish a connection (TCP and TLS).
    pub connect_timeout: Duration,
    /// Time for the whole fetch, every hop and the body included.
    pub total_timeout: Duration,
    /// Bytes of (decompressed) body kept; reading stops there.
    pub max_bytes: usize,
    /// Redirects followed before giving up.
    pub max_redirects: usize,
    /// How long a fetched page is served from the session's cache.
    pub cache_ttl: Duration,
    /// Pages kept in the cache (oldest dropped first).
    pub cache_entries: usize,
    /// Characters of page text the model gets when no small model applies
    /// the prompt.
    pub result_chars: usize,
    /// An http URL on this port is tried over https first (80; tests
    /// use their servers' ports).
    pub http_port: u16,
    /// …on this port (443).
    pub https_port: u16,
}

impl Default for WebFetchConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            total_timeout: Duration::from_secs(60),
            max_bytes: 10 * 1024 * 1024,
            max_redirects: 10,
            cache_ttl: Duration::from_secs(15 * 60),
            cache_entries: 32,
            result_chars: 90_000,
            http_port: 80,
            https_port: 443,
        }
    }
}

/// WebFetch's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchInput {
    /// The URL to fetch (http or https).
    pub url: String,
    /// What to find in or do with the page.
    pub prompt: String,
}

/// The content of a fetched page.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "format", rename_all = "snake_case")]
pub enum PageContent {
    /// HTML converted to Markdown.
    Markdown {
        /// The Markdown.
        text: String,
    },
    /// Text kept as it came (text, JSON, XML…).
    Text {
        /// The text.
        text: String,
    },
    /// A PDF's text, page by page.
    Pdf {
        /// The rendered pages.
        text: String,
    },
    /// An image.
    Image {
        /// The image block's data.
        image: ImageOutput,
    },
}

/// What WebFetch returns.
#[derive(Debug, Clone, Serialize)]
pub struct WebFetchOutput {
    /// The URL asked for.
    pub url: String,
    /// The URL the content came from (after redirects): the citation.
    pub final_url: String,
    /// The final response's status.
    pub status: u16,
    /// Its media type.
    pub content_type: Option<String>,
    /// Bytes of body read (after decompression).
    pub bytes: u64,
    /// Whether the body was cut at the size cap.
    pub truncated: bool,
    /// Whether it came from the session's cache.
    pub from_cache: bool,
    /// Every URL visited, with its decision.
    pub hops: Vec<WebHop>,
    /// The page.
    pub content: PageContent,
    /// What the model should know about the text (prompt not applied,
    /// truncation, or which model summarised it).
    pub note: Option<String>,
    /// The small model whose answer `content` is, when the prompt was
    /// applied (the page is not in the result then).
    pub summarised_by: Option<String>,
}

/// A page as fetched, before the prompt is applied (what the cache keeps).
#[derive(Debug, Clone)]
struct Page {
    final_url: String,
    status: u16,
    content_type: Option<String>,
    bytes: u64,
    truncated: bool,
    hops: Vec<WebHop>,
    content: PageContent,
}

/// The WebFetch tool of one session (its cache is the session's).
pub struct WebFetchTool {
    config: WebFetchConfig,
    client: reqwest::Client,
    exemptions: Exemptions,
    cache: Mutex<HashMap<String, (Instant, Arc<Page>)>>,
    prompter: Option<Arc<dyn PagePrompter>>,
}

impl std::fmt::Debug for WebFetchTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebFetchTool")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl WebFetchTool {
    /// A WebFetch with `config`, no small model (the page is returned,
    /// truncated to the result budget).
    pub fn new(config: WebFetchConfig) -> Result<Self, String> {
        Self::with_roots(config, Vec::new())
    }

    /// [`WebFetchTool::new`], also trusting the certificate authorities
    /// `extra_roots` besides the system's (certificates are still
    /// verified: a test's self-signed authority, a company's own).
    pub fn with_roots(
        config: WebFetchConfig,
        extra_roots: Vec<reqwest::Certificate>,
    ) -> Result<Self, String> {
        let resolver = GuardedResolver::default();
        let exemptions = resolver.exemptions.clone();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.connect_timeout)
            .dns_resolver(Arc::new(resolver))
            // A proxy would resolve names where the guard cannot see them.
            .no_proxy()
            .tls_certs_merge(extra_roots)
            .user_agent(concat!("Gatehouse-WebFetch/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {}", error_chain(&e)))?;
        Ok(Self {
            config,
            client,
            exemptions,
            cache: Mutex::new(HashMap::new()),
            prompter: None,
        })
    }

    /// Applies prompts with `prompter` (a small, fast model).
    pub fn with_prompter(mut self, prompter: Arc<dyn PagePrompter>) -> Self {
        self.prompter = Some(prompter);
        self
    }

    fn cached(&self, key: &str) -> Option<Arc<Page>> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let ttl = self.config.cache_ttl;
        cache.retain(|_, (at, _)| at.elapsed() < ttl);
        cache.get(key).map(|(_, page)| Arc::clone(page))
    }

    fn remember(&self, key: String, page: Arc<Page>) {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        while cache.len() >= self.config.cache_entries.max(1) {
            let Some(oldest) = cache
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            cache.remove(&oldest);
        }
        cache.insert(key, (Instant::now(), page));
    }

    /// Fetches `url` hop by hop and reads the final body.
    async fn fetch(
        &self,
        url: Url,
        input: &WebFetchInput,
        cx: &CallContext<'_>,
    ) -> Result<Page, ToolError> {
        let recheck = cx.ctx.extensions.get::<Recheck>().cloned();
        let mut hops = Vec::new();
        let mut allowed_hosts = HashSet::new();
        let mut visited = HashSet::new();
        let mut current = url;
        for hop_number in 0..=self.config.max_redirects {
            let host = ssrf::rule_host(&current).unwrap_or_default();
            if !matches!(current.scheme(), "http" | "https") {
                let reason = format!(
                    "a redirect to the `{}:` scheme is refused (http and https only)",
                    current.scheme()
                );
                return Err(self.refused(
                    cx,
                    &mut hops,
                    &current,
                    host,
                    WebHopDecision::Denied,
                    reason,
                ));
            }
            if !visited.insert(current.as_str().to_owned()) {
                return Err(ToolError::failed(format!(
                    "redirect loop: {current} was already visited ({})",
                    chain(&hops, &current)
                )));
            }
            // The decision for this host: the call's own for its first URL
            // and hosts already allowed, a new question otherwise.
            let hop_input = serde_json::json!({"url": current.as_str(), "prompt": input.prompt});
            let subject = PermissionSubject::Url(current.as_str().to_owned());
            let (decision, reason) = match &recheck {
                None if hop_number == 0 => (WebHopDecision::Covered, None),
                None => {
                    let reason = format!(
                        "a redirect to {host} needs permission and this call cannot ask for it"
                    );
                    return Err(self.refused(
                        cx,
                        &mut hops,
                        &current,
                        host,
                        WebHopDecision::Denied,
                        reason,
                    ));
                }
                Some(_) if hop_number == 0 || allowed_hosts.contains(&host) => {
                    (WebHopDecision::Covered, None)
                }
                Some(check) => {
                    let settled = check.0.check(&hop_input, subject.clone()).await;
                    let words = describe(&settled.reason);
                    if settled.decision != PermissionBehavior::Allow {
                        let reason = format!(
                            "the redirect from {} to {host} was refused: {words}",
                            hops.last().map_or("", |h: &WebHop| h.host.as_str())
                        );
                        return Err(self.refused(
                            cx,
                            &mut hops,
                            &current,
                            host,
                            WebHopDecision::Denied,
                            reason,
                        ));
                    }
                    let by_user = matches!(settled.reason, DecisionReason::UserAnswer { .. });
                    let decision = if by_user {
                        WebHopDecision::AllowedByUser
                    } else {
                        WebHopDecision::Allowed
                    };
                    (decision, Some(words))
                }
            };
            // The local network is reached only under an allow rule naming
            // this host exactly.
            let exempt = match &recheck {
                Some(check) => check
                    .0
                    .allowing_rule(&hop_input, subject)
                    .await
                    .is_some_and(|rule| names_host_exactly(&rule, &host)),
                None => false,
            };
            allowed_hosts.insert(host.clone());
            if let Some(ip) = ssrf::literal_ip(&current)
                && let Err(why) = ssrf::check_ip(ip, exempt)
            {
                return Err(self.refused(
                    cx,
                    &mut hops,
                    &current,
                    host,
                    WebHopDecision::Blocked,
                    why,
                ));
            }
            let _exempt = match (exempt, current.host_str()) {
                (true, Some(h)) => Some(self.exemptions.exempt(h)),
                _ => None,
            };
            let response = self.send(&current, hop_number == 0).await.map_err(|e| {
                let why = error_chain(&e);
                if why.contains("does not reach") {
                    self.refused(
                        cx,
                        &mut hops,
                        &current,
                        host.clone(),
                        WebHopDecision::Blocked,
                        why,
                    )
                } else {
                    ToolError::failed(format!("fetching {current} failed: {why}"))
                }
            })?;
            let status = response.status();
            let hop = WebHop {
                url: response.url().as_str().to_owned(),
                host: host.clone(),
                decision,
                reason,
                status: Some(status.as_u16()),
            };
            cx.progress
                .report(ToolProgressData::WebHop { hop: hop.clone() });
            hops.push(hop);
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            if status.is_redirection()
                && let Some(location) = location
            {
                let next = response.url().join(location).map_err(|e| {
                    ToolError::failed(format!(
                        "{} redirected to `{location}`, which is not a valid URL: {e}",
                        response.url()
                    ))
                })?;
                current = next;
                continue;
            }
            let final_url = response.url().clone();
            return self.read_page(response, final_url, hops, cx).await;
        }
        Err(ToolError::failed(format!(
            "too many redirects (more than {}): {}",
            self.config.max_redirects,
            chain(&hops, &current)
        )))
    }

    /// Sends a GET; an http URL on the http port is tried over https on
    /// the https port first on the first hop (falling back to http when
    /// that cannot connect, or its certificate does not verify).
    async fn send(&self, url: &Url, first: bool) -> Result<reqwest::Response, reqwest::Error> {
        if first
            && url.scheme() == "http"
            && url.port_or_known_default() == Some(self.config.http_port)
            && let Some(https) = upgraded(url, self.config.https_port)
        {
            // A host that does not answer https soon is read over http.
            let quick = self.config.connect_timeout.min(Duration::from_secs(3));
            if let Ok(Ok(response)) = tokio::time::timeout(quick, self.get(&https)).await {
                return Ok(response);
            }
        }
        self.get(url).await
    }

    async fn get(&self, url: &Url) -> Result<reqwest::Response, reqwest::Error> {
        self.client
            .get(url.clone())
            .header(
                reqwest::header::ACCEPT,
                "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5",
            )
            .send()
            .await
    }

    /// Reports a refused hop and builds the error the model reads.
    fn refused(
        &self,
        cx: &CallContext<'_>,
        hops: &mut Vec<WebHop>,
        url: &Url,
        host: String,
        decision: WebHopDecision,
        reason: String,
    ) -> ToolError {
        let hop = WebHop {
            url: url.as_str().to_owned(),
            host,
            decision,
            reason: Some(reason.clone()),
            status: None,
        };
        cx.progress
            .report(ToolProgressData::WebHop { hop: hop.clone() });
        hops.push(hop);
        ToolError::failed(format!("WebFetch of {url} refused: {reason}"))
    }

    /// Reads the final response's body (cut at the cap) and converts it.
    async fn read_page(
        &self,
        mut response: reqwest::Response,
        final_url: Url,
        hops: Vec<WebHop>,
        cx: &CallContext<'_>,
    ) -> Result<Page, ToolError> {
        let status = response.status();
        let header_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let (body, truncated) = read_capped(&mut response, self.config.max_bytes)
            .await
            .map_err(|(e, read)| {
                ToolError::failed(format!(
                    "reading {final_url} failed after {read} bytes: {}",
                    error_chain(&e)
                ))
            })?;
        // Stop the transfer at once (the connection is not reused).
        drop(response);
        let media = header_type.as_deref().map(content::media_type);
        cx.progress.report(ToolProgressData::WebResponse {
            final_url: final_url.as_str().to_owned(),
            status: status.as_u16(),
            content_type: media.clone(),
            bytes: body.len() as u64,
            truncated,
            from_cache: false,
        });
        if !status.is_success() {
            let (text, _) = content::decode(&body[..body.len().min(2000)], None, false);
            return Err(ToolError::failed(format!(
                "{final_url} answered {status}{}",
                if text.trim().is_empty() {
                    String::new()
                } else {
                    format!(": {}", text.trim())
                }
            )));
        }
        let kind = content::classify(media.as_deref(), &body)
            .map_err(|why| ToolError::failed(format!("{final_url} was not read: {why}")))?;
        let charset = header_type.as_deref().and_then(content::charset_param);
        let label = final_url.as_str().to_owned();
        let bytes = body.len() as u64;
        let content = tokio::task::spawn_blocking(move || convert(kind, &label, &body, charset))
            .await
            .map_err(|e| ToolError::failed(format!("converting {final_url} failed: {e}")))??;
        Ok(Page {
            final_url: final_url.into(),
            status: status.as_u16(),
            content_type: media,
            bytes,
            truncated,
            hops,
            content,
        })
    }

    /// The page's text for the model: the prompt applied by the small
    /// model when there is one, otherwise the text within the budget.
    /// Returns the content, the note for the model and the small model
    /// that answered (if one did).
    async fn answer(
        &self,
        page: &Page,
        prompt: &str,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<(PageContent, Option<String>, Option<String>), ToolError> {
        let text = match &page.content {
            PageContent::Markdown { text }
            | PageContent::Text { text }
            | PageContent::Pdf { text } => text,
            PageContent::Image { .. } => return Ok((page.content.clone(), None, None)),
        };
        let mut note = String::from(
            "No small model is configured to apply the prompt, so this is the page itself; \
             answer the prompt from it.",
        );
        if let Some(prompter) = &self.prompter {
            let model = prompter.model().to_owned();
            let applied = tokio::select! {
                r = prompter.apply(prompt, &page.final_url, text) => r,
                () = cancel.cancelled() => return Err(ToolError::Cancelled),
            };
            match applied {
                Ok(answer) => {
                    let note = format!(
                        "This is {model}'s answer to the prompt, summarised from the page at {} \
                         (not the page itself); cite that URL.",
                        page.final_url
                    );
                    return Ok((PageContent::Text { text: answer }, Some(note), Some(model)));
                }
                // The small model's failure is not the call's: the page
                // is returned instead, saying so.
                Err(e) => {
                    note = format!(
                        "The small model {model} could not apply the prompt ({e}), so this is \
                         the page itself; answer the prompt from it."
                    );
                }
            }
        }
        let limit = self.config.result_chars;
        let total = text.chars().count();
        let kept = if total > limit {
            note.push_str(&format!(
                " The page is {total} characters long; only the first {limit} are shown."
            ));
            text.chars().take(limit).collect()
        } else {
            text.clone()
        };
        if page.truncated {
            note.push_str(&format!(
                " The download stopped at the {} byte size cap.",
                self.config.max_bytes
            ));
        }
        let content = match &page.content {
            PageContent::Markdown { .. } => PageContent::Markdown { text: kept },
            PageContent::Pdf { .. } => PageContent::Pdf { text: kept },
            _ => PageContent::Text { text: kept },
        };
        Ok((content, Some(note), None))
    }
}

/// `url` over https on `port` (the default port written as none).
fn upgraded(url: &Url, port: u16) -> Option<Url> {
    let mut https = url.clone();
    https.set_scheme("https").ok()?;
    https.set_port((port != 443).then_some(port)).ok()?;
    Some(https)
}

/// True when `rule` is `WebFetch(domain:host)` for exactly `host` (a `*.`
/// rule is not exact).
fn names_host_exactly(rule: &str, host: &str) -> bool {
    rule.strip_prefix("WebFetch(domain:")
        .and_then(|rest| rest.strip_suffix(')'))
        .is_some_and(|named| {
            // The rule's host normalised as the URL's was.
            Url::parse(&format!("http://{}/", named.trim()))
                .ok()
                .and_then(|u| ssrf::rule_host(&u))
                .is_some_and(|n| n == host)
        })
}

fn describe(reason: &DecisionReason) -> String {
    gatehouse_core::pipeline::describe_reason(reason)
}

/// `a → b → c` for an error message.
fn chain(hops: &[WebHop], next: &Url) -> String {
    hops.iter()
        .map(|h| h.url.as_str())
        .chain(std::iter::once(next.as_str()))
        .collect::<Vec<_>>()
        .join(" → ")
}

/// Converts a body by its kind (blocking: parsing and decoding).
fn convert(
    kind: Kind,
    label: &str,
    body: &[u8],
    charset: Option<String>,
) -> Result<PageContent, ToolError> {
    Ok(match kind {
        Kind::Html => {
            let (html, _) = content::decode(body, charset.as_deref(), true);
            PageContent::Markdown {
                text: super::markdown::html_to_markdown(&html),
            }
        }
        Kind::Text => PageContent::Text {
            text: content::decode(body, charset.as_deref(), false).0,
        },
        Kind::Pdf => PageContent::Pdf {
            text: pdf_from_bytes(label, body, 1, Some(MAX_PAGES))?.render(),
        },
        Kind::Image => PageContent::Image {
            image: image_from_bytes(label, body)?,
        },
    })
}

#[async_trait]
impl TypedTool for WebFetchTool {
    type Input = WebFetchInput;
    type Output = WebFetchOutput;

    fn name(&self) -> &str {
        gatehouse_core::names::WEB_FETCH
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("fetch a web page URL as markdown")
    }
    fn is_concurrency_safe(&self, _input: &WebFetchInput) -> bool {
        true
    }
    fn is_read_only(&self, _input: &WebFetchInput) -> bool {
        true
    }
    fn is_open_world(&self, _input: &WebFetchInput) -> bool {
        true
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn max_result_size_chars(&self) -> usize {
        self.config.result_chars + 2_000
    }
    async fn validate_input(
        &self,
        input: &WebFetchInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        parse_url(&input.url).map(|_| ())
    }
    fn permission_subject(
        &self,
        input: &WebFetchInput,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        Some(PermissionSubject::Url(input.url.clone()))
    }
    async fn call(
        &self,
        input: WebFetchInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<WebFetchOutput>, ToolError> {
        let url = parse_url(&input.url)?;
        let key = url.as_str().to_owned();
        let (page, from_cache) = match self.cached(&key) {
            Some(page) => (page, true),
            None => {
                let fetch = tokio::time::timeout(
                    self.config.total_timeout,
                    self.fetch(url.clone(), &input, &cx),
                );
                let page = tokio::select! {
                    r = fetch => r.map_err(|_| ToolError::TimedOut(format!(
                        "fetching {url} took longer than {:?} and was stopped",
                        self.config.total_timeout
                    )))??,
                    () = cx.cancel.cancelled() => return Err(ToolError::Cancelled),
                };
                let page = Arc::new(page);
                self.remember(key, Arc::clone(&page));
                (page, false)
            }
        };
        if from_cache {
            cx.progress.report(ToolProgressData::WebResponse {
                final_url: page.final_url.clone(),
                status: page.status,
                content_type: page.content_type.clone(),
                bytes: page.bytes,
                truncated: page.truncated,
                from_cache: true,
            });
        }
        let (content, note, summarised_by) = self.answer(&page, &input.prompt, cx.cancel).await?;
        Ok(ToolResult::new(WebFetchOutput {
            url: input.url,
            final_url: page.final_url.clone(),
            status: page.status,
            content_type: page.content_type.clone(),
            bytes: page.bytes,
            truncated: page.truncated,
            from_cache,
            hops: page.hops.clone(),
            content,
            note,
            summarised_by,
        }))
    }
    fn map_result(&self, output: &WebFetchOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        let mut head = format!(
            "Source: {} (HTTP {}, {}, {} bytes{})",
            output.final_url,
            output.status,
            output.content_type.as_deref().unwrap_or("no content type"),
            output.bytes,
            if output.truncated {
                ", cut at the size cap"
            } else {
                ""
            }
        );
        if output.final_url != output.url {
            head.push_str(&format!("\nRequested: {}", output.url));
        }
        let mut blocks = match &output.content {
            PageContent::Image { image } => image.blocks(),
            PageContent::Markdown { text }
            | PageContent::Text { text }
            | PageContent::Pdf { text } => vec![ContentBlock::Text {
                text: format!("{head}\n\n{text}"),
            }],
        };
        if matches!(output.content, PageContent::Image { .. }) {
            blocks.push(ContentBlock::Text { text: head });
        }
        if let Some(note) = &output.note {
            blocks.push(ContentBlock::Text {
                text: format!("<system-reminder>{note}</system-reminder>"),
            });
        }
        blocks
    }
}

/// Parses a URL the WHATWG way and refuses what WebFetch does not fetch.
pub fn parse_url(text: &str) -> Result<Url, ToolError> {
    let url = Url::parse(text.trim())
        .map_err(|e| ToolError::invalid(format!("`{text}` is not a valid URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::invalid(format!(
            "`{text}` uses the `{}:` scheme; WebFetch fetches http and https URLs only",
            url.scheme()
        )));
    }
    if url.host().is_none() {
        return Err(ToolError::invalid(format!("`{text}` has no host")));
    }
    Ok(url)
}
