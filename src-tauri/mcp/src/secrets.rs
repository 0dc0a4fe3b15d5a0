//! Secret header values from the OS keychain.
//!
//! Gatehouse's own server list may name headers in `secretHeaders`; their
//! values are read at connect time from the keychain account
//! [`header_account`]`(server, header)` and never written anywhere else.
//!
//! This crate does not link a keychain itself: the caller passes a
//! [`SecretLookup`] (the CLI and the app adapt `gatehouse-agent`'s
//! `OsKeyStore`, the same store as the API keys). That keeps one keychain
//! implementation and avoids a dependency cycle (the agent will depend on
//! this crate).

use std::collections::BTreeMap;
use std::fmt;

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
