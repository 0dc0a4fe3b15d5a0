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
