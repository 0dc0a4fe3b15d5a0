//! Settings → Web search: the search provider read from and saved into
//! `~/.gatehouse/settings.json` (`webSearch`, every other key kept, written
//! atomically), Brave Search's key status (the key itself goes through
//! [`crate::keys::set_key`] to the keychain only), and whether a session
//! started now would have WebSearch — the same verdict, and the same
//! words, as the session's `tools_unavailable`.

use std::path::Path;

use gatehouse_agent::keys::{KeyStore, lookup_key};
use gatehouse_protocol::web::{
    SaveWebSearchArgs, SearchProviderKind, UnavailableReason, UnavailableTool, WebSearchSettings,
};
use serde_json::{Map, Value};

use crate::web_search::{gatehouse_settings_path, provider_from, read_settings_file};

/// The keychain account of Brave Search's key.
const BRAVE_ACCOUNT: &str = "brave-search";

/// The Web search section for `home`, keys looked up in `store` (after the
/// environment, as sessions do).
pub fn web_search_settings(home: &Path, store: &dyn KeyStore) -> Result<WebSearchSettings, String> {
    let path = gatehouse_settings_path(home);
    let file = read_settings_file(&path)?;
    let section = file.get("webSearch").cloned().unwrap_or(Value::Null);
    let text = |k: &str| section.get(k).and_then(Value::as_str).map(str::to_owned);
    let provider = match text("provider").as_deref() {
        Some("brave") => SearchProviderKind::Brave,
        Some("searxng") => SearchProviderKind::Searxng,
        _ => SearchProviderKind::None,
    };
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let find_key = || {
        lookup_key(BRAVE_ACCOUNT, None, &env, store)
            .map(|found| found.map(|(key, _)| key.expose().to_owned()))
    };
    let unavailable = provider_from(&section, &find_key)
        .err()
        .map(|message| UnavailableTool {
            name: gatehouse_core::names::WEB_SEARCH.into(),
            reason: UnavailableReason::NotConfigured,
            message,
        });
    Ok(WebSearchSettings {
        provider,
        searxng_url: (provider != SearchProviderKind::Brave)
            .then(|| text("url"))
            .flatten(),
        brave_key: crate::keys::key_status(BRAVE_ACCOUNT, store)?,
        unavailable,
        settings_file: path.display().to_string(),
    })
}

/// Saves `args` into `home`'s `~/.gatehouse/settings.json` and returns the
/// section as it now stands. SearXNG needs an http(s) URL; Brave Search
/// drops the saved URL (which would otherwise be its API's address); none
/// keeps it for later. A file that is not a JSON object is an error and is
/// left untouched.
pub fn save_web_search_settings(
    home: &Path,
    args: &SaveWebSearchArgs,
    store: &dyn KeyStore,
) -> Result<WebSearchSettings, String> {
    let path = gatehouse_settings_path(home);
    let mut file = match read_settings_file(&path)? {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        _ => {
            return Err(format!(
                "{} is not a JSON object; fix it by hand first",
                path.display()
            ));
        }
    };
    let url = args
        .searxng_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty());
    if let Some(url) = url {
        check_url(url)?;
    }
    // A `webSearch` that is not an object holds nothing worth keeping.
    if !file.get("webSearch").is_some_and(Value::is_object) {
        file.insert("webSearch".into(), Value::Object(Map::new()));
    }
    let Some(Value::Object(section)) = file.get_mut("webSearch") else {
        return Err(format!("cannot edit webSearch in {}", path.display()));
    };
    match args.provider {
        SearchProviderKind::Searxng => {
            let url = url.ok_or(
                "SearXNG needs its instance's URL (such as http://localhost:8888); nothing was saved",
            )?;
            section.insert("provider".into(), "searxng".into());
            section.insert("url".into(), url.into());
        }
        SearchProviderKind::Brave => {
            section.insert("provider".into(), "brave".into());
            section.remove("url");
        }
        SearchProviderKind::None => {
            section.remove("provider");
            if let Some(url) = url {
                section.insert("url".into(), url.into());
            }
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(file))
        .map_err(|e| format!("cannot encode {}: {e}", path.display()))?;
    text.push('\n');
    gatehouse_core::atomic_write::write_atomic(&path, text.as_bytes(), true)
        .map_err(|e| format!("cannot save {}: {e}", path.display()))?;
    web_search_settings(home, store)
}

/// Refuses what is not an http(s) URL with a host.
fn check_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url)
        .map_err(|e| format!("the SearXNG URL `{url}` is not a valid URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(format!(
            "the SearXNG URL `{url}` must be an http or https address with a host"
        ));
    }
    Ok(())
}
