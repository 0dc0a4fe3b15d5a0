//! The session's sandbox from its settings files (issue 24): shapes,
//! trust, and the unavailable path when bwrap is not on `PATH`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use gatehouse_agent::EngineSetup;
use gatehouse_agent::sandbox::{
    load_sandbox_config, problem_text, read_sandbox_settings, start_bash_sandbox,
    unavailable_notice,
};
use gatehouse_protocol::sandbox::{SandboxFix, SandboxUnavailableReason};
use gatehouse_tools::bash::sandboxed::BashSandbox;

fn setup(project: &Path, home: &Path, trusted: bool) -> EngineSetup {
    EngineSetup {
        project: project.to_path_buf(),
        home: home.to_path_buf(),
        mode: None,
        trust_project: trusted,
        settings_files: Vec::new(),
    }
}

/// The session's sandbox with bwrap from `PATH`, and the problems found.
async fn start_with_bwrap(
    read: &gatehouse_agent::sandbox::SandboxRead,
    home: &Path,
    project: &Path,
) -> (BashSandbox, Vec<String>) {
    let mut problems = Vec::new();
    let path = std::env::var_os("PATH");
    let sandbox =
        start_bash_sandbox(read, home, None, project, path.as_deref(), &mut problems).await;
    (sandbox, problems.iter().map(problem_text).collect())
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_setting_of_the_wrong_shape_names_the_file_and_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    let user = home.join(".claude/settings.json");
    write(
        &user,
        "{\"sandbox\": {\"enabled\": true,\n  \"excludedCommands\": \"docker\"}}",
    );
    let (config, problems) = load_sandbox_config(&setup(&project, &home, true));
    assert_eq!(
        problems,
        vec![format!(
            "{}:2:23: `sandbox.excludedCommands` must be an array of strings",
            user.display()
        )]
    );
    // That file's sandbox key is left out, except that it turned the
    // sandbox on: a bad key never turns it off.
    assert!(config.enabled);
    assert!(config.excluded_commands.is_empty());
}

#[test]
fn a_domain_pattern_that_does_not_parse_names_it_and_keeps_the_network_off() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    let user = home.join(".claude/settings.json");
    write(
        &user,
        r#"{"sandbox": {"enabled": true, "network": {"allowedDomains": ["docs.rs", "https://evil.test/x"]}}}"#,
    );
    let (config, problems) = load_sandbox_config(&setup(&project, &home, true));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("`sandbox.network.allowedDomains` has `https://evil.test/x`"),
        "{problems:?}"
    );
    assert!(config.enabled);
    assert!(config.allowed_domains.is_empty());
}

#[test]
fn an_untrusted_project_turns_the_sandbox_on_but_cannot_auto_allow() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    write(
        &project.join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true, "excludedCommands": ["curl"]}}"#,
    );
    let (config, problems) = load_sandbox_config(&setup(&project, &home, false));
    assert!(problems.is_empty(), "{problems:?}");
    assert!(config.enabled && !config.auto_allow);
    assert!(config.excluded_commands.is_empty());
    let (config, _) = load_sandbox_config(&setup(&project, &home, true));
    assert!(config.enabled && config.auto_allow);
    assert_eq!(config.excluded_commands, vec!["curl".to_owned()]);
}

