//! `gatehouse-cli check`: what the permission engine would decide for one
//! tool call, with its reason and the trace of every layer consulted.

use std::path::PathBuf;
use std::process::ExitCode;

use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use gatehouse_agent::pool::{EngineSetup, load_engine, session_pool};
use gatehouse_core::ToolUseContext;
use gatehouse_core::events::{Emitter, NullSink};
use gatehouse_core::registry::InputCheck;
use gatehouse_permissions::sources::os_managed_policy_paths;
use gatehouse_permissions::{CheckRequest, check};
use gatehouse_protocol::event::RejectionStage;

use crate::run::{ModeArg, home_dir};

/// Arguments of `gatehouse-cli check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The project root: its `.claude/settings.json` and
    /// `.claude/settings.local.json` apply, and it is the working directory.
    #[arg(long, value_name = "DIR")]
    pub project: PathBuf,
    /// The home directory whose `.claude/settings.json` applies
    /// (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The permission mode (default: the settings' defaultMode, else default).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Extra settings files, as launch flags (repeatable).
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// Trust the project: its allow rules apply (deny and ask rules always do).
    #[arg(long)]
    pub trust_project: bool,
    /// Additional working directories (repeatable).
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// The tool name: any tool, MCP tools (`mcp__server__tool`) included.
    /// `Agent` is checked against the agent types a session would have
    /// (built-in, `~/.claude/agents`, and the project's when trusted), so
    /// `--tool Agent --input '{"subagent_type": "Explore", "description":
    /// "…", "prompt": "…"}'` shows what `Agent(Explore)` rules decide.
    #[arg(long, value_name = "NAME")]
    pub tool: String,
    /// The tool input as a JSON object, e.g. '{"command": "ls -la"}'.
    #[arg(long, value_name = "JSON")]
    pub input: String,
    /// Also run the PreToolUse hooks the settings configure for this call
    /// (real commands and HTTP requests, in the project directory; project
    /// hooks only with --trust-project) and add what they said: `hooks`
    /// (each run: decision, reason, exit code, output), `hooks_not_run`
    /// (listed, with why) and `with_hooks` (the decision combined with
    /// theirs, as a session would make it). Without it no hook runs.
    #[arg(long)]
    pub run_hooks: bool,
}

/// Prints the decision as one JSON object; exit 0 whatever the decision, 2
/// when the input is not valid JSON or is one the pipeline would refuse
/// before deciding (the tool's schema, then its `validate_input`).
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let input: serde_json::Value = match serde_json::from_str(&args.input) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("gatehouse-cli: error: --input is not valid JSON: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let home = args.home.clone().unwrap_or_else(home_dir);
    if let Some(refusal) = refusal(&args, &home, &input)? {
        eprintln!("gatehouse-cli: error: {refusal}");
        return Ok(ExitCode::from(2));
    }
    let (managed_file, managed_dropin_dir) = os_managed_policy_paths();
    let layout = gatehouse_permissions::sources::SettingsLayout {
        project_dir: args.project.clone(),
        home_dir: home.clone(),
        managed_file: Some(managed_file.clone()),
        managed_dropin_dir: Some(managed_dropin_dir.clone()),
        flag_files: args.settings.clone(),
        flag_rules: Vec::new(),
        project_trusted: args.trust_project,
    };
    let (run_hooks, tool, hook_input) = (args.run_hooks, args.tool.clone(), input.clone());
    let mut request = CheckRequest::new(args.project, home.clone(), args.tool, input);
    request.mode = args.mode.map(ModeArg::mode);
    request.settings_files = args.settings;
    request.trust_project = args.trust_project;
    request.additional_dirs = args.add_dir;
    request.managed_file = Some(managed_file);
    request.managed_dropin_dir = Some(managed_dropin_dir);
    let report = check(&request);
    if !run_hooks {
        crate::out::outln!("{}", serde_json::to_string(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let engine_decision = gatehouse_protocol::permission::PermissionDecision {
        decision: report.decision,
        reason: report.reason.clone(),
        trace: report.trace.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let extra = runtime.block_on(crate::check_hooks::run(
        &layout,
        &home,
        report.mode,
        &tool,
        &hook_input,
        engine_decision,
    ));
    let mut out = serde_json::to_value(&report)?;
    if let (Some(obj), serde_json::Value::Object(add)) = (out.as_object_mut(), extra) {
        obj.extend(add);
    }
    crate::out::outln!("{}", serde_json::to_string(&out)?);
    Ok(ExitCode::SUCCESS)
}

/// Why the pipeline would refuse `input` before hooks and the permission
/// decision (SPEC §3 stages 1–4), if it would: the same checks as a session
/// runs (`ToolPool::check_input`), on the session's built-in tools.
fn refusal(
    args: &CheckArgs,
    home: &std::path::Path,
    input: &serde_json::Value,
) -> anyhow::Result<Option<String>> {
    if !input.is_object() {
        return Ok(Some(format!(
            "--input: the input of {} must be a JSON object; the pipeline refuses anything else",
            args.tool
        )));
    }
    let (engine, _) = load_engine(&EngineSetup {
        project: args.project.clone(),
        home: home.to_path_buf(),
        mode: args.mode.map(ModeArg::mode),
        trust_project: args.trust_project,
        settings_files: args.settings.clone(),
    });
    // Nothing runs: the tools' output folders are only named.
    let scratch = std::env::temp_dir().join(format!("gatehouse-check-{}", std::process::id()));
    // The Agent tool with the agent types a session would have, so an
    // unknown `subagent_type` is refused here as it would be there; the
    // worktree tools for their schemas.
    let (agent_tool, _) =
        gatehouse_session::subagents::load_agent_tool(&args.project, args.trust_project, home, &[]);
    let engine = Arc::new(engine);
    let worktrees = gatehouse_session::subagents::worktree_manager(
        scratch.join("worktrees"),
        Arc::clone(&engine) as Arc<dyn gatehouse_core::permission::PermissionResolver>,
    );
    let extra: Vec<Arc<dyn gatehouse_core::Tool>> =
        std::iter::once(agent_tool as Arc<dyn gatehouse_core::Tool>)
            .chain(gatehouse_session::subagents::worktree_tools(&worktrees))
            .collect();
    let tools = session_pool(
        &scratch,
        Emitter::new("check", Arc::new(NullSink)),
        engine.as_ref(),
        extra,
        Vec::new(),
    );
    let ctx = ToolUseContext {
        session_id: "check".into(),
        cwd: args.project.clone(),
        additional_dirs: args.add_dir.clone(),
        permission_mode: engine.mode(),
        ..ToolUseContext::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let found = runtime.block_on(tools.pool.check_input(&args.tool, input, &ctx));
    Ok(match found {
        InputCheck::Valid => None,
        InputCheck::UnknownTool => {
            eprintln!(
                "gatehouse-cli: note: {} is not a built-in tool, so its input was not checked \
                 (an MCP tool's schema comes from its server)",
                args.tool
            );
            None
        }
        InputCheck::Invalid {
            stage,
            fields,
            message,
        } => {
            let stage = match stage {
                RejectionStage::Schema => "its schema",
                _ => "its validate_input",
            };
            let fields = if fields.is_empty() {
                String::new()
            } else {
                format!(" (field: {})", fields.join(", "))
            };
            Some(format!(
                "--input is not an input {} accepts: refused by {stage}{fields}; the call would \
                 fail before any permission decision.\n{}",
                args.tool,
                message.trim_end()
            ))
        }
    })
}
