//! `gatehouse-cli check --run-hooks`: runs the PreToolUse hooks the
//! settings configure for the call (real processes and HTTP requests, as a
//! session would) and reports what they said and the decision with them.

use std::path::Path;
use std::sync::Arc;

use futures::future::join_all;
use gatehouse_core::events::{Emitter, NullSink};
use gatehouse_core::hooks::{PreToolUseInput, combine_pre_outcomes};
use gatehouse_core::pipeline::resolve_hook_decision;
use gatehouse_hooks::{HookContext, SessionHooks, load_hooks};
use gatehouse_permissions::sources::SettingsLayout;
use gatehouse_permissions::{EngineContext, PermissionEngine, sources};
use gatehouse_protocol::permission::{PermissionDecision, PermissionMode};
use serde_json::{Value, json};

/// The `hooks` and `with_hooks` keys added to the report.
pub async fn run(
    layout: &SettingsLayout,
    home: &Path,
    mode: PermissionMode,
    tool: &str,
    input: &Value,
    engine_decision: PermissionDecision,
) -> Value {
    let loaded = load_hooks(layout);
    let not_run: Vec<String> = loaded
        .ignored
        .iter()
        .map(|i| format!("{} ({}): {}", i.hook.label(), i.hook.event.name(), i.why))
        .chain(loaded.errors.iter().map(|e| format!("not run: {e}")))
        .collect();
    let hooks = SessionHooks::new(
        HookContext {
            session_id: "check".into(),
            project: layout.project_dir.clone(),
            home: home.to_path_buf(),
            transcript: None,
            emitter: Emitter::new("check", Arc::new(NullSink)),
            secrets: None,
            mode: Arc::new(move || mode),
        },
        loaded,
    );
    let seams = hooks.runtime_hooks();
    let matching: Vec<_> = seams
        .pre_tool_use
        .iter()
        .filter(|h| h.matches(tool))
        .collect();
    let call = PreToolUseInput {
        session_id: "check",
        cwd: &layout.project_dir,
        permission_mode: mode,
        tool_name: tool,
        tool_input: input,
        tool_use_id: "check",
    };
    let applies = join_all(matching.iter().map(|h| h.applies(&call))).await;
    let mut keep = applies.into_iter();
    let matching: Vec<_> = matching
        .into_iter()
        .filter(|_| keep.next().unwrap_or(false))
        .collect();
    let results = join_all(matching.iter().map(|h| h.run(&call))).await;
    let runs: Vec<Value> = matching
        .iter()
        .zip(&results)
        .map(|(h, r)| match r {
            Ok(o) => json!({
                "hook": h.name(),
                "decision": o.effective_decision().map(|d| format!("{d:?}").to_lowercase()),
                "reason": o.block.clone().or_else(|| o.reason.clone()),
                "updated_input": o.updated_input,
                "additional_context": o.additional_context,
                "error": o.error,
                "run": o.run,
            }),
            Err(e) => json!({"hook": h.name(), "error": e.to_string()}),
        })
        .collect();
    let combined = combine_pre_outcomes(matching.iter().map(|h| h.name()).zip(&results));
    // A rewritten input is decided again, as in a session.
    let (engine_decision, input_used) = match &combined.updated_input {
        Some((rewritten, _)) => {
            let settings = sources::load(layout);
            let engine = PermissionEngine::new(
                EngineContext {
                    cwd: layout.project_dir.clone(),
                    home: home.to_path_buf(),
                    additional_dirs: Vec::new(),
                    mode,
                },
                settings,
            );
            (
                engine.decide_input(tool, rewritten),
                Some(rewritten.clone()),
            )
        }
        None => (engine_decision, None),
    };
    let view = combined
        .decision
        .as_ref()
        .map(|(d, name, msg)| (*d, name.as_str(), msg.as_deref()));
    let decided = resolve_hook_decision(engine_decision, view, false);
    json!({
        "hooks": runs,
        "hooks_not_run": not_run,
        "with_hooks": {
            "decision": decided.decision,
            "reason": decided.reason,
            "trace": decided.trace,
            "input": input_used,
        }
    })
}
