//! `gatehouse-cli`: Gatehouse without a window.
//!
//! Its subcommands, flags and JSON-lines output are a public contract that
//! users' scripts rely on: change them only additively, and document every
//! change here, in `--help` and in the README.
//!
//! Every subcommand that prints lines ends quietly (exit 0, nothing on
//! stderr) when its reader goes away (`| head -1`), as `rg` does.

mod check_cmd;
mod check_hooks;
mod claude_code_cmd;
mod keys_cmd;
mod mcp_cmd;
mod out;
mod rules_cmd;
mod run;
mod sessions_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use gatehouse_store::Store;

/// Run and inspect Gatehouse headlessly.
///
/// Data lives in the platform data directory (~/.local/share/gatehouse on
/// Linux) unless GATEHOUSE_DATA_DIR names another folder; the desktop app and
/// this CLI share it. Machine-readable output is JSON, one object per line;
/// when the reader of stdout goes away (`| head -1`) a command ends quietly
/// with exit status 0.
#[derive(Debug, Parser)]
#[command(name = "gatehouse-cli", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Projects known to Gatehouse.
    #[command(subcommand)]
    Projects(ProjectsCommand),
    /// Run a headless agent session in a project and print every event as one
    /// JSON line (the UI's protocol), ending with `session_completed`.
    ///
    /// Events are stored in the session (SQLite) before they are printed.
    /// Permission prompts are answered by --ask (default deny: nobody is
    /// there to ask). Exit status: 0 when the session completed, 1 when it
    /// did not (provider error, interrupt, turn limit), 2 when it could not
    /// start (bad script, project or key).
    Run(run::RunArgs),
    /// Stored sessions: list, show, search, import (Claude Code transcripts,
    /// Gatehouse JSONL), export (JSONL, HTML), delete, retention, usage,
    /// vacuum.
    #[command(subcommand)]
    Sessions(sessions_cmd::SessionsCommand),
    /// API keys in the OS keychain (Secret Service or kernel keyutils on
    /// Linux, Keychain on macOS, Credential Manager on Windows); never in
    /// the data directory.
    #[command(subcommand)]
    Keys(keys_cmd::KeysCommand),
    /// What the permission engine would decide for one tool call, without
    /// running it: prints one JSON object {"decision": "allow"|"ask"|"deny",
    /// "reason", "trace", "mode", "settings_errors", "ignored_rules"}; exit 0
    /// whatever the decision, 2 when --input is not valid JSON or is an input
    /// a session would refuse before any decision (checked like the pipeline
    /// does: the tool's schema, then its own validation; the message on
    /// stderr names the field, e.g. `{"cmd": "ls"}` for Bash, an empty
    /// `file_path` for Read). Reads the same settings files as Claude Code
    /// (managed policy, --settings, project local, project, user).
    Check(check_cmd::CheckArgs),
    /// Permission rules: check the settings files (`lint`, exit 1 on
    /// errors), or see what edited rules would have decided over the stored
    /// sessions (`replay`).
    #[command(subcommand)]
    Rules(rules_cmd::RulesCommand),
    /// MCP servers: list a project's servers with their state and tools
    /// (JSON, one object per server), approve a project's `.mcp.json`
    /// servers, sign in to / out of OAuth servers (`login`, `logout`), store
    /// secret env/header values in the OS keychain (`mcp secret set|delete`,
    /// value read from stdin).
    #[command(subcommand)]
    Mcp(mcp_cmd::McpCommand),
    /// Guard Claude Code itself: install Gatehouse's hook entries in a
    /// Claude Code settings file (`guard`, `guard --off`), see where they
    /// are and their last call (`status`), and answer Claude Code's hook
    /// calls (`hook <event>`, what the entries run): Gatehouse's engine
    /// decides each tool call and records it as a live session.
    #[command(subcommand, name = "claude-code")]
    ClaudeCode(claude_code_cmd::ClaudeCodeCommand),
}

#[derive(Debug, Subcommand)]
enum ProjectsCommand {
    /// Print every project as one JSON object per line, most recently opened
    /// first: {"id","path","name","added_at_ms","last_opened_ms",
    /// "trusted_at_ms","has_project_settings"}.
    List,
    /// Add a folder as a project (or mark an existing one opened) and print it
    /// as one JSON object.
    Add {
        /// The folder to add.
        path: PathBuf,
    },
}

fn main() -> ExitCode {
    // The sandbox's network bridge (a hidden first argument, not a
    // subcommand: it never reaches the argument parser).
    if let Some(code) = gatehouse_agent::sandbox::run_network_bridge_if_requested() {
        std::process::exit(code);
    }
    let cli = Cli::parse();
    // `<data dir>/logs/gatehouse-cli.log.*`; never stdout or stderr, which
    // are the CLI's contract. Kept (and flushed on drop) until exit.
    let _log = gatehouse_store::data_dir().ok().and_then(|dir| {
        gatehouse_session::logging::init(&dir, "gatehouse-cli")
            .map_err(|e| eprintln!("gatehouse-cli: note: running without a log file: {e}"))
            .ok()
    });
    match run(cli) {
        Ok(code) => code,
        // The reader of stdout went away (`| head -1`): it has what it
        // wanted; end quietly, as `rg` does.
        Err(err) if out::reader_gone(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gatehouse-cli: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => return run::run(args, open_store()?, open_store),
        Command::Keys(command) => keys_cmd::run(command)?,
        Command::Check(args) => return check_cmd::run(args),
        Command::Rules(command) => return rules_cmd::run(command, open_store),
        Command::Mcp(command) => mcp_cmd::run(command, open_store)?,
        Command::ClaudeCode(command) => return claude_code_cmd::run(command),
        Command::Sessions(command) => return sessions_cmd::run(command, open_store()?),
        Command::Projects(command) => {
            let store = open_store()?;
            match command {
                ProjectsCommand::List => {
                    for project in store.list_projects()? {
                        crate::out::outln!("{}", serde_json::to_string(&project)?);
                    }
                }
                ProjectsCommand::Add { path } => {
                    let project = store.add_project(&path)?;
                    crate::out::outln!("{}", serde_json::to_string(&project)?);
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn open_store() -> anyhow::Result<Store> {
    let dir = gatehouse_store::data_dir()?;
    Store::open(&dir).with_context(|| format!("opening the data directory {}", dir.display()))
}
