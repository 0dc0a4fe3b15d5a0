//! The log file: a real subscriber writing to a temporary data directory
//! (one test: a process has one global subscriber).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_agent::keys::ApiKey;
use gatehouse_session::logging;

#[test]
fn events_reach_the_log_file_in_the_data_dir_without_secrets() {
    let data = tempfile::tempdir().unwrap();
    let guard = logging::init(data.path(), "gatehouse-test").unwrap();
    assert_eq!(guard.dir, data.path().join("logs"));
    let secret = "sk-log-5d1e-do-not-leak";
    let key = ApiKey::new(secret).unwrap();
    // What a careless line would do: format the key both ways.
    tracing::warn!(key = %key, debug = ?key, "the keychain is not available");
    tracing::debug!("below the default level");
    let again = logging::init(data.path(), "gatehouse-test").unwrap_err();
    assert!(again.contains("already installed"), "{again}");
    drop(guard); // flushes the writer thread

    let mut text = String::new();
    for entry in std::fs::read_dir(data.path().join("logs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("gatehouse-test.") && name.ends_with(".log"),
            "{name}"
        );
        text.push_str(&std::fs::read_to_string(&path).unwrap());
    }
    assert!(text.contains("WARN"), "{text}");
    assert!(text.contains("the keychain is not available"), "{text}");
    assert!(!text.contains("below the default level"), "{text}");
    assert!(!text.contains(secret), "the key reached the log: {text}");
}
