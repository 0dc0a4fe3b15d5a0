//! Claude Code's `env` key in settings files (issue 21: the ToolSearch mode
//! is set there as `ENABLE_TOOL_SEARCH`): parsed with positions, merged by
//! precedence, and ignored in an untrusted project.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use gatehouse_permissions::settings::parse_settings;
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_protocol::permission::RuleSource;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn env_values_are_read_with_positions_and_bad_ones_are_named() {
    let text = "{\n  \"env\": {\n    \"A\": \"1\",\n    \"B\": 2,\n    \"C\": true,\n    \"D\": [\"x\"]\n  }\n}";
    let parsed = parse_settings(Path::new("s.json"), text).unwrap();
    let vars: Vec<(&str, &str, usize)> = parsed
        .env
        .iter()
        .map(|e| (e.name.as_str(), e.value.as_str(), e.position.line))
        .collect();
    assert_eq!(vars, [("A", "1", 3), ("B", "2", 4), ("C", "true", 5)]);
    assert_eq!(parsed.errors.len(), 1, "{:?}", parsed.errors);
    let e = &parsed.errors[0];
    assert_eq!((e.line, e.column), (6, 10), "{e}");
    assert!(e.cause.contains("`env.D` must be a string"), "{e}");
    assert!(!e.loses_restrictions, "an env value cannot hide a rule");

    // A file without `permissions` still has its env read.
    let parsed = parse_settings(Path::new("s.json"), r#"{"env": "x"}"#).unwrap();
    assert!(parsed.env.is_empty());
    assert!(parsed.errors[0].cause.contains("`env` must be an object"));
}

#[test]
fn the_highest_precedence_trusted_file_sets_a_variable() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write(
        &home.path().join(".claude/settings.json"),
        r#"{"env": {"ENABLE_TOOL_SEARCH": "auto:5", "ONLY_USER": "u"}}"#,
    );
    write(
        &project.path().join(".claude/settings.local.json"),
        r#"{"env": {"ENABLE_TOOL_SEARCH": "false"}}"#,
    );
    write(
        &project.path().join(".claude/settings.json"),
        r#"{"env": {"ENABLE_TOOL_SEARCH": "true", "FROM_PROJECT": "p"}}"#,
    );

    // Untrusted: the project's files set nothing.
    let mut layout = SettingsLayout::new(project.path(), home.path());
    let settings = load(&layout);
    let v = settings.env_var("ENABLE_TOOL_SEARCH").unwrap();
    assert_eq!((v.value.as_str(), v.source), ("auto:5", RuleSource::User));
    assert!(settings.env_var("FROM_PROJECT").is_none());

    // Trusted: local beats project beats user; other variables still come
    // from wherever they are set.
    layout.project_trusted = true;
    let settings = load(&layout);
    let v = settings.env_var("ENABLE_TOOL_SEARCH").unwrap();
    assert_eq!((v.value.as_str(), v.source), ("false", RuleSource::Local));
    assert!(
        v.location().ends_with("settings.local.json:1:32"),
        "{}",
        v.location()
    );
    assert_eq!(settings.env_var("FROM_PROJECT").unwrap().value, "p");
    assert_eq!(settings.env_var("ONLY_USER").unwrap().value, "u");
}
