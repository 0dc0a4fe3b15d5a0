//! API keys: where they come from, and a type that never prints them.
//!
//! Lookup order (first found wins): the settings value, the environment
//! (`ANTHROPIC_API_KEY` / `OPENAI_API_KEY`), the OS keychain (service
//! `gatehouse`, account = provider name). Keys are never written to SQLite,
//! settings, logs, events or transcripts: [`ApiKey`]'s `Debug` and
//! `Display` print `***`, and it is not `Serialize`.

use std::fmt;

/// A secret API key.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; `None` when it is empty or only whitespace.
    pub fn new(key: impl Into<String>) -> Option<Self> {
        let key = key.into().trim().to_owned();
        (!key.is_empty()).then_some(Self(key))
    }

    /// The key itself, for the one place that sends it (a request header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Where a key was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// The settings (passed in by the caller).
    Settings,
    /// An environment variable.
    Env,
    /// The OS keychain.
    Keychain,
}

/// The keychain seam (the OS keychain in the app and CLI, a map in tests).
pub trait KeyStore: Send + Sync {
    /// The stored secret for `account`, if any.
    fn get(&self, account: &str) -> Result<Option<String>, String>;
    /// Stores `secret` for `account`.
    fn set(&self, account: &str, secret: &str) -> Result<(), String>;
    /// Removes the secret for `account` (absent is fine).
    fn delete(&self, account: &str) -> Result<(), String>;
}

/// A keychain with nothing in it (no keychain available).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoKeyStore;

impl KeyStore for NoKeyStore {
    fn get(&self, _account: &str) -> Result<Option<String>, String> {
        Ok(None)
    }
    fn set(&self, _account: &str, _secret: &str) -> Result<(), String> {
        Err("no keychain is available on this system".into())
    }
    fn delete(&self, _account: &str) -> Result<(), String> {
        Ok(())
    }
}

/// The environment variable holding `provider`'s key.
pub fn env_var_for(provider: &str) -> &'static str {
    match provider {
        "openai" => "OPENAI_API_KEY",
        "brave-search" => "BRAVE_SEARCH_API_KEY",
        _ => "ANTHROPIC_API_KEY",
    }
}

/// Finds `provider`'s key: settings, then the environment (read through
/// `env`), then the keychain. A keychain error is reported only when no
/// other source had a key.
pub fn lookup_key(
    provider: &str,
    settings: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    keychain: &dyn KeyStore,
) -> Result<Option<(ApiKey, KeySource)>, String> {
    if let Some(key) = settings.and_then(ApiKey::new) {
        return Ok(Some((key, KeySource::Settings)));
    }
    if let Some(key) = env(env_var_for(provider)).and_then(ApiKey::new) {
        return Ok(Some((key, KeySource::Env)));
    }
    match keychain.get(provider) {
        Ok(found) => Ok(found
            .and_then(ApiKey::new)
            .map(|k| (k, KeySource::Keychain))),
        Err(e) => Err(format!(
            "reading the {provider} key from the keychain failed: {e}"
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::Mutex;

    #[derive(Default)]
    struct MapStore(Mutex<HashMap<String, String>>);
    impl KeyStore for MapStore {
        fn get(&self, a: &str) -> Result<Option<String>, String> {
            Ok(self.0.lock().unwrap().get(a).cloned())
        }
        fn set(&self, a: &str, s: &str) -> Result<(), String> {
            self.0.lock().unwrap().insert(a.into(), s.into());
            Ok(())
        }
        fn delete(&self, a: &str) -> Result<(), String> {
            self.0.lock().unwrap().remove(a);
            Ok(())
        }
    }

    #[test]
    fn settings_beat_env_beat_keychain_and_keys_never_print() {
        let store = MapStore::default();
        store.set("anthropic", "sk-chain").unwrap();
        let env_with = |v: &str| (v == "ANTHROPIC_API_KEY").then(|| "sk-env".to_owned());
        let env_without = |_: &str| None;
        let (k, s) = lookup_key("anthropic", Some("sk-set"), &env_with, &store)
            .unwrap()
            .unwrap();
        assert_eq!((k.expose(), s), ("sk-set", KeySource::Settings));
        let (k, s) = lookup_key("anthropic", Some("  "), &env_with, &store)
            .unwrap()
            .unwrap();
        assert_eq!((k.expose(), s), ("sk-env", KeySource::Env));
        let (k, s) = lookup_key("anthropic", None, &env_without, &store)
            .unwrap()
            .unwrap();
        assert_eq!((k.expose(), s), ("sk-chain", KeySource::Keychain));
        assert_eq!(format!("{k:?} {k}"), "ApiKey(***) ***");
        assert!(
            lookup_key("openai", None, &env_without, &NoKeyStore)
                .unwrap()
                .is_none()
        );
    }
}
