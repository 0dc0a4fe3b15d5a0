//! `gatehouse-cli claude-code`: guarding Claude Code itself (issue 25).
//! Thin: the work is `gatehouse_session::claude_guard`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use gatehouse_session::claude_guard::hook::{HookEnv, MAX_HOOK_INPUT_BYTES, handle};
use gatehouse_session::claude_guard::{GuardScope, guard, status};

use crate::run::home_dir;

/// `gatehouse-cli claude-code …`.
#[derive(Debug, Subcommand)]
pub enum ClaudeCodeCommand {
    /// Install Gatehouse's hook entries in a Claude Code settings file, or
    /// remove exactly them again with --off.
    ///
    /// The entries are command hooks on PreToolUse, PermissionRequest,
    /// PostToolUse, PostToolUseFailure and SessionEnd running `<this
    /// gatehouse-cli> claude-code hook <event>`,
    /// matcher `*`. --project DIR (the default, with the current folder)
    /// writes DIR/.claude/settings.local.json (this user only; Claude Code
    /// keeps it out of git); --user writes ~/.claude/settings.json. Every
    /// other key, hook and the file's layout are kept; a malformed file is
    /// refused untouched (exit 1, naming file:line:column). Prints one JSON
    /// object: {"file", "scope": "user"|"project", "installed": bool,
    /// "change": "changed"|"unchanged", "note"?}.
    Guard(GuardArgs),
    /// Where Gatehouse's entries are installed and the last call they made.
    ///
    /// Prints one JSON object: {"installed": [{"file", "events",
    /// "commands"}], "problems": ["file:line:col: cause"], "last_call":
    /// null | {"event", "at_ms", "claude_code_version", "session_id"}}.
    /// Looks at ~/.claude/settings.json, the project's
    /// .claude/settings.local.json and every file `guard` wrote to.
    Status(StatusArgs),
    /// What Claude Code's hook entries run: reads Claude Code's hook JSON on
    /// stdin and answers on stdout; always exits 0.
    ///
    /// PreToolUse: Gatehouse's permission engine decides the call with the
    /// project's settings files (the ones Claude Code reads), shell analysis
    /// and protected paths, and prints {"hookSpecificOutput":
    /// {"hookEventName": "PreToolUse", "permissionDecision":
    /// "allow"|"ask"|"deny", "permissionDecisionReason"}}; when it would
    /// ask and the Gatehouse window is running, the window asks the user
    /// first and the answer is printed as "allow" or "deny" (no window or
    /// no answer in time: "ask"). A command Claude Code's own sandbox
    /// confines and auto-allows gets no decision ({"hookSpecificOutput":
    /// {"hookEventName": "PreToolUse"}}), unless an untrusted project's
    /// settings change that sandbox. PostToolUse and
    /// PostToolUseFailure: record the result (an ask left to Claude Code's
    /// terminal is then recorded as allowed there), print nothing.
    /// SessionEnd: asks still open are recorded as denied in the terminal
    /// and the recorded session ends; prints nothing. PermissionRequest: asks the
    /// running Gatehouse window over its local socket and prints
    /// {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
    /// "decision": {"behavior": "allow"|"deny", "message"?}}}; with no
    /// window, or no answer within GATEHOUSE_CLAUDE_CODE_ASK_SECS (default
    /// 300), prints nothing and Claude Code asks in its terminal. Every call is stored as
    /// an event of the Gatehouse session with Claude Code's session id
    /// (origin claude_code). Stdin that is not the expected JSON, or over
    /// 8 MiB, gives no decision; the problem goes to the log file.
    Hook(HookArgs),
}

/// Arguments of `claude-code guard`.
#[derive(Debug, Args)]
pub struct GuardArgs {
    /// The project whose .claude/settings.local.json gets the entries
    /// (default: the current folder).
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    pub project: Option<PathBuf>,
    /// Write ~/.claude/settings.json instead (every project).
    #[arg(long)]
    pub user: bool,
    /// Remove Gatehouse's entries instead of installing them.
    #[arg(long)]
    pub off: bool,
    /// The home directory of ~/.claude/settings.json (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

/// Arguments of `claude-code status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The project whose .claude/settings.local.json is looked at
    /// (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The home directory of ~/.claude/settings.json (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

/// Arguments of `claude-code hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The hook event: PreToolUse, PermissionRequest, PostToolUse,
    /// PostToolUseFailure or SessionEnd.
    pub event: String,
}

fn current_dir() -> anyhow::Result<PathBuf> {
    std::env::current_dir().context("reading the current folder")
}

/// Runs `gatehouse-cli claude-code …`.
pub fn run(command: ClaudeCodeCommand) -> anyhow::Result<ExitCode> {
    if let ClaudeCodeCommand::Hook(args) = &command {
        return Ok(match gatehouse_store::data_dir() {
            Ok(data_dir) => hook(&args.event, data_dir),
            Err(e) => {
                // Exit 0 all the same: Claude Code goes on without Gatehouse.
                eprintln!("gatehouse-cli: {e}; no decision given");
                ExitCode::SUCCESS
            }
        });
    }
    let data_dir = gatehouse_store::data_dir()?;
    match command {
        ClaudeCodeCommand::Guard(args) => {
            let home = args.home.unwrap_or_else(home_dir);
            let (scope, project) = match (args.user, args.project) {
                (true, _) => (GuardScope::User, PathBuf::new()),
                (false, Some(dir)) => (GuardScope::Project, dir),
                (false, None) => (GuardScope::Project, current_dir()?),
            };
            let cli = std::env::current_exe().context("finding gatehouse-cli's own path")?;
            let outcome = guard(scope, &home, &project, &cli, &data_dir, args.off)?;
            crate::out::outln!("{}", serde_json::to_string(&outcome)?);
        }
        ClaudeCodeCommand::Status(args) => {
            let home = args.home.unwrap_or_else(home_dir);
            let project = match args.project {
                Some(dir) => dir,
                None => current_dir()?,
            };
            let status = status(&home, Some(&project), &data_dir);
            crate::out::outln!("{}", serde_json::to_string(&status)?);
        }
        ClaudeCodeCommand::Hook(_) => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// How long a PermissionRequest waits for the window:
/// `GATEHOUSE_CLAUDE_CODE_ASK_SECS` (1–590; the entry's own timeout is
/// 600 s), else 300 s.
fn ask_timeout() -> std::time::Duration {
    let secs = std::env::var("GATEHOUSE_CLAUDE_CODE_ASK_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(300, |s| s.clamp(1, 590));
    std::time::Duration::from_secs(secs)
}

/// Answers one hook call; exit 0 whatever happens, so Claude Code's session
/// never breaks on Gatehouse (it then decides as if there were no hook).
fn hook(event: &str, data_dir: PathBuf) -> ExitCode {
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_HOOK_INPUT_BYTES + 1)
        .read_to_end(&mut input);
    let env = HookEnv {
        data_dir,
        home: home_dir(),
        claude_project_dir: std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
        process_cwd: std::env::current_dir().unwrap_or_default(),
        ask_timeout: ask_timeout(),
        path: std::env::var_os("PATH"),
    };
    let input: &[u8] = match read {
        Ok(_) if input.len() as u64 <= MAX_HOOK_INPUT_BYTES => &input,
        // Over the bound, or unreadable: handled as input that is not the
        // hook JSON (no decision, logged).
        _ => b"",
    };
    let reply = handle(event, input, &env);
    if let Some(out) = reply.stdout {
        // A failed write (Claude Code gone) leaves nothing to tell anyone.
        let _ = crate::out::line(format_args!("{out}"));
    }
    ExitCode::SUCCESS
}
