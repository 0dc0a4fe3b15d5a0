//! The OS keychain through keyring v4's core and store crates.
//!
//! * Linux: the Secret Service (GNOME Keyring, KWallet, KeePassXC) over
//!   D-Bus; when no Secret Service answers, the kernel keyutils store
//!   (secrets then live until logout/reboot only).
//! * macOS: the login Keychain. Windows: the Credential Manager.
//!
//! Entries are service [`SERVICE`], account = provider name (`anthropic`,
//! `openai`). Error messages never include secret bytes.

use std::sync::Arc;

use keyring_core::{CredentialStore, Entry, Error};

use crate::keys::KeyStore;

/// The keychain service name of Gatehouse's entries.
pub const SERVICE: &str = "gatehouse";

/// A keychain store.
pub struct OsKeyStore {
    store: Arc<CredentialStore>,
    kind: &'static str,
    service: String,
}

impl std::fmt::Debug for OsKeyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OsKeyStore")
            .field("kind", &self.kind)
            .field("service", &self.service)
            .finish()
    }
}

/// An error message without secret material.
fn describe(e: &Error) -> String {
    match e {
        Error::BadEncoding(_) => "the stored secret is not valid UTF-8".into(),
        Error::BadDataFormat(_, inner) => format!("the stored secret is malformed: {inner}"),
        other => other.to_string(),
    }
}

impl OsKeyStore {
    /// The platform's keychain (on Linux: the Secret Service, else keyutils).
    pub fn open() -> Result<Self, String> {
        #[cfg(target_os = "linux")]
        {
            match Self::secret_service() {
                Ok(s) => Ok(s),
                Err(ss) => Self::keyutils().map_err(|ku| {
                    format!("no keychain: Secret Service: {ss}; kernel keyutils: {ku}")
                }),
            }
        }
        #[cfg(target_os = "macos")]
        {
            let store =
                apple_native_keyring_store::keychain::Store::new().map_err(|e| describe(&e))?;
            Ok(Self::with(store, "macos-keychain"))
        }
        #[cfg(target_os = "windows")]
        {
            let store = windows_native_keyring_store::Store::new().map_err(|e| describe(&e))?;
            Ok(Self::with(store, "windows-credential-manager"))
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
        {
            Err("no keychain support on this platform".into())
        }
    }

    fn with(store: Arc<CredentialStore>, kind: &'static str) -> Self {
        Self {
            store,
            kind,
            service: SERVICE.into(),
        }
    }

    /// Uses `service` instead of [`SERVICE`] (tests keep their entries apart).
    pub fn with_service(mut self, service: impl Into<String>) -> Self {
        self.service = service.into();
        self
    }

    /// The Secret Service store, checked to answer (Linux).
    #[cfg(target_os = "linux")]
    pub fn secret_service() -> Result<Self, String> {
        let store: Arc<CredentialStore> =
            zbus_secret_service_keyring_store::Store::new().map_err(|e| describe(&e))?;
        let s = Self::with(store, "secret-service");
        s.probe()?;
        Ok(s)
    }

    /// The kernel keyutils store, checked to answer (Linux).
    #[cfg(target_os = "linux")]
    pub fn keyutils() -> Result<Self, String> {
        let store: Arc<CredentialStore> =
            linux_keyutils_keyring_store::Store::new().map_err(|e| describe(&e))?;
        let s = Self::with(store, "keyutils");
        s.probe()?;
        Ok(s)
    }

    /// Which store this is (`secret-service`, `keyutils`, …).
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    fn entry(&self, account: &str) -> Result<Entry, String> {
        Entry::new_in_store(&self.store, &self.service, account).map_err(|e| describe(&e))
    }

    /// Reads a probe entry: the store must answer (absent is fine).
    fn probe(&self) -> Result<(), String> {
        match self.entry("gatehouse-probe")?.get_password() {
            Ok(_) | Err(Error::NoEntry) => Ok(()),
            Err(e) => Err(describe(&e)),
        }
    }
}

impl KeyStore for OsKeyStore {
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        match self.entry(account)?.get_password() {
            Ok(secret) => Ok(Some(secret)),
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(format!("{} keychain: {}", self.kind, describe(&e))),
        }
    }

    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        self.entry(account)?
            .set_password(secret)
            .map_err(|e| format!("{} keychain: {}", self.kind, describe(&e)))
    }

    fn delete(&self, account: &str) -> Result<(), String> {
        match self.entry(account)?.delete_credential() {
            Ok(()) | Err(Error::NoEntry) => Ok(()),
            Err(e) => Err(format!("{} keychain: {}", self.kind, describe(&e))),
        }
    }
}

/// The one way Gatehouse opens the keychain: the OS store
/// ([`OsKeyStore::open`], with its Secret Service → keyutils fallback), or
/// the reason there is none. As a [`KeyStore`] an unavailable keychain
/// finds nothing, deletes nothing and refuses to store, saying why, so
/// lookups, statuses and the MCP panel work without one; callers that
/// cannot (storing a key, signing in) take [`Keychain::require`].
#[derive(Debug)]
pub enum Keychain {
    /// The platform's keychain.
    Os(OsKeyStore),
    /// None answered; why.
    Unavailable(String),
}

impl Keychain {
    /// Opens the platform's keychain (never fails: see [`Keychain::Unavailable`]).
    pub fn open() -> Self {
        match OsKeyStore::open() {
            Ok(store) => Self::Os(store),
            Err(reason) => {
                tracing::warn!(%reason, "the OS keychain is not available");
                Self::Unavailable(reason)
            }
        }
    }

    /// The OS store, or why there is none.
    pub fn require(self) -> Result<OsKeyStore, String> {
        match self {
            Self::Os(store) => Ok(store),
            Self::Unavailable(reason) => Err(reason),
        }
    }

    /// Why there is no keychain, when there is none.
    pub fn unavailable(&self) -> Option<&str> {
        match self {
            Self::Os(_) => None,
            Self::Unavailable(reason) => Some(reason),
        }
    }

    /// Which store this is (`secret-service`, `keyutils`, …; `none`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Os(store) => store.kind(),
            Self::Unavailable(_) => "none",
        }
    }
}

impl KeyStore for Keychain {
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        match self {
            Self::Os(store) => store.get(account),
            Self::Unavailable(_) => Ok(None),
        }
    }

    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        match self {
            Self::Os(store) => store.set(account, secret),
            Self::Unavailable(reason) => Err(format!(
                "no OS keychain to keep the secret in ({reason}); nothing was stored"
            )),
        }
    }

    fn delete(&self, account: &str) -> Result<(), String> {
        match self {
            Self::Os(store) => store.delete(account),
            Self::Unavailable(_) => Ok(()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn an_unavailable_keychain_finds_nothing_and_refuses_to_store_saying_why() {
        let none = Keychain::Unavailable("no D-Bus session".into());
        assert_eq!(none.get("anthropic").unwrap(), None);
        assert!(none.delete("anthropic").is_ok());
        let e = none.set("anthropic", "sk-x").unwrap_err();
        assert!(
            e.contains("no D-Bus session") && e.contains("nothing was stored"),
            "{e}"
        );
        assert!(!e.contains("sk-x"), "the secret is never in an error");
        assert_eq!(none.kind(), "none");
        assert_eq!(none.require().unwrap_err(), "no D-Bus session");
    }
}
