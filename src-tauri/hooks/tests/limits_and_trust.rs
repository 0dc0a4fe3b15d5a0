//! Hooks that hang, flood, print garbage, die by a signal or fail; trust
//! and managed policy. Real processes and real settings files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Env, command, hooks_json};
use gatehouse_core::CallStatus;
use serde_json::json;

/// Whether process `pid` is still alive (not a zombie).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next().map(|r| r.trim().to_owned()))
        .is_some_and(|r| !r.starts_with('Z') && !r.starts_with('X'))
}

/// Waits (bounded by attempts, not by a time threshold) for `pid` to go.
fn wait_gone(pid: i32) -> bool {
    for _ in 0..400 {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    false
}

#[tokio::test]
async fn a_hook_that_hangs_is_stopped_with_its_group_and_the_call_goes_on() {
    let env = Env::new();
    // A child that ignores SIGTERM: only the SIGKILL after the grace ends it.
    let mut h = command(
        "cat >/dev/null; sh -c 'trap \"\" TERM; echo $$ > child.pid; while :; do sleep 1; done' & wait",
    );
    h["timeout"] = json!(1);
    env.project_settings(&hooks_json("PreToolUse", Some("Glob"), h));
    let mut s = env.session();
    let r = s.call("t1", "Glob", json!({"pattern": "*.nothing"})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let runs = s.hook_runs();
    let run = runs[0].run.clone().unwrap();
    assert!(run.timed_out);
    assert_eq!(run.exit_code, None);
    assert!(
        runs[0]
            .error
            .as_deref()
            .unwrap()
            .contains("did not answer within 1 s"),
        "{runs:#?}"
    );
    let pid: i32 = std::fs::read_to_string(env.dir().join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_gone(pid), "the hook's child {pid} survived");
}

#[tokio::test]
async fn a_flood_is_capped_and_noted_and_changes_nothing() {
    let env = Env::new();
    env.project_settings(&hooks_json(
        "PreToolUse",
        None,
        command(
            "cat >/dev/null; head -c 3000000 /dev/zero | tr '\\0' a; head -c 2000000 /dev/zero >&2",
        ),
    ));
    let mut s = env.session();
    let r = s.call("t1", "Glob", json!({"pattern": "*"})).await;
    assert_eq!(r.status, CallStatus::Succeeded);
    let runs = s.hook_runs();
    let run = runs[0].run.clone().unwrap();
    assert_eq!(run.exit_code, Some(0));
    assert!(run.output_truncated);
    assert_eq!(run.stdout.len(), 1024);
    let dropped = 3_000_000 - 1024 * 1024 + 2_000_000 - 1024 * 1024;
    assert_eq!(
        runs[0].error.as_deref(),
        Some(format!("hook cat >/dev/null; head -c 3000000 /dev/zero | tr '\\0' a; head -c 2000000 /dev/zero >&2 printed more than 1 MiB: {dropped} bytes were dropped").as_str())
    );
    assert_eq!(runs[0].decision, None);
}

#[tokio::test]
async fn garbage_wrong_shapes_signals_and_failures_are_non_blocking_errors() {
    let env = Env::new();
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Glob", "hooks": [
        command("cat >/dev/null; echo '{not json at all'"),
        command("cat >/dev/null; echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"perhaps\"}}'"),
        command("cat >/dev/null; kill -9 $$"),
        command("cat >/dev/null; echo broken >&2; exit 1"),
        command("./does-not-exist.sh"),
        command("cat >/dev/null; printf '\\377\\376 binary'"),
    ]}]}});
    env.project_settings(&settings.to_string());
    let mut s = env.session();
    let r = s.call("t1", "Glob", json!({"pattern": "*"})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let runs = s.hook_runs();
    assert_eq!(runs.len(), 6);
    let errors: Vec<String> = runs
        .iter()
        .map(|r| r.error.clone().unwrap_or_default())
        .collect();
    assert!(
        errors[0].contains("printed JSON that does not parse"),
        "{errors:#?}"
    );
    assert!(
        errors[1].contains("must be allow, deny or ask, not \"perhaps\""),
        "{errors:#?}"
    );
    assert!(errors[2].contains("ended by signal 9"), "{errors:#?}");
    assert_eq!(runs[2].run.as_ref().unwrap().signal, Some(9));
    assert!(
        errors[3].ends_with("failed with exit code 1: broken"),
        "{errors:#?}"
    );
    assert!(
        errors[4].contains("failed with exit code 127"),
        "{errors:#?}"
    );
    assert_eq!(errors[5], "", "plain text is shown, not an error");
    assert!(runs.iter().all(|r| r.decision.is_none()));
}

