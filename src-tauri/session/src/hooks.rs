//! A session's hooks from its settings files (issue 18): loaded with the
//! same layout and trust as its rules, reported as warnings when malformed
//! or not run, reloaded with the settings, and the transcript they read.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use gatehouse_agent::keys::KeyStore as _;
use gatehouse_core::events::{Emitter, EventSink};
use gatehouse_hooks::config::{Handler, LoadedHooks, load_hooks};
use gatehouse_hooks::http::{SecretSource, header_account};
use gatehouse_hooks::transcript::TranscriptSink;
use gatehouse_hooks::{HookContext, SessionHooks};
use gatehouse_permissions::PermissionEngine;
use gatehouse_permissions::sources::SettingsLayout;
use gatehouse_protocol::event::{EventBody, HookNotRun, SettingsProblem, SettingsReloadTrigger};

/// Reads the hooks of `layout` on a blocking thread (a few small files).
pub(crate) async fn load(layout: &SettingsLayout) -> LoadedHooks {
    let layout = layout.clone();
    tokio::task::spawn_blocking(move || load_hooks(&layout))
        .await
        .unwrap_or_default()
}

/// The warnings a session shows about its hooks: malformed entries and
/// unknown events (file, line, column), and hooks read but not run.
pub(crate) fn warnings(loaded: &LoadedHooks) -> Vec<String> {
    let mut out: Vec<String> = loaded
        .errors
        .iter()
        .map(|e| format!("hook not run: {e}"))
        .collect();
    out.extend(loaded.warnings.iter().map(|e| format!("hooks: {e}")));
    out.extend(loaded.ignored.iter().map(|i| {
        format!(
            "{} hook {} in {}:{}:{} is not run: {}",
            i.hook.event.name(),
            i.hook.label(),
            i.hook.file.display(),
            i.hook.position.line,
            i.hook.position.column,
            i.why
        )
    }));
    out
}

/// The keychain values the HTTP hooks' `secretHeaders` name, read once at
/// session start on one blocking thread (the kernel keyutils store answers
/// only the thread that opened it). Missing values are left out: the hook
/// then reports which header is missing when it runs.
async fn read_secrets(loaded: &LoadedHooks, warnings: &mut Vec<String>) -> Option<SecretSource> {
    let accounts: Vec<String> = loaded
        .active
        .iter()
        .filter_map(|h| match &h.handler {
            Handler::Http {
                url,
                secret_headers,
                ..
            } => Some(
                secret_headers
                    .iter()
                    .map(|name| header_account(url, name))
                    .collect::<Vec<_>>(),
            ),
            Handler::Command { .. } => None,
        })
        .flatten()
        .collect();
    if accounts.is_empty() {
        return None;
    }
    let read = tokio::task::spawn_blocking(move || {
        let keychain = gatehouse_agent::keychain::Keychain::open().require()?;
        let mut values = HashMap::new();
        let mut problems = Vec::new();
        for account in accounts {
            match keychain.get(&account) {
                Ok(Some(v)) => {
                    values.insert(account, v);
                }
                Ok(None) => {}
                Err(e) => problems.push(format!("keychain account `{account}`: {e}")),
            }
        }
        Ok::<_, String>((values, problems))
    })
    .await
    .map_err(|e| e.to_string())
    .and_then(|r| r);
    match read {
        Ok((values, problems)) => {
            warnings.extend(
                problems
                    .into_iter()
                    .map(|p| format!("hook secret headers: {p}")),
            );
            let values = Arc::new(values);
            Some(Arc::new(move |account: &str| {
                Ok(values.get(account).cloned())
            }))
        }
        Err(e) => {
            warnings.push(format!("no keychain for hook secret headers: {e}"));
            None
        }
    }
}

/// What a session's hooks need at start.
pub(crate) struct Setup {
    /// The sink to emit into (writes the transcript when hooks exist).
    pub(crate) sink: Arc<dyn EventSink>,
    /// The hooks' loaded state.
    pub(crate) loaded: LoadedHooks,
    /// The transcript writer, when hooks exist.
    pub(crate) transcript: Option<Arc<TranscriptSink>>,
    /// Keychain values of secret headers.
    pub(crate) secrets: Option<SecretSource>,
}