#[tokio::test]
async fn without_bwrap_on_path_the_sandbox_is_unavailable_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    write(
        &home.join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#,
    );
    std::fs::create_dir_all(&project).unwrap();
    let read = read_sandbox_settings(&setup(&project, &home, true));
    let empty = dir.path().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let mut problems = Vec::new();
    let sandbox = start_bash_sandbox(
        &read,
        &home,
        None,
        &project,
        Some(empty.as_os_str()),
        &mut problems,
    )
    .await;
    let BashSandbox::Unavailable(why) = &sandbox else {
        panic!("expected unavailable, got {sandbox:?}");
    };
    assert_eq!(why.typed().reason, SandboxUnavailableReason::BwrapMissing);
    assert_eq!(
        why.typed().fix,
        Some(SandboxFix::InstallPackage {
            package: "bubblewrap".into()
        })
    );
    let notice = unavailable_notice(why.typed());
    assert!(notice.starts_with("sandbox unavailable: bwrap"), "{notice}");
    assert!(notice.ends_with("; commands ask as usual"), "{notice}");
    // No launcher: Bash runs every command plainly, so the session never
    // tells the engine to auto-allow (see session host).
    assert!(!sandbox.is_on());

    // With the real bwrap it runs (CI installs bubblewrap).
    let sandbox = start_bash_sandbox(
        &read,
        &home,
        None,
        &project,
        std::env::var_os("PATH").as_deref(),
        &mut problems,
    )
    .await;
    assert!(
        sandbox.is_on(),
        "this test needs bubblewrap (apt-get install bubblewrap): {sandbox:?}"
    );
}

#[tokio::test]
async fn an_allow_write_root_that_does_not_exist_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    std::fs::create_dir_all(&project).unwrap();
    write(
        &home.join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true, "filesystem": {"allowWrite": ["~/nope"]}}}"#,
    );
    let read = read_sandbox_settings(&setup(&project, &home, true));
    let (_, problems) = start_with_bwrap(&read, &home, &project).await;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("`sandbox.filesystem.allowWrite`"),
        "{problems:?}"
    );
    assert!(problems[0].contains("nope"), "{problems:?}");
}

/// This test binary did not call `run_network_bridge_if_requested`, so it
/// cannot serve as the bridge: allowed domains are reported and the
/// sandbox runs with the network off rather than failing or running open.
#[tokio::test]
async fn allowed_domains_without_a_bridge_keep_the_network_off_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    std::fs::create_dir_all(&project).unwrap();
    write(
        &home.join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true, "network": {"allowedDomains": ["docs.rs"]}}}"#,
    );
    let read = read_sandbox_settings(&setup(&project, &home, true));
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(read.config.allowed_domains.len(), 1);
    let (sandbox, problems) = start_with_bwrap(&read, &home, &project).await;
    let BashSandbox::On { launcher, .. } = &sandbox else {
        panic!("this test needs bubblewrap (apt-get install bubblewrap): {sandbox:?}");
    };
    assert_eq!(
        launcher.sandbox().policy().network,
        gatehouse_sandbox::NetworkPolicy::Off
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`sandbox.network.allowedDomains`")
                && p.contains("network stays off")),
        "{problems:?}"
    );
}

/// Claude Code's network keys Gatehouse does not implement are named with
/// their file and line, and change nothing (the network stays off).
#[test]
fn unsupported_network_keys_are_warned_about_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    let user = home.join(".claude/settings.json");
    write(
        &user,
        r#"{
  "sandbox": {
    "enabled": true,
    "network": {
      "allowUnixSockets": ["/var/run/docker.sock"],
      "allowLocalBinding": true
    }
  }
}"#,
    );
    let read = read_sandbox_settings(&setup(&project, &home, true));
    let mut problems: Vec<String> = read.problems.iter().map(problem_text).collect();
    problems.sort();
    let file = user.display();
    assert_eq!(
        problems,
        [
            format!(
                "{file}:5:27: `sandbox.network.allowUnixSockets` is not supported by Gatehouse and is ignored (the sandbox stays as tight as without it)"
            ),
            format!(
                "{file}:6:28: `sandbox.network.allowLocalBinding` is not supported by Gatehouse and is ignored (the sandbox stays as tight as without it)"
            ),
        ]
    );
    assert!(read.config.enabled);
    assert!(read.config.allowed_domains.is_empty());
    assert_eq!(read.file(0), Some(user.as_path()));
    assert_eq!(read.config.origin.enabled, Some(0));
}
