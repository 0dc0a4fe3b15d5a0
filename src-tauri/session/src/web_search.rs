//! The session's WebSearch: which search provider it uses, from Gatehouse's
//! own settings (`~/.gatehouse/settings.json`, key `webSearch`):
//!
//! ```json
//! {"webSearch": {"provider": "searxng", "url": "http://localhost:8888"}}
//! {"webSearch": {"provider": "brave"}}
//! ```
//!
//! Brave Search's key is looked up like a model provider's (`BRAVE_SEARCH_API_KEY`,
//! then the keychain account `brave-search`: `gatehouse-cli keys set
//! brave-search`); the key never leaves the provider's request header.
//! Without a usable provider WebSearch is still built but disabled (its
//! gate leaves it out of the pool) and the reason is reported as a typed
//! `tools_unavailable` event, so the UI can say why and what to configure.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::Tool;
use gatehouse_core::bounded_read::read_text;
use gatehouse_core::typed::Typed;
use gatehouse_protocol::web::{UnavailableReason, UnavailableTool};
use gatehouse_tools::web::search::{BraveSearch, Searxng, search_client};
use gatehouse_tools::web::{SearchProvider, WebSearchTool};
use serde_json::Value;

/// How long a search may take.
const SEARCH_TIMEOUT: Duration = Duration::from_secs(20);

/// A JSON settings file as a value (`Null` when the file is absent).
pub(crate) fn read_settings_file(path: &Path) -> Result<Value, String> {
    let text = match read_text(path, crate::app_settings::MAX_SETTINGS_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Value::Null),
        Err(e) => return Err(format!("{} {e}", path.display())),
    };
    serde_json::from_str(&text).map_err(|e| format!("{} is not valid JSON: {e}", path.display()))
}

/// Gatehouse's own settings file of `home`: `~/.gatehouse/settings.json`.
pub(crate) fn gatehouse_settings_path(home: &Path) -> std::path::PathBuf {
    home.join(".gatehouse").join("settings.json")
}

/// The `webSearch` settings of `home`'s `~/.gatehouse/settings.json`
/// (`Null` when the file or the key is absent).
fn settings(home: &Path) -> Result<Value, String> {
    let value = read_settings_file(&gatehouse_settings_path(home))?;
    Ok(value.get("webSearch").cloned().unwrap_or(Value::Null))
}

/// The provider `settings` name, given how to find Brave Search's key.
pub fn provider_from(
    settings: &Value,
    find_key: &dyn Fn() -> Result<Option<String>, String>,
) -> Result<Arc<dyn SearchProvider>, String> {
    let client = search_client(SEARCH_TIMEOUT)?;
    let text = |k: &str| settings.get(k).and_then(Value::as_str);
    match text("provider") {
        Some("searxng") => {
            let url = text("url").ok_or(
                "webSearch.provider is \"searxng\" but webSearch.url (the instance's address) is missing",
            )?;
            Ok(Arc::new(Searxng::new(url, client)?))
        }
        Some("brave") => {
            let key = find_key()?.ok_or(
                "webSearch.provider is \"brave\" but no Brave Search API key is stored \
                 (`gatehouse-cli keys set brave-search`, or BRAVE_SEARCH_API_KEY)",
            )?;
            let url = text("url").unwrap_or(BraveSearch::BASE_URL);
            Ok(Arc::new(BraveSearch::new(url, key, client)?))
        }
        Some(other) => Err(format!(
            "webSearch.provider {other:?} is not known (use \"brave\" or \"searxng\")"
        )),
        None => Err(
            "no search provider is configured (set webSearch in ~/.gatehouse/settings.json: \
             Brave Search with an API key, or a SearXNG instance's URL)"
                .into(),
        ),
    }
}

/// The session's WebSearch tool, and why it is unavailable when it is.
pub fn web_search_tool(home: &Path) -> (Arc<dyn Tool>, Option<UnavailableTool>) {
    let provider = settings(home).and_then(|s| {
        provider_from(&s, &|| {
            crate::keys::find_key("brave-search").map(|k| k.map(|k| k.expose().to_owned()))
        })
    });
    match provider {
        Ok(p) => (Typed::arc(WebSearchTool::new(Some(p))), None),
        Err(message) => (
            Typed::arc(WebSearchTool::new(None)),
            Some(UnavailableTool {
                name: "WebSearch".into(),
                reason: UnavailableReason::NotConfigured,
                message,
            }),
        ),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn settings_pick_the_provider_or_say_what_is_missing() {
        let no_key = || Ok(None);
        let key = || Ok(Some("k".to_owned()));
        let searx = serde_json::json!({"provider": "searxng", "url": "http://127.0.0.1:1/"});
        assert_eq!(provider_from(&searx, &no_key).unwrap().name(), "SearXNG");
        let brave = serde_json::json!({"provider": "brave"});
        assert_eq!(provider_from(&brave, &key).unwrap().name(), "Brave Search");
        let missing = provider_from(&brave, &no_key).err().unwrap();
        assert!(missing.contains("brave-search"), "{missing}");
        let none = provider_from(&Value::Null, &key).err().unwrap();
        assert!(none.contains("no search provider"), "{none}");
        let bad = provider_from(&serde_json::json!({"provider": "bing"}), &key)
            .err()
            .unwrap();
        assert!(bad.contains("bing"), "{bad}");
    }

    #[test]
    fn without_settings_the_tool_is_disabled_with_a_reason() {
        let home = tempfile::tempdir().unwrap();
        let (tool, why) = web_search_tool(home.path());
        assert!(!tool.is_enabled());
        assert_eq!(why.unwrap().reason, UnavailableReason::NotConfigured);
    }
}
