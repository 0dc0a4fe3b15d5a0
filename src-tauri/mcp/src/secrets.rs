//! Secret header and env values from the OS keychain.
//!
//! Gatehouse's own server list and a project's `.mcp.json` may name headers
//! in `secretHeaders` and env variables in `secretEnv`; their values are
//! read at connect time from the keychain account [`secret_account`] and
//! never written anywhere else (not the config file, SQLite, logs or
//! events). The app's MCP panel and `gatehouse-cli mcp secret set` write
//! them through a [`SecretLookup`].
//!
//! This crate does not link a keychain itself: the caller passes a
//! [`SecretLookup`] (the CLI and the app adapt `gatehouse-agent`'s
//! `OsKeyStore`, the same store as the API keys). That keeps one keychain
//! implementation and avoids a dependency cycle (the agent will depend on
//! this crate).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::config::{ConfigScope, ServerConfig};
use crate::names::fnv1a;

/// Reads secrets by account name.
pub trait SecretLookup: Send + Sync {
    /// The secret stored under `account`, `None` when there is none. Errors
    /// never contain secret bytes.
    fn get(&self, account: &str) -> Result<Option<String>, String>;

    /// Stores `secret` under `account` (OAuth tokens after sign-in and
    /// refresh). Lookups that cannot write say so.
    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        let _ = (account, secret);
        Err("this secret store is read-only (no keychain)".into())
    }

    /// Deletes `account` (sign-out); deleting what is absent is fine.
    fn delete(&self, account: &str) -> Result<(), String> {
        let _ = account;
        Err("this secret store is read-only (no keychain)".into())
    }
}

/// No keychain: every lookup finds nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSecrets;

impl SecretLookup for NoSecrets {
    fn get(&self, _account: &str) -> Result<Option<String>, String> {
        Ok(None)
    }
}

/// Secrets held in memory (tests, and callers that collected them from a
/// password field on their way to the keychain).
#[derive(Default, Clone)]
pub struct MemorySecrets(pub BTreeMap<String, String>);

impl fmt::Debug for MemorySecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MemorySecrets")
            .field(&self.0.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl SecretLookup for MemorySecrets {
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        Ok(self.0.get(account).cloned())
    }
}

/// The keychain account of header `header` of server `server`.
pub fn header_account(server: &str, header: &str) -> String {
    format!("mcp:{server}:header:{}", header.to_ascii_lowercase())
}

/// A writable in-memory store (tests, and the CLI's dry runs).
impl SecretLookup for std::sync::Mutex<MemorySecrets> {
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        Ok(self
            .lock()
            .map_err(|_| "the in-memory secret store is poisoned".to_owned())?
            .0
            .get(account)
            .cloned())
    }

    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        self.lock()
            .map_err(|_| "the in-memory secret store is poisoned".to_owned())?
            .0
            .insert(account.to_owned(), secret.to_owned());
        Ok(())
    }

    fn delete(&self, account: &str) -> Result<(), String> {
        self.lock()
            .map_err(|_| "the in-memory secret store is poisoned".to_owned())?
            .0
            .remove(account);
        Ok(())
    }
}

/// What a keychain-held value is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecretKind {
    /// An HTTP header (`secretHeaders`).
    Header,
    /// An environment variable of a stdio server (`secretEnv`).
    Env,
}

/// The keychain account of a secret of server `server` configured in `file`
/// with scope `scope`:
///
/// * Gatehouse's own list: `mcp:<server>:header:<lowercased header>` (as
///   [`header_account`]) or `mcp:<server>:env:<VAR>`;
/// * a project's `.mcp.json`: `mcp:project:<16-hex hash of the file's
///   path>:<server>:…`, so a project reads only the secrets the user stored
///   for that project — never those of the user's own servers or of
///   another project with a server of the same name.
///
/// Other scopes cannot hold keychain references (`None`).
pub fn secret_account(
    scope: ConfigScope,
    file: &Path,
    server: &str,
    kind: SecretKind,
    name: &str,
) -> Option<String> {
    let tail = match kind {
        SecretKind::Header => format!("{server}:header:{}", name.to_ascii_lowercase()),
        SecretKind::Env => format!("{server}:env:{name}"),
    };
    match scope {
        ConfigScope::Gatehouse => Some(format!("mcp:{tail}")),
        ConfigScope::Project => Some(format!(
            "mcp:project:{:016x}:{tail}",
            fnv1a(file.to_string_lossy().as_bytes())
        )),
        ConfigScope::User | ConfigScope::Local => None,
    }
}

/// [`secret_account`] of a configured server.
pub fn server_secret_account(
    config: &ServerConfig,
    kind: SecretKind,
    name: &str,
) -> Option<String> {
    secret_account(config.scope, &config.file, &config.name, kind, name)
}
