//! `gatehouse-cli check`: what the permission engine would decide for one
//! tool call, with its reason and the trace of every layer consulted.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use gatehouse_permissions::sources::os_managed_policy_paths;
use gatehouse_permissions::{CheckRequest, check};

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
    #[arg(long, value_name = "NAME")]
    pub tool: String,
    /// The tool input as a JSON object, e.g. '{"command": "ls -la"}'.
    #[arg(long, value_name = "JSON")]
    pub input: String,
}

/// Prints the decision as one JSON object; exit 0 whatever the decision, 2
/// when the input is not valid JSON.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let input: serde_json::Value = match serde_json::from_str(&args.input) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("gatehouse-cli: error: --input is not valid JSON: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let (managed_file, managed_dropin_dir) = os_managed_policy_paths();
    let mut request = CheckRequest::new(
        args.project,
        args.home.unwrap_or_else(home_dir),
        args.tool,
        input,
    );
    request.mode = args.mode.map(ModeArg::mode);
    request.settings_files = args.settings;
    request.trust_project = args.trust_project;
    request.additional_dirs = args.add_dir;
    request.managed_file = Some(managed_file);
    request.managed_dropin_dir = Some(managed_dropin_dir);
    let report = check(&request);
    println!("{}", serde_json::to_string(&report)?);
    Ok(ExitCode::SUCCESS)
}
