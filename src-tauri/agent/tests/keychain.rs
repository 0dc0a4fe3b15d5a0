//! The keychain against the real stores of this machine. A store that is
//! not reachable (no D-Bus session with a Secret Service, keyutils refused
//! by the sandbox) skips its test, counted (`gatehouse-test-support`);
//! under `cargo xtask test`, which starts a Secret Service, a missing one
//! fails.
//!
//! To run the Secret Service test (what `cargo xtask test` should do):
//!
//! ```sh
//! apt-get install -y gnome-keyring dbus-x11   # once
//! dbus-run-session -- sh -c 'echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null; \
//!   cargo test -p gatehouse-agent --test keychain'
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_agent::keychain::OsKeyStore;
use gatehouse_agent::keys::{KeySource, KeyStore, lookup_key};

fn round_trip(store: &OsKeyStore) {
    let account = format!("test-{}", std::process::id());
    store.delete(&account).unwrap();
    assert_eq!(store.get(&account).unwrap(), None);
    store.set(&account, "sk-keychain-secret").unwrap();
    assert_eq!(
        store.get(&account).unwrap().as_deref(),
        Some("sk-keychain-secret")
    );
    store.set(&account, "sk-rotated").unwrap();
    assert_eq!(store.get(&account).unwrap().as_deref(), Some("sk-rotated"));
    let (key, source) = lookup_key(&account, None, &|_| None, store)
        .unwrap()
        .unwrap();
    assert_eq!((key.expose(), source), ("sk-rotated", KeySource::Keychain));
    store.delete(&account).unwrap();
    assert_eq!(store.get(&account).unwrap(), None);
}

#[cfg(target_os = "linux")]
#[test]
fn secret_service_round_trip() {
    match OsKeyStore::secret_service() {
        Ok(store) => round_trip(&store.with_service("gatehouse-test")),
        Err(reason) => gatehouse_test_support::missing(format!(
            "no Secret Service reachable ({reason}); run under dbus-run-session with gnome-keyring"
        )),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn keyutils_round_trip() {
    match OsKeyStore::keyutils() {
        Ok(store) => round_trip(&store.with_service("gatehouse-test")),
        // A kernel facility a container may refuse: nothing to install.
        Err(reason) => gatehouse_test_support::not_applicable(format!(
            "kernel keyutils unavailable ({reason})"
        )),
    }
}
