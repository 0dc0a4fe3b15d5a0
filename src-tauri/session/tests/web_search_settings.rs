//! Settings → Web search against a real settings file and the real Secret
//! Service keychain (run under `dbus-run-session` with gnome-keyring, as
//! `cargo xtask test` does; without one the test is a counted skip, a
//! failure under `cargo xtask test`):
//!
//! ```sh
//! dbus-run-session -- sh -c 'echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null; \
//!   cargo test -p gatehouse-session --test web_search_settings'
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_agent::keychain::OsKeyStore;
use gatehouse_agent::keys::KeyStore;
use gatehouse_protocol::web::{SaveWebSearchArgs, SearchProviderKind, UnavailableReason};
use gatehouse_session::keys::set_key;
use gatehouse_session::web_search_settings::{save_web_search_settings, web_search_settings};
use serde_json::{Value, json};

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn save(provider: SearchProviderKind, url: Option<&str>) -> SaveWebSearchArgs {
    SaveWebSearchArgs {
        provider,
        searxng_url: url.map(str::to_owned),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn the_provider_is_saved_beside_other_keys_and_the_key_only_in_the_keychain() {
    let store = match OsKeyStore::secret_service() {
        Ok(store) => store.with_service(format!("gatehouse-test-{}", std::process::id())),
        Err(reason) => {
            return gatehouse_test_support::missing(format!(
                "no Secret Service reachable ({reason}); run under dbus-run-session with gnome-keyring"
            ));
        }
    };
    // The environment would win over the keychain.
    assert!(
        std::env::var_os("BRAVE_SEARCH_API_KEY").is_none(),
        "unset BRAVE_SEARCH_API_KEY to run this test"
    );
    store.delete("brave-search").unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".gatehouse/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        json!({"smallFastModel": "claude-haiku-test", "webSearch": {"provider": "brave", "count": 5}})
            .to_string(),
    )
    .unwrap();

    // Brave chosen, no key: unavailable, saying which key is missing.
    let view = web_search_settings(home.path(), &store).unwrap();
    assert_eq!(view.provider, SearchProviderKind::Brave);
    assert_eq!(view.brave_key.source, None);
    assert_eq!(view.settings_file, file.display().to_string());
    let why = view.unavailable.expect("unavailable without a key");
    assert_eq!(why.name, "WebSearch");
    assert_eq!(why.reason, UnavailableReason::NotConfigured);
    assert!(why.message.contains("brave-search"), "{}", why.message);

    // The key typed in Settings goes to the keychain: now available.
    set_key("brave-search", "bsk-secret-test-key", &store).unwrap();
    let view = web_search_settings(home.path(), &store).unwrap();
    assert_eq!(view.brave_key.source.as_deref(), Some("keychain"));
    assert_eq!(view.unavailable, None);
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("bsk-secret")
    );

    // SearXNG with its URL: saved, the other keys kept.
    let view = save_web_search_settings(
        home.path(),
        &save(
            SearchProviderKind::Searxng,
            Some(" http://127.0.0.1:8888/ "),
        ),
        &store,
    )
    .unwrap();
    assert_eq!(view.provider, SearchProviderKind::Searxng);
    assert_eq!(view.searxng_url.as_deref(), Some("http://127.0.0.1:8888/"));
    assert_eq!(view.unavailable, None);
    assert_eq!(
        read(&file),
        json!({"smallFastModel": "claude-haiku-test",
               "webSearch": {"provider": "searxng", "url": "http://127.0.0.1:8888/", "count": 5}})
    );

    // SearXNG without a URL, or with one that is not http(s): refused,
    // the file untouched.
    let before = std::fs::read_to_string(&file).unwrap();
    let e = save_web_search_settings(
        home.path(),
        &save(SearchProviderKind::Searxng, None),
        &store,
    )
    .unwrap_err();
    assert!(e.contains("SearXNG needs its instance's URL"), "{e}");
    let e = save_web_search_settings(
        home.path(),
        &save(SearchProviderKind::Searxng, Some("file:///etc/passwd")),
        &store,
    )
    .unwrap_err();
    assert!(e.contains("file:///etc/passwd"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);

    // None: unavailable as a session would say; the URL kept for later.
    let view = save_web_search_settings(home.path(), &save(SearchProviderKind::None, None), &store)
        .unwrap();
    assert_eq!(view.provider, SearchProviderKind::None);
    assert_eq!(view.searxng_url.as_deref(), Some("http://127.0.0.1:8888/"));
    let why = view.unavailable.expect("no provider");
    assert!(
        why.message.contains("no search provider"),
        "{}",
        why.message
    );
    assert_eq!(read(&file)["webSearch"].get("provider"), None);

    // Brave again: its API address is not the SearXNG URL.
    let view =
        save_web_search_settings(home.path(), &save(SearchProviderKind::Brave, None), &store)
            .unwrap();
    assert_eq!(view.unavailable, None);
    assert_eq!(
        read(&file)["webSearch"],
        json!({"provider": "brave", "count": 5})
    );

    // A settings file that is not JSON is reported, never overwritten.
    std::fs::write(&file, "{broken").unwrap();
    let e = save_web_search_settings(home.path(), &save(SearchProviderKind::Brave, None), &store)
        .unwrap_err();
    assert!(
        e.contains("settings.json") && e.contains("not valid JSON"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{broken");
    assert!(web_search_settings(home.path(), &store).is_err());

    store.delete("brave-search").unwrap();
}
