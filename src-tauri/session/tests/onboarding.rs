//! First run (issue 23): connection tests against real HTTP servers on
//! 127.0.0.1, `/v1/models` parsing, the app's settings file, the project to
//! reopen, and the offline demo refused outside its sample project.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../agent/tests/support/mod.rs"]
mod support;

use gatehouse_agent::keys::ApiKey;
use gatehouse_protocol::onboarding::{ConnectionFailure, LastProject, ProviderSetting};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_protocol::session::ProviderChoice;
use gatehouse_session::app_settings;
use gatehouse_session::connection::test_connection;
use gatehouse_session::provider::build_provider;
use gatehouse_store::Store;
use support::{Reply, serve};

fn key(text: &str) -> Option<ApiKey> {
    ApiKey::new(text)
}

fn anthropic(url: &str) -> ProviderSetting {
    ProviderSetting::Anthropic {
        base_url: Some(url.to_owned()),
    }
}

const MODELS: &str = r#"{"data":[{"id":"claude-sonnet-4-5","type":"model"},{"id":"claude-haiku-4-5","type":"model"}],"has_more":false}"#;

#[tokio::test]
async fn anthropic_ok_sends_the_key_and_lists_the_models() {
    let server = serve(vec![Reply::error(200, MODELS)]).await;
    let result = test_connection(&anthropic(&server.url), key("sk-test-123")).await;
    assert_eq!(result.failure, None, "{}", result.message);
    assert_eq!(result.models, ["claude-sonnet-4-5", "claude-haiku-4-5"]);
    let requests = server.requests.lock().unwrap().clone();
    assert!(
        requests[0].head.starts_with("GET /v1/models "),
        "{}",
        requests[0].head
    );
    assert_eq!(
        requests[0].header("x-api-key").as_deref(),
        Some("sk-test-123")
    );
    assert!(requests[0].header("anthropic-version").is_some());
    assert!(
        !result.message.contains("sk-test-123"),
        "the key is never in the message"
    );
}

#[tokio::test]
async fn anthropic_401_is_a_bad_key() {
    let server = serve(vec![Reply::error(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    )])
    .await;
    let result = test_connection(&anthropic(&server.url), key("sk-wrong")).await;
    assert_eq!(
        result.failure,
        Some(ConnectionFailure::BadKey),
        "{}",
        result.message
    );
    assert!(
        result.message.contains("invalid x-api-key"),
        "{}",
        result.message
    );
    assert!(!result.message.contains("sk-wrong"));
}

#[tokio::test]
async fn a_404_or_a_page_that_is_no_model_list_is_a_wrong_url() {
    let server = serve(vec![
        Reply::error(404, "<html>not here</html>"),
        Reply::error(200, "<html>a web page</html>"),
    ])
    .await;
    let result = test_connection(&anthropic(&server.url), key("k")).await;
    assert_eq!(
        result.failure,
        Some(ConnectionFailure::WrongUrl),
        "{}",
        result.message
    );
    assert!(result.message.contains("404"), "{}", result.message);
    let result = test_connection(&anthropic(&server.url), key("k")).await;
    assert_eq!(
        result.failure,
        Some(ConnectionFailure::WrongUrl),
        "{}",
        result.message
    );
}

#[tokio::test]
async fn nothing_listening_is_no_network() {
    // A port that was just free: bound, then closed.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let result = test_connection(&anthropic(&url), key("k")).await;
    assert_eq!(
        result.failure,
        Some(ConnectionFailure::NoNetwork),
        "{}",
        result.message
    );
    assert!(
        result.message.contains(&url),
        "names the address: {}",
        result.message
    );
}

