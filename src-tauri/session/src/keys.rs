//! Where a provider's API key comes from: the environment first, then the
//! OS keychain. The key itself never leaves [`ApiKey`] except to the
//! provider's HTTP client: never into events, SQLite or logs.

use gatehouse_agent::keychain::Keychain;
use gatehouse_agent::keys::{self, ApiKey, KeySource, KeyStore, NoKeyStore};
use gatehouse_protocol::session::ApiKeyStatus;

/// The providers that take a key (`brave-search`: WebSearch's Brave
/// Search API).
pub const KEYED_PROVIDERS: &[&str] = &["anthropic", "openai", "brave-search"];

/// Refuses provider names other than [`KEYED_PROVIDERS`].
pub fn check_provider(provider: &str) -> Result<(), String> {
    if KEYED_PROVIDERS.contains(&provider) {
        Ok(())
    } else {
        Err(format!(
            "unknown provider {provider:?}: API keys are kept for {}",
            KEYED_PROVIDERS.join(", ")
        ))
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The environment first; the keychain is opened only when needed, and an
/// unreachable keychain is then just "no key" (with the reason on stderr).
pub fn find_key(provider: &str) -> Result<Option<ApiKey>, String> {
    if let Some((key, _)) = keys::lookup_key(provider, None, &env, &NoKeyStore)? {
        return Ok(Some(key));
    }
    Ok(keys::lookup_key(provider, None, &env, &keychain())?.map(|(k, _)| k))
}

/// The OS keychain for API keys ([`Keychain::open`]); when there is none,
/// says so once on stderr (keys then come from the environment only).
pub fn keychain() -> Keychain {
    let keychain = Keychain::open();
    if let Some(reason) = keychain.unavailable() {
        eprintln!("gatehouse: note: the keychain is not available: {reason}");
    }
    keychain
}

/// Where `provider`'s key would come from, looked up in `store` (never the key).
pub fn key_status(provider: &str, store: &dyn KeyStore) -> Result<ApiKeyStatus, String> {
    check_provider(provider)?;
    let source = keys::lookup_key(provider, None, &env, store)?.map(|(_, source)| {
        match source {
            KeySource::Settings => "settings",
            KeySource::Env => "env",
            KeySource::Keychain => "keychain",
        }
        .to_owned()
    });
    Ok(ApiKeyStatus {
        provider: provider.to_owned(),
        source,
    })
}

/// Stores `key` for `provider` in `store` and returns the new status.
pub fn set_key(provider: &str, key: &str, store: &dyn KeyStore) -> Result<ApiKeyStatus, String> {
    check_provider(provider)?;
    let key = key.trim();
    if key.is_empty() {
        return Err(format!(
            "the {provider} API key is empty; nothing was stored"
        ));
    }
    store.set(provider, key)?;
    key_status(provider, store)
}

/// Removes `provider`'s key from `store` and returns the new status.
pub fn delete_key(provider: &str, store: &dyn KeyStore) -> Result<ApiKeyStatus, String> {
    check_provider(provider)?;
    store.delete(provider)?;
    key_status(provider, store)
}
