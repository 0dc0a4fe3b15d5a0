//! The web tools (issue 22): [`fetch`] (`WebFetch`) and [`search`]
//! (`WebSearch`), the agent's only sanctioned ways out of the machine.
//!
//! | module | what |
//! |---|---|
//! | [`fetch`] | `WebFetch`: hop-by-hop redirects with a permission question per new host, size cap, timeouts, cache |
//! | [`ssrf`] | no way into the local network: resolved and literal addresses filtered |
//! | [`content`] | content type → reader, charset (BOM, header, `<meta>`) |
//! | [`markdown`] | HTML → Markdown (`htmd`) |
//! | [`search`] | `WebSearch` behind [`search::SearchProvider`]: Brave Search, SearXNG |

use async_trait::async_trait;

pub mod content;
pub mod fetch;
pub mod markdown;
pub mod search;
pub mod ssrf;

pub use fetch::{WebFetchConfig, WebFetchTool};
pub use search::{SearchProvider, WebSearchTool};

/// Applies WebFetch's `prompt` to a page with a small, fast model (the
/// session's: `gatehouse-session`'s `web_prompt`). Implementations bound
/// what they send and how long they take; an error is not the call's:
/// WebFetch returns the page instead, saying why.
#[async_trait]
pub trait PagePrompter: Send + Sync {
    /// The model's name, cited in the result.
    fn model(&self) -> &str;

    /// The model's answer to `prompt` about the page at `url`, or why it
    /// could not give one.
    async fn apply(&self, prompt: &str, url: &str, page: &str) -> Result<String, String>;
}

/// An error and its causes, `: `-separated (reqwest's own `Display` omits
/// the cause: "error sending request").
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Reads a response body as a stream, keeping at most `cap` bytes: returns
/// the bytes and whether the body went on past the cap (reading stops
/// there, so memory stays bounded whatever the server sends).
pub async fn read_capped(
    response: &mut reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool), (reqwest::Error, usize)> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| (e, body.len()))? {
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}