#[tokio::test]
async fn an_untrusted_projects_hooks_are_listed_not_run() {
    let mut env = Env::new();
    env.trusted = false;
    env.project_settings(&hooks_json(
        "PreToolUse",
        None,
        command("cat >/dev/null; touch pwned"),
    ));
    let mut s = env.session();
    s.call("t1", "Glob", json!({"pattern": "*"})).await;
    assert!(!env.dir().join("pwned").exists());
    assert!(s.hook_runs().is_empty());
    let loaded = s.hooks.loaded();
    assert!(loaded.active.is_empty());
    assert_eq!(loaded.ignored.len(), 1);
    assert!(
        loaded.ignored[0].why.contains("not trusted"),
        "{:?}",
        loaded.ignored
    );
}

#[tokio::test]
async fn allow_managed_hooks_only_runs_the_policys_hooks_alone() {
    let env = Env::new();
    env.managed_settings(
        &json!({"allowManagedHooksOnly": true, "hooks": {"PreToolUse": [{"hooks": [
            command("cat >/dev/null; touch managed-ran")]}]}})
        .to_string(),
    );
    env.user_settings(&hooks_json(
        "PreToolUse",
        None,
        command("cat >/dev/null; touch user-ran"),
    ));
    env.project_settings(&hooks_json(
        "PreToolUse",
        None,
        command("cat >/dev/null; touch project-ran"),
    ));
    let mut s = env.session();
    s.call("t1", "Glob", json!({"pattern": "*"})).await;
    assert!(env.dir().join("managed-ran").exists());
    assert!(!env.dir().join("user-ran").exists());
    assert!(!env.dir().join("project-ran").exists());
    let loaded = s.hooks.loaded();
    assert_eq!(loaded.ignored.len(), 2);
    assert!(
        loaded
            .ignored
            .iter()
            .all(|i| i.why.contains("allowManagedHooksOnly"))
    );
}

#[tokio::test]
async fn disable_all_hooks_in_policy_turns_every_hook_off() {
    let env = Env::new();
    env.managed_settings(
        &json!({"disableAllHooks": true, "hooks": {"PreToolUse": [{"hooks": [
            command("cat >/dev/null; touch managed-ran")]}]}})
        .to_string(),
    );
    env.project_settings(&hooks_json(
        "PreToolUse",
        None,
        command("cat >/dev/null; touch project-ran"),
    ));
    let mut s = env.session();
    s.call("t1", "Glob", json!({"pattern": "*"})).await;
    assert!(!env.dir().join("managed-ran").exists());
    assert!(!env.dir().join("project-ran").exists());
    assert!(s.rt.hooks().is_empty(), "no hook work at all");
}

#[tokio::test]
async fn no_api_keys_reach_a_hook() {
    // The test process has no provider key to leak; the hook's env is
    // checked against the filter on whatever this process does have.
    let env = Env::new();
    env.project_settings(&hooks_json(
        "PreToolUse",
        None,
        command("cat >/dev/null; env > env.txt"),
    ));
    let mut s = env.session();
    s.call("t1", "Glob", json!({"pattern": "*"})).await;
    let text = std::fs::read_to_string(env.dir().join("env.txt")).unwrap();
    for line in text.lines() {
        let name = line.split('=').next().unwrap_or("");
        assert!(
            !gatehouse_hooks::runner::is_secret_env(name),
            "{name} reached the hook"
        );
    }
    assert!(text.contains("CLAUDE_PROJECT_DIR="));
}