#[tokio::test]
async fn anthropic_without_a_key_asks_for_one_and_sends_nothing() {
    let server = serve(vec![]).await;
    let result = test_connection(&anthropic(&server.url), None).await;
    assert_eq!(result.failure, Some(ConnectionFailure::NoKey));
    assert!(
        result.message.contains("ANTHROPIC_API_KEY"),
        "{}",
        result.message
    );
    assert!(server.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn openai_models_come_from_v1_models_with_an_optional_key() {
    let server = serve(vec![
        Reply::error(
            200,
            r#"{"object":"list","data":[{"id":"llama3.1:8b","object":"model"},{"id":"qwen2.5-coder","object":"model"},{"object":"model"}]}"#,
        ),
        Reply::error(401, r#"{"error":{"message":"missing bearer token"}}"#),
    ])
    .await;
    let setting = ProviderSetting::OpenAi {
        base_url: format!("{}/v1/", server.url),
    };
    let result = test_connection(&setting, None).await;
    assert_eq!(result.failure, None, "{}", result.message);
    assert_eq!(result.models, ["llama3.1:8b", "qwen2.5-coder"]);
    let first = server.requests.lock().unwrap()[0].clone();
    assert!(first.head.starts_with("GET /v1/models "), "{}", first.head);
    assert_eq!(first.header("authorization"), None, "no key, no header");

    let result = test_connection(&setting, key("sk-local")).await;
    assert_eq!(
        result.failure,
        Some(ConnectionFailure::BadKey),
        "{}",
        result.message
    );
    let second = server.requests.lock().unwrap()[1].clone();
    assert_eq!(
        second.header("authorization").as_deref(),
        Some("Bearer sk-local")
    );
}

#[tokio::test]
async fn a_url_that_is_not_http_is_refused_before_any_request() {
    let setting = ProviderSetting::OpenAi {
        base_url: "ftp://example.invalid/v1".into(),
    };
    let result = test_connection(&setting, None).await;
    assert_eq!(
        result.failure,
        Some(ConnectionFailure::InvalidUrl),
        "{}",
        result.message
    );
}

#[test]
fn model_ids_read_the_shared_list_shape_and_refuse_others() {
    use gatehouse_session::connection::model_ids;
    let ids =
        model_ids(&serde_json::json!({"data": [{"id": "a"}, {"id": ""}, {"id": 3}, {"id": "b"}]}));
    assert_eq!(ids.unwrap(), ["a", "b"]);
    assert_eq!(model_ids(&serde_json::json!({"models": []})), None);
    assert_eq!(model_ids(&serde_json::json!({"data": {}})), None);
}

#[test]
fn the_demo_is_refused_outside_its_sample_project_and_plays_inside_it() {
    let data = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let no_key = |_: &str| Ok(None);
    let demo = ProviderChoice::Replay { script: None };

    let err = build_provider(&demo, user.path(), data.path(), &no_key)
        .err()
        .expect("the demo is refused in the user's own folder");
    assert!(err.contains("sample project"), "{err}");
    assert!(err.contains(&user.path().display().to_string()), "{err}");

    let sample = app_settings::create_sample_project(data.path()).unwrap();
    let (provider, model) = build_provider(&demo, &sample, data.path(), &no_key).unwrap();
    assert_eq!((provider.name(), model.as_str()), ("replay", "replay"));
    // The same folder through a symlink is the same folder (compared canonically).
    let link = user.path().join("link");
    std::os::unix::fs::symlink(&sample, &link).unwrap();
    assert!(build_provider(&demo, &link, data.path(), &no_key).is_ok());
    // The sample project's files are the demo's starting point, with
    // project settings (so first run's trust step means something).
    assert!(sample.join("src/greeter.py").is_file());
    let store = Store::open(data.path()).unwrap();
    assert!(store.add_project(&sample).unwrap().has_project_settings);
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(sample.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["permissions"]["allow"][0], "Bash(python3 -c:*)");

    // A script the user names is theirs to play anywhere (tests, re-runs).
    let script = user.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"turns":[{"content":[{"type":"text","text":"hi"}]}]}"#,
    )
    .unwrap();
    let named = ProviderChoice::Replay {
        script: Some(script.display().to_string()),
    };
    assert!(build_provider(&named, user.path(), data.path(), &no_key).is_ok());
}

#[test]
fn settings_round_trip_and_a_first_run_has_defaults() {
    let data = tempfile::tempdir().unwrap();
    let first = app_settings::read(data.path()).unwrap();
    assert!(!first.onboarding_done);
    assert_eq!(first.provider, None);
    assert_eq!(
        first.default_models.anthropic,
        app_settings::DEFAULT_ANTHROPIC_MODEL
    );

    let mut chosen = first.clone();
    chosen.onboarding_done = true;
    chosen.provider = Some(ProviderSetting::OpenAi {
        base_url: "  http://127.0.0.1:11434/v1 ".into(),
    });
    chosen.default_models.openai = " llama3.1 ".into();
    chosen.default_mode = PermissionMode::AcceptEdits;
    let saved = app_settings::save(data.path(), &chosen).unwrap();
    assert_eq!(
        saved.provider,
        Some(ProviderSetting::OpenAi {
            base_url: "http://127.0.0.1:11434/v1".into()
        })
    );
    assert_eq!(saved.default_models.openai, "llama3.1");
    assert_eq!(app_settings::read(data.path()).unwrap(), saved);

    // A bad URL is refused and the file keeps what it had.
    let mut bad = saved.clone();
    bad.provider = Some(ProviderSetting::OpenAi {
        base_url: "not a url".into(),
    });
    let err = app_settings::save(data.path(), &bad).unwrap_err();
    assert!(err.contains("not a url"), "{err}");
    assert_eq!(app_settings::read(data.path()).unwrap(), saved);
}

#[test]
fn an_unreadable_settings_file_is_kept_aside_and_reported() {
    let data = tempfile::tempdir().unwrap();
    let path = data.path().join(app_settings::SETTINGS_FILE);
    std::fs::write(&path, "{\"onboarding_done\": \"yes\"").unwrap();
    let (settings, error) = app_settings::load(data.path());
    let error = error.expect("the problem is reported");
    assert!(error.contains("settings.json"), "{error}");
    assert!(!settings.onboarding_done);
    assert!(!path.exists(), "moved out of the way");
    let kept: Vec<_> = std::fs::read_dir(data.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("settings.json.damaged-"))
        .collect();
    assert_eq!(kept.len(), 1, "kept, renamed: {kept:?}");
    assert!(error.contains(&kept[0]), "{error}");
}

#[test]
fn the_last_project_reopens_only_after_first_run_and_a_vanished_one_is_missing() {
    let data = tempfile::tempdir().unwrap();
    let folders = tempfile::tempdir().unwrap();
    let folder = folders.path().join("proj");
    std::fs::create_dir(&folder).unwrap();
    let store = Store::open(data.path()).unwrap();
    let project = store.add_project(&folder).unwrap();
    app_settings::set_last_project(data.path(), Some(&project.path)).unwrap();

    let settings = app_settings::read(data.path()).unwrap();
    assert_eq!(
        app_settings::last_project(&settings, &store).unwrap(),
        LastProject::None,
        "first run is not over: onboarding comes first"
    );
    let mut done = settings.clone();
    done.onboarding_done = true;
    let done = app_settings::save(data.path(), &done).unwrap();
    match app_settings::last_project(&done, &store).unwrap() {
        LastProject::Reopened { project: p } => assert_eq!(p.id, project.id),
        other => panic!("expected the project reopened, got {other:?}"),
    }

    std::fs::remove_dir(&folder).unwrap();
    match app_settings::last_project(&done, &store).unwrap() {
        LastProject::Missing { project: p } => assert_eq!(p.path, project.path),
        other => panic!("expected the folder reported missing, got {other:?}"),
    }

    // Choices saved from a window holding settings read before the project
    // was opened do not forget it.
    let mut stale = done.clone();
    stale.last_project = None;
    stale.default_mode = PermissionMode::Plan;
    let saved = app_settings::save_choices(data.path(), &stale).unwrap();
    assert_eq!(saved.last_project.as_deref(), Some(project.path.as_str()));
    assert_eq!(saved.default_mode, PermissionMode::Plan);

    // Closed (the user went home): nothing to reopen.
    app_settings::set_last_project(data.path(), None).unwrap();
    let settings = app_settings::read(data.path()).unwrap();
    assert!(
        settings.onboarding_done,
        "forgetting the project keeps the rest"
    );
    assert_eq!(
        app_settings::last_project(&settings, &store).unwrap(),
        LastProject::None
    );
}
