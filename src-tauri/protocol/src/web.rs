//! What the web tools (WebFetch, WebSearch) report on the wire (issue 22):
//! each redirect hop with its permission decision, the response's status,
//! type and size, search results, and tools left out of a session's pool.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How the permission engine (and the user) settled one hop of a fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum WebHopDecision {
    /// The call's own decision covers it (the first URL, or the same host).
    Covered,
    /// A new host the engine allowed (a rule or the mode).
    Allowed,
    /// A new host the user allowed when asked.
    AllowedByUser,
    /// Refused: a deny rule, the user, or nobody to ask.
    Denied,
    /// Refused because it reaches the local network (loopback, private,
    /// link-local…) and no allow rule names that host.
    Blocked,
}

/// One URL a WebFetch call visited or refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WebHop {
    /// The URL (after WHATWG parsing).
    pub url: String,
    /// Its host, lowercased, without a trailing dot, IDNs in punycode.
    pub host: String,
    /// How it was decided.
    pub decision: WebHopDecision,
    /// Why, in words (the rule, the answer, the blocked address).
    pub reason: Option<String>,
    /// The HTTP status the hop answered, when it was requested.
    pub status: Option<u16>,
}

/// One search result (WebSearch).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchResult {
    /// The page title.
    pub title: String,
    /// The page's URL.
    pub url: String,
    /// The provider's snippet.
    pub snippet: String,
}

/// A built-in tool left out of a session's pool, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UnavailableTool {
    /// The tool's name (`WebSearch`).
    pub name: String,
    /// Why it is not available, and what would enable it.
    pub reason: UnavailableReason,
    /// The same in words.
    pub message: String,
}

/// Why a tool is unavailable (typed, so a front end need not read words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum UnavailableReason {
    /// It needs something configured in Settings (a search provider).
    NotConfigured,
}

/// The search provider WebSearch is set to use (Settings → Web search;
/// `webSearch.provider` in `~/.gatehouse/settings.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SearchProviderKind {
    /// None: WebSearch is left out of sessions' pools.
    None,
    /// Brave Search's API (its key in the OS keychain, account `brave-search`).
    Brave,
    /// A SearXNG instance's JSON API (its URL in the settings file).
    Searxng,
}

/// The Web search section of Settings: what is configured, and whether a
/// session started now would have WebSearch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WebSearchSettings {
    /// The provider chosen (`none` also when the file names an unknown one:
    /// see `unavailable`).
    pub provider: SearchProviderKind,
    /// The SearXNG instance's URL, when one is saved (kept while another
    /// provider is chosen).
    pub searxng_url: Option<String>,
    /// Where Brave Search's key would come from (never the key).
    pub brave_key: crate::session::ApiKeyStatus,
    /// Why WebSearch would be left out of a new session, as the session's
    /// `tools_unavailable` says it; `None` when it is available.
    pub unavailable: Option<UnavailableTool>,
    /// The settings file these come from and are saved to.
    pub settings_file: String,
}

/// Arguments of `save_web_search_settings`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveWebSearchArgs {
    /// The provider to use.
    pub provider: SearchProviderKind,
    /// The SearXNG instance's URL (required with `searxng`, kept
    /// otherwise when given).
    pub searxng_url: Option<String>,
}
