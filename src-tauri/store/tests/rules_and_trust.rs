//! Session rules and project trust against real SQLite files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_store::{NewSession, Store};

/// Creates sessions `ids` in project `/p`.
fn create_sessions(store: &Store, ids: &[&str]) {
    for id in ids {
        store
            .create_session(&NewSession {
                id: (*id).into(),
                project_path: "/p".into(),
                provider: "replay".into(),
                model: "m".into(),
                mode: "default".into(),
            })
            .unwrap();
    }
}

#[test]
fn session_rules_survive_reopening_in_grant_order_and_stay_per_session() {
    let data = tempfile::tempdir().unwrap();
    {
        let store = Store::open(data.path()).unwrap();
        create_sessions(&store, &["s1", "s2"]);
        store
            .add_session_rule("s1", "allow", "Bash(npm test:*)")
            .unwrap();
        store
            .add_session_rule("s1", "allow", "Edit(./a.rs)")
            .unwrap();
        store.add_session_rule("s2", "deny", "Bash(rm:*)").unwrap();
        let err = store.add_session_rule("s1", "maybe", "Bash").unwrap_err();
        assert!(err.to_string().contains("unknown kind \"maybe\""), "{err}");
        assert!(
            store
                .add_session_rule("no-such-session", "allow", "Bash")
                .is_err(),
            "a rule for an unknown session is refused (foreign key)"
        );
    }
    let store = Store::open(data.path()).unwrap();
    let rules: Vec<(String, String)> = store
        .session_rules("s1")
        .unwrap()
        .into_iter()
        .map(|r| (r.kind, r.rule))
        .collect();
    assert_eq!(
        rules,
        [
            ("allow".to_owned(), "Bash(npm test:*)".to_owned()),
            ("allow".to_owned(), "Edit(./a.rs)".to_owned())
        ]
    );
    assert_eq!(store.session_rules("s2").unwrap().len(), 1);
    assert!(store.session_rules("s3").unwrap().is_empty());
}

#[test]
fn project_trust_is_remembered_and_can_be_withdrawn() {
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open(data.path()).unwrap();
        let project = store.add_project(folder.path()).unwrap();
        assert_eq!(project.trusted_at_ms, None, "new projects are not trusted");
        assert!(!project.has_project_settings);
        let trusted = store.set_project_trust(project.id, true).unwrap();
        assert!(trusted.trusted_at_ms.is_some());
        project.id
    };
    std::fs::create_dir(folder.path().join(".claude")).unwrap();
    std::fs::write(folder.path().join(".claude/settings.json"), "{}").unwrap();
    let store = Store::open(data.path()).unwrap();
    let project = store.project(id).unwrap().unwrap();
    assert!(project.trusted_at_ms.is_some(), "trust survives reopening");
    assert!(project.has_project_settings);
    assert_eq!(
        store.project_by_path(&project.path).unwrap().map(|p| p.id),
        Some(id)
    );
    let withdrawn = store.set_project_trust(id, false).unwrap();
    assert_eq!(withdrawn.trusted_at_ms, None);
    let err = store.set_project_trust(9999, true).unwrap_err();
    assert!(err.to_string().contains("no project with id 9999"), "{err}");
}

#[test]
fn the_rule_editor_replaces_a_sessions_rules_atomically_and_lists_sessions_with_rules() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    create_sessions(&store, &["s1", "s2"]);
    store.add_session_rule("s1", "allow", "Bash(ls)").unwrap();
    assert_eq!(
        store.sessions_with_rules("/p").unwrap(),
        vec![("s1".to_string(), None)]
    );
    store
        .replace_session_rules(
            "s1",
            &[
                ("deny".into(), "Bash(rm:*)".into()),
                ("allow".into(), "Read".into()),
            ],
        )
        .unwrap();
    let rules: Vec<(String, String)> = store
        .session_rules("s1")
        .unwrap()
        .into_iter()
        .map(|r| (r.kind, r.rule))
        .collect();
    assert_eq!(
        rules,
        vec![
            ("deny".to_string(), "Bash(rm:*)".to_string()),
            ("allow".to_string(), "Read".to_string())
        ]
    );
    // A bad kind changes nothing.
    let err = store
        .replace_session_rules("s1", &[("maybe".into(), "Bash".into())])
        .unwrap_err();
    assert!(err.to_string().contains("maybe"), "{err}");
    assert_eq!(store.session_rules("s1").unwrap().len(), 2);
    // Emptying leaves the session without rules.
    store.replace_session_rules("s1", &[]).unwrap();
    assert!(store.sessions_with_rules("/p").unwrap().is_empty());
    assert_eq!(
        store.stored_mcp_tool_names(None).unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(
        store
            .count_stored_calls(&gatehouse_store::CallFilter::default())
            .unwrap(),
        0
    );
}