/// Loads the hooks and, when any will run, wraps `sink` so the session's
/// Claude Code-format transcript is kept at `session_dir/transcript.jsonl`.
pub(crate) async fn prepare(
    layout: &SettingsLayout,
    sink: Arc<dyn EventSink>,
    session_dir: &Path,
    project: &Path,
    warnings: &mut Vec<String>,
) -> Setup {
    let loaded = load(layout).await;
    warnings.extend(self::warnings(&loaded));
    if loaded.is_empty() {
        return Setup {
            sink,
            loaded,
            transcript: None,
            secrets: None,
        };
    }
    let secrets = read_secrets(&loaded, warnings).await;
    let path = session_dir.join("transcript.jsonl");
    match TranscriptSink::start(Arc::clone(&sink), &path, project) {
        Ok(t) => Setup {
            sink: t.clone(),
            loaded,
            transcript: Some(t),
            secrets,
        },
        Err(e) => {
            warnings.push(format!(
                "hooks will get an empty transcript_path: the transcript could not be written ({e})"
            ));
            Setup {
                sink,
                loaded,
                transcript: None,
                secrets,
            }
        }
    }
}

/// The session's hook set.
pub(crate) fn build(
    setup: Setup,
    session_id: &str,
    project: &Path,
    home: &Path,
    emitter: Emitter,
    engine: &Arc<PermissionEngine>,
) -> Arc<SessionHooks> {
    let mode_engine = Arc::clone(engine);
    SessionHooks::new(
        HookContext {
            session_id: session_id.to_owned(),
            project: project.to_path_buf(),
            home: home.to_path_buf(),
            transcript: setup.transcript,
            emitter,
            secrets: setup.secrets,
            mode: Arc::new(move || mode_engine.mode()),
        },
        setup.loaded,
    )
}

fn problem(e: &gatehouse_permissions::settings::SettingsError) -> SettingsProblem {
    SettingsProblem {
        file: e.file.display().to_string(),
        line: u32::try_from(e.line).unwrap_or(u32::MAX),
        column: u32::try_from(e.column).unwrap_or(u32::MAX),
        message: e.cause.clone(),
        loses_restrictions: e.loses_restrictions,
    }
}

/// The `hooks_loaded` event of `loaded`; `None` when the files have no
/// hooks at all (nothing to say).
pub(crate) fn loaded_event(
    loaded: &LoadedHooks,
    trigger: Option<SettingsReloadTrigger>,
) -> Option<EventBody> {
    if loaded.active.is_empty()
        && loaded.ignored.is_empty()
        && loaded.errors.is_empty()
        && loaded.warnings.is_empty()
        && trigger.is_none()
    {
        return None;
    }
    Some(EventBody::HooksLoaded {
        active: u32::try_from(loaded.active.len()).unwrap_or(u32::MAX),
        not_run: loaded
            .ignored
            .iter()
            .map(|i| HookNotRun {
                event: i.hook.event.name(),
                command: i.hook.handler.display(),
                file: i.hook.file.display().to_string(),
                line: u32::try_from(i.hook.position.line).unwrap_or(u32::MAX),
                column: u32::try_from(i.hook.position.column).unwrap_or(u32::MAX),
                why: i.why.clone(),
                reason: Some(i.reason),
            })
            .collect(),
        problems: loaded
            .errors
            .iter()
            .chain(&loaded.warnings)
            .map(problem)
            .collect(),
        trigger,
    })
}

/// What identifies a loaded set, to tell whether a reload changed it.
pub(crate) fn fingerprint(loaded: &LoadedHooks) -> String {
    let spec = |h: &gatehouse_hooks::HookSpec| {
        format!(
            "{}|{:?}|{:?}|{:?}|{:?}|{}|{}:{}|{}",
            h.event.name(),
            h.matcher,
            h.if_rule,
            h.handler,
            h.timeout,
            h.file.display(),
            h.position.line,
            h.position.column,
            h.enabled
        )
    };
    let mut out = String::new();
    for h in &loaded.active {
        out.push_str(&format!("A {}\n", spec(h)));
    }
    for i in &loaded.ignored {
        out.push_str(&format!("I {} {}\n", spec(&i.hook), i.why));
    }
    for e in loaded.errors.iter().chain(&loaded.warnings) {
        out.push_str(&format!("E {e}\n"));
    }
    out
}
