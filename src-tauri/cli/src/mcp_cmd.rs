//! `gatehouse-cli mcp`: the MCP servers a project would get, approving
//! a project's `.mcp.json` servers, OAuth sign-in and sign-out, and secret
//! values in the keychain. Also starts the servers of `run`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use anyhow::bail;
use clap::{Subcommand, ValueEnum};
use gatehouse_agent::keychain::Keychain;
use gatehouse_core::events::Emitter;
use gatehouse_mcp::McpConfig;
use gatehouse_mcp::config::{self, ConfigLayout, ConfigScope};
use gatehouse_mcp::edit;
use gatehouse_mcp::secrets::SecretKind;
use gatehouse_session::mcp::{KeychainSecrets, approved_servers, start_servers};
use gatehouse_store::Store;
use std::io::Read as _;

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
    /// Secret env values and header values of a server, kept in the OS
    /// keychain (the same store as the API keys); the config file holds only
    /// their names (`secretEnv` / `secretHeaders`).
    #[command(subcommand)]
    Secret(SecretCommand),
}

/// Which file a server is configured in, for `mcp secret`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SecretScope {
    /// Gatehouse's own `~/.gatehouse/mcp.json`.
    Gatehouse,
    /// The project's `.mcp.json` (needs --project; the secret is stored for
    /// that project only).
    Project,
}

/// What a secret is: an env variable or an HTTP header (exactly one).
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
pub struct SecretTarget {
    /// An HTTP header of an HTTP server (e.g. Authorization).
    #[arg(long)]
    header: Option<String>,
    /// An environment variable of a stdio server.
    #[arg(long)]
    env: Option<String>,
}

/// Where the server of an `mcp secret` command is.
#[derive(Debug, clap::Args)]
pub struct SecretServer {
    /// The server's name.
    #[arg(long)]
    server: String,
    #[command(flatten)]
    target: SecretTarget,
    /// The file the server is in.
    #[arg(long, value_enum, default_value_t = SecretScope::Gatehouse)]
    scope: SecretScope,
    /// The project folder (required with --scope project).
    #[arg(long, required_if_eq("scope", "project"))]
    project: Option<PathBuf>,
    /// The home folder of `~/.gatehouse/mcp.json` (default: $HOME).
    #[arg(long)]
    home: Option<PathBuf>,
}

/// `mcp secret` subcommands.
#[derive(Debug, Subcommand)]
pub enum SecretCommand {
    /// Store a secret value read from stdin (never from the command line;
    /// one trailing newline is dropped) in the OS keychain, and add its name
    /// to the server's `secretEnv` / `secretHeaders` (a plain value of the
    /// same name is removed from the file). The server must exist in the
    /// chosen file. Prints {"server","scope","kind","name","account","store"};
    /// never the value.
    Set(SecretServer),
    /// Remove a secret value from the OS keychain and its name from the
    /// server's `secretEnv` / `secretHeaders`. Prints
    /// {"server","scope","kind","name","account","store"}.
    Delete(SecretServer),
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
                crate::out::outln!("{}", serde_json::to_string(&r)?);
            }
        }
        McpCommand::Secret(command) => secret(command)?,
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
                crate::out::outln!(
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
            crate::out::outln!(
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
            crate::out::outln!(
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

/// Runs `mcp secret set|delete`.
fn secret(command: SecretCommand) -> anyhow::Result<()> {
    let (target, value) = match command {
        SecretCommand::Set(target) => {
            let mut value = String::new();
            std::io::stdin()
                .read_to_string(&mut value)
                .context("reading the secret value from stdin")?;
            // `echo value |` and a typed line end in a newline that is not
            // part of the secret; anything else is kept as given.
            let value = value
                .strip_suffix('\n')
                .map(|v| v.strip_suffix('\r').unwrap_or(v))
                .unwrap_or(&value)
                .to_owned();
            if value.is_empty() {
                bail!("no secret value on stdin; nothing was stored");
            }
            (target, Some(value))
        }
        SecretCommand::Delete(target) => (target, None),
    };
    let home = target.home.clone().unwrap_or_else(crate::run::home_dir);
    let (scope, project) = match (target.scope, &target.project) {
        (SecretScope::Project, Some(project)) => (ConfigScope::Project, canonical(project)?),
        (SecretScope::Project, None) => bail!("--scope project needs --project DIR"),
        // The project folder does not matter for Gatehouse's own file.
        (SecretScope::Gatehouse, _) => (ConfigScope::Gatehouse, home.clone()),
    };
    let layout = ConfigLayout { project, home };
    let (kind, name) = match (&target.target.header, &target.target.env) {
        (Some(header), _) => (SecretKind::Header, header.as_str()),
        (None, Some(env)) => (SecretKind::Env, env.as_str()),
        (None, None) => bail!("give --header NAME or --env NAME"),
    };
    let keychain = KeychainSecrets(Keychain::Os(
        Keychain::open().require().map_err(anyhow::Error::msg)?,
    ));
    let store_kind = keychain.0.kind();
    let account = match value {
        Some(value) => edit::set_secret(
            &layout,
            scope,
            &target.server,
            kind,
            name,
            &value,
            &keychain,
        ),
        None => edit::delete_secret(&layout, scope, &target.server, kind, name, &keychain),
    }
    .map_err(anyhow::Error::msg)?;
    crate::out::outln!(
        "{}",
        serde_json::json!({
            "server": target.server,
            "scope": scope,
            "kind": kind,
            "name": name,
            "account": account,
            "store": store_kind,
        })
    );
    Ok(())
}

fn canonical(project: &Path) -> anyhow::Result<PathBuf> {
    project
        .canonicalize()
        .with_context(|| format!("the project folder {}", project.display()))
}
