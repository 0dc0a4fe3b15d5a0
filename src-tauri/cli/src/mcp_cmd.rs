//! `gatehouse-cli mcp`: the MCP servers a project would get, approving
//! a project's `.mcp.json` servers, OAuth sign-in and sign-out. Also starts
//! the servers of `run`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Subcommand;
use gatehouse_core::events::Emitter;
use gatehouse_mcp::McpConfig;
use gatehouse_mcp::config::{self, ConfigLayout};
use gatehouse_session::mcp::{approved_servers, start_servers};
use gatehouse_store::Store;

/// `mcp` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Connect every configured MCP server of a project (Claude Code's
    /// `.mcp.json`, `~/.claude.json` user and local servers, Gatehouse's
    /// `~/.gatehouse/mcp.json`), then print one JSON object per server:
    /// {"name","scope","file","transport","trusted","state","message",
    /// "tools","stderr"}; `tools` are qualified names (`mcp__<server>__<tool>`),
    /// `state` is connecting|connected|failed|needs_auth|disabled|awaiting_approval.
    /// Project servers start only with --trust-project or a prior approval
    /// (`mcp approve`). Problems in configuration files go to stderr naming
    /// the file and server. Exit 0.
    List {
        /// The project folder.
        #[arg(long)]
        project: PathBuf,
        /// The home folder to read `~/.claude.json` and `~/.gatehouse/mcp.json`
        /// from (default: $HOME).
        #[arg(long)]
        home: Option<PathBuf>,
        /// Start the project's `.mcp.json` servers without a stored approval.
        #[arg(long)]
        trust_project: bool,
        /// Seconds to wait for servers to connect.
        #[arg(long, default_value_t = 30)]
        timeout_secs: u64,
    },
    /// Approve project servers (from `<project>/.mcp.json`) so that they
    /// start in later sessions without --trust-project; the approval is
    /// stored in the data directory and covers the server's current command
    /// or URL (a changed entry needs a new approval). Prints
    /// {"server","fingerprint"} per server.
    Approve {
        /// The project folder.
        #[arg(long)]
        project: PathBuf,
        /// The home folder (default: $HOME).
        #[arg(long)]
        home: Option<PathBuf>,
        /// The servers to approve (names in `.mcp.json`).
        #[arg(required = true)]
        servers: Vec<String>,
    },
    /// Sign in to an HTTP MCP server that uses OAuth 2.1 (one configured
    /// without an Authorization header): discovers its authorization server
    /// from its 401, registers Gatehouse as a client, opens the browser at
    /// the authorization page (the URL is also printed on stderr) and waits
    /// for the redirect on 127.0.0.1. The tokens and client credentials are
    /// stored only in the OS keychain; sessions then connect with them and
    /// refresh them. Prints {"server","url","issuer","scopes","signed_in":true}.
    /// Exit 1 when the sign-in fails or times out.
    Login {
        /// The server's name.
        name: String,
        /// The project folder.
        #[arg(long)]
        project: PathBuf,
        /// The home folder (default: $HOME).
        #[arg(long)]
        home: Option<PathBuf>,
        /// Do not open a browser; only print the URL to open (on stderr).
        #[arg(long)]
        no_browser: bool,
        /// Seconds to wait for the browser's redirect.
        #[arg(long, default_value_t = 300)]
        timeout_secs: u64,
    },
    /// Sign out of an OAuth MCP server: deletes its tokens and client
    /// credentials from the OS keychain. Prints
    /// {"server","url","signed_out"}; `signed_out` is false when there was
    /// no sign-in to delete.
    Logout {
        /// The server's name.
        name: String,
        /// The project folder.
        #[arg(long)]
        project: PathBuf,
        /// The home folder (default: $HOME).
        #[arg(long)]
        home: Option<PathBuf>,
    },
}

/// Loads the MCP configuration of `project` (warning about problems on
/// stderr).
pub(crate) fn load_config(project: &Path, home: &Path) -> McpConfig {
    let cfg = config::load(&ConfigLayout {
        project: project.to_path_buf(),
        home: home.to_path_buf(),
    });
    for error in &cfg.errors {
        eprintln!("gatehouse-cli: warning: MCP configuration: {error}");
    }
    cfg
}

/// Runs an `mcp` subcommand.
pub fn run(
    command: McpCommand,
    store: impl FnOnce() -> anyhow::Result<Store>,
) -> anyhow::Result<()> {
    match command {
        McpCommand::List {
            project,
            home,
            trust_project,
            timeout_secs,
        } => {
            let project = canonical(&project)?;
            let home = home.unwrap_or_else(crate::run::home_dir);
            let cfg = load_config(&project, &home);
            // Approvals are only looked up when a project server needs one.
            let approved = if cfg.servers.iter().any(|s| s.scope.needs_approval()) && !trust_project
            {
                approved_servers(&cfg, &project, &store()?)
            } else {
                HashSet::new()
            };
            let reports = runtime()?.block_on(async {
                let sink = Arc::new(gatehouse_core::events::NullSink);
                let (m, warning) = start_servers(
                    &cfg,
                    &project,
                    &approved,
                    trust_project,
                    Emitter::new("mcp-list", sink),
                    Duration::from_secs(timeout_secs.max(1)),
                )
                .await;
                if let Some(warning) = warning {
                    eprintln!("gatehouse-cli: warning: {warning}");
                }
                let reports = m.report();
                m.shutdown();
                // Give the servers a moment to be stopped (process groups killed).
                tokio::time::sleep(Duration::from_millis(50)).await;
                reports
            });
            for r in reports {
                println!("{}", serde_json::to_string(&r)?);
            }
        }
        McpCommand::Approve {
            project,
            home,
            servers,
        } => {
            let project = canonical(&project)?;
            let home = home.unwrap_or_else(crate::run::home_dir);
            let cfg = load_config(&project, &home);
            let store = store()?;
            let project_text = project.to_string_lossy().into_owned();
            for name in servers {
                let server = cfg
                    .servers
                    .iter()
                    .find(|s| s.name == name && s.scope.needs_approval())
                    .with_context(|| {
                        format!(
                            "{}: no project server named `{name}` (only servers of the project's .mcp.json need approval)",
                            project.join(".mcp.json").display()
                        )
                    })?;
                let fingerprint = server.fingerprint();
                store.approve_mcp_server(&project_text, &name, &fingerprint)?;
                println!(
                    "{}",
                    serde_json::json!({"server": name, "fingerprint": fingerprint})
                );
            }
        }
        McpCommand::Login {
            name,
            project,
            home,
            no_browser,
            timeout_secs,
        } => {
            let project = canonical(&project)?;
            let home = home.unwrap_or_else(crate::run::home_dir);
            let browser = (!no_browser).then(gatehouse_mcp::auth::system_opener);
            let server = name.clone();
            let opener: gatehouse_mcp::auth::Opener = Arc::new(move |url: &str| {
                eprintln!("gatehouse-cli: to sign in to `{server}`, open: {url}");
                if let Some(browser) = &browser
                    && let Err(e) = browser(url)
                {
                    eprintln!("gatehouse-cli: warning: {e}; open the URL yourself");
                }
                Ok(())
            });
            let done = runtime()?
                .block_on(gatehouse_session::mcp_auth::sign_in(
                    &project,
                    &home,
                    &name,
                    &opener,
                    Duration::from_secs(timeout_secs.max(1)),
                ))
                .map_err(anyhow::Error::msg)?;
            println!(
                "{}",
                serde_json::json!({
                    "server": done.server,
                    "url": done.url,
                    "issuer": done.issuer,
                    "scopes": done.scopes,
                    "signed_in": true,
                })
            );
        }
        McpCommand::Logout {
            name,
            project,
            home,
        } => {
            let project = canonical(&project)?;
            let home = home.unwrap_or_else(crate::run::home_dir);
            let done = runtime()?
                .block_on(gatehouse_session::mcp_auth::sign_out(
                    &project, &home, &name,
                ))
                .map_err(anyhow::Error::msg)?;
            println!(
                "{}",
                serde_json::json!({
                    "server": done.server,
                    "url": done.url,
                    "signed_out": done.signed_out,
                })
            );
        }
    }
    Ok(())
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn canonical(project: &Path) -> anyhow::Result<PathBuf> {
    project
        .canonicalize()
        .with_context(|| format!("the project folder {}", project.display()))
}
