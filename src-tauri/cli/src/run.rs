//! `gatehouse-cli run`: one headless session.
//!
//! Every event is appended to the session in SQLite first and then printed
//! as one JSON line on stdout (so a line on stdout is always already
//! stored). Exit codes: 0 the session completed; 1 it did not (a provider
//! error, an interrupt, the turn limit); 2 it could not start (bad
//! arguments, script, project or key).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use gatehouse_agent::provider::Provider;
use gatehouse_core::events::{EventSink, to_json_line};
use gatehouse_protocol::event::{Event, SessionStatus};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_protocol::session::ProviderChoice;
use gatehouse_session::host::AskPolicy;
use gatehouse_session::keys::find_key;
use gatehouse_session::provider::build_provider as build_provider_for;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use gatehouse_store::Store;

/// Which model provider a run talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProviderKind {
    /// Play a replay script (offline; needs --script).
    Replay,
    /// The Anthropic Messages API (needs --model; key from ANTHROPIC_API_KEY
    /// or the keychain; ANTHROPIC_BASE_URL or --base-url override the URL).
    Anthropic,
    /// An OpenAI-compatible chat-completions endpoint (needs --base-url and
    /// --model; key from OPENAI_API_KEY or the keychain, optional for local
    /// servers).
    Openai,
}

/// Permission modes as spelled in Claude Code's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "camelCase")]
pub enum ModeArg {
    /// Reads run; everything else asks.
    Default,
    /// File edits inside the project run.
    AcceptEdits,
    /// Read-only calls only.
    Plan,
    /// Everything runs except deny rules and safety checks.
    BypassPermissions,
    /// Every ask becomes a deny.
    DontAsk,
}

impl ModeArg {
    pub(crate) fn mode(self) -> PermissionMode {
        match self {
            Self::Default => PermissionMode::Default,
            Self::AcceptEdits => PermissionMode::AcceptEdits,
            Self::Plan => PermissionMode::Plan,
            Self::BypassPermissions => PermissionMode::BypassPermissions,
            Self::DontAsk => PermissionMode::DontAsk,
        }
    }
}

/// How permission prompts are answered when nobody is there to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AskArg {
    /// Allow every prompted call once.
    Allow,
    /// Deny every prompted call (the default).
    Deny,
}

/// The arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The project folder the tools work in.
    #[arg(long)]
    pub project: PathBuf,
    /// The model provider.
    #[arg(long, value_enum)]
    pub provider: ProviderKind,
    /// The replay script (JSON: {"turns":[{"content":[text | tool_use]}]}).
    #[arg(long, required_if_eq("provider", "replay"))]
    pub script: Option<PathBuf>,
    /// The model name.
    #[arg(long, required_if_eq_any([("provider", "anthropic"), ("provider", "openai")]))]
    pub model: Option<String>,
    /// The API base URL (required for openai; for anthropic it overrides
    /// ANTHROPIC_BASE_URL).
    #[arg(long, required_if_eq("provider", "openai"))]
    pub base_url: Option<String>,
    /// The permission mode.
    #[arg(long, value_enum, default_value = "default")]
    pub mode: ModeArg,
    /// How permission prompts are answered. Also ExitPlanMode's plan
    /// approval: allow approves the plan (the session continues in default
    /// mode), deny keeps planning.
    #[arg(long, value_enum, default_value = "deny")]
    pub ask: AskArg,
    /// Scripted answer to an AskUserQuestion question, `Header=Option`
    /// (repeatable; repeat a header to pick several options of a
    /// multiSelect question). The header and the option label match
    /// case-insensitively; a value that is no option's label is the
    /// "Other" free-text answer. A call with a question left unanswered
    /// gets a "no user to ask" result.
    #[arg(long = "answer", value_name = "HEADER=OPTION", value_parser = parse_answer)]
    pub answers: Vec<(String, String)>,
    /// The prompt (default: read from stdin; for replay, a fixed prompt).
    #[arg(long)]
    pub prompt: Option<String>,
    /// Continue a stored session (its history is reloaded).
    #[arg(long, value_name = "SESSION_ID")]
    pub resume: Option<String>,
    /// Model requests allowed in the session.
    #[arg(long, default_value_t = 100)]
    pub max_turns: u32,
    /// Seconds the provider may stay silent before the request is abandoned.
    #[arg(long, default_value_t = 120)]
    pub timeout_secs: u64,
    /// Trust the project: its settings' allow rules apply (its deny and ask
    /// rules always do), and the MCP servers of its `.mcp.json` start without
    /// a stored approval (`gatehouse-cli mcp approve`). Unapproved project
    /// servers are reported as `awaiting_approval` in `mcp_server_state`
    /// events and give no tools.
    #[arg(long)]
    pub trust_project: bool,
    /// Seconds to wait for MCP servers to connect before the first model
    /// request (their tools are in the pool from then on).
    #[arg(long, default_value_t = 30)]
    pub mcp_timeout_secs: u64,
}

/// Parses one `--answer 'Header=Option'`.
fn parse_answer(text: &str) -> Result<(String, String), String> {
    let (header, option) = text.split_once('=').ok_or_else(|| {
        format!("--answer {text:?}: expected HEADER=OPTION, e.g. --answer 'Library=React'")
    })?;
    if header.trim().is_empty() || option.trim().is_empty() {
        return Err(format!(
            "--answer {text:?}: both the header and the option must be given (HEADER=OPTION)"
        ));
    }
    Ok((header.trim().to_owned(), option.trim().to_owned()))
}

/// Prints each event (already stored by the host's writer) as one JSON line.
struct StdoutSink;

impl EventSink for StdoutSink {
    fn emit(&self, event: Event) {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        // A closed stdout must not stop the session or its storage.
        let _ = out
            .write_all(to_json_line(&event).as_bytes())
            .and_then(|()| out.flush());
    }
}

/// What the flags ask for, as the session host's provider choice.
fn provider_choice(args: &RunArgs) -> anyhow::Result<ProviderChoice> {
    Ok(match args.provider {
        ProviderKind::Replay => ProviderChoice::Replay {
            script: Some(
                args.script
                    .as_deref()
                    .context("--script is required")?
                    .to_string_lossy()
                    .into_owned(),
            ),
        },
        ProviderKind::Anthropic => ProviderChoice::Anthropic {
            model: args.model.clone().context("--model is required")?,
            base_url: args.base_url.clone(),
        },
        ProviderKind::Openai => ProviderChoice::OpenAi {
            model: args.model.clone().context("--model is required")?,
            base_url: args.base_url.clone().context("--base-url is required")?,
        },
    })
}

fn build_provider(
    args: &RunArgs,
    project: &Path,
    data_dir: &Path,
) -> anyhow::Result<(Arc<dyn Provider>, String)> {
    let choice = provider_choice(args)?;
    // The CLI always names a script (`--script`), so the demo's
    // sample-project rule (its sample project is in `data_dir`) never applies.
    build_provider_for(&choice, project, data_dir, &find_key).map_err(anyhow::Error::msg)
}

fn read_prompt(args: &RunArgs) -> anyhow::Result<String> {
    if let Some(p) = &args.prompt {
        return Ok(p.clone());
    }
    if args.provider == ProviderKind::Replay {
        return Ok("Run the replay script.".into());
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .context("reading the prompt from stdin")?;
    if text.trim().is_empty() {
        bail!("no prompt: pass --prompt TEXT or write it to stdin");
    }
    Ok(text)
}

/// Interrupts the session on Ctrl-C. The handler is registered before this
/// returns, so a Ctrl-C right after the session starts is never missed.
fn watch_interrupt(host: Arc<SessionHost>, session_id: String) {
    let interrupt = move || {
        let _ = host.interrupt(&session_id);
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::interrupt()) {
            Ok(mut sigint) => {
                tokio::spawn(async move {
                    if sigint.recv().await.is_some() {
                        interrupt();
                    }
                });
            }
            Err(e) => eprintln!("gatehouse-cli: note: Ctrl-C cannot interrupt this run: {e}"),
        }
    }
    #[cfg(not(unix))]
    {
        match tokio::signal::windows::ctrl_c() {
            Ok(mut ctrl_c) => {
                tokio::spawn(async move {
                    if ctrl_c.recv().await.is_some() {
                        interrupt();
                    }
                });
            }
            Err(e) => eprintln!("gatehouse-cli: note: Ctrl-C cannot interrupt this run: {e}"),
        }
    }
}

/// Runs the session through the session host (the app's code path); the
/// exit code says how it ended.
pub fn run(
    args: RunArgs,
    store: Store,
    reopen: impl Fn() -> anyhow::Result<Store>,
) -> anyhow::Result<ExitCode> {
    let data_dir = store
        .path()
        .parent()
        .map_or_else(std::env::temp_dir, std::path::Path::to_path_buf);
    let setup = (|| -> anyhow::Result<_> {
        let project = args
            .project
            .canonicalize()
            .with_context(|| format!("the project folder {}", args.project.display()))?;
        if !project.is_dir() {
            bail!("{}: not a folder", project.display());
        }
        let (provider, model) = build_provider(&args, &project, &data_dir)?;
        let prompt = read_prompt(&args)?;
        Ok((project, provider, model, prompt))
    })();
    let (project, provider, model, prompt) = match setup {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gatehouse-cli: error: {e:#}");
            return Ok(ExitCode::from(2));
        }
    };
    if let Some(id) = &args.resume {
        let Some(summary) = store.session(id)? else {
            eprintln!("gatehouse-cli: error: no stored session with id {id}");
            return Ok(ExitCode::from(2));
        };
        // The host refuses it too; checked here so a usage error exits 2
        // before anything starts.
        if let Err(e) = gatehouse_session::host::check_resumable(&summary) {
            eprintln!("gatehouse-cli: error: {e}");
            return Ok(ExitCode::from(2));
        }
    }
    drop(store);
    // The host opens its own connections to the same database.
    drop(reopen);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let (status, failures) = runtime.block_on(async {
        let mut config = HostConfig::new(data_dir);
        config.home = home_dir();
        config.max_turns = args.max_turns;
        config.idle_timeout = std::time::Duration::from_secs(args.timeout_secs.max(1));
        config.answers = args.answers.clone();
        let host = Arc::new(SessionHost::new(
            config,
            Arc::new(StdoutSink),
            tokio::runtime::Handle::current(),
        )?);
        let started = host
            .start(StartSpec {
                project: project.clone(),
                provider,
                model,
                mode: Some(args.mode.mode()),
                trust_project: args.trust_project,
                ask: match args.ask {
                    AskArg::Allow => AskPolicy::AllowAll,
                    AskArg::Deny => AskPolicy::DenyAll,
                },
                resume: args.resume.clone(),
                settings_files: Vec::new(),
                mcp_startup_timeout: Some(std::time::Duration::from_secs(
                    args.mcp_timeout_secs.max(1),
                )),
            })
            .await?;
        for warning in &started.warnings {
            eprintln!("gatehouse-cli: warning: {warning}");
        }
        if let Some(why) = &started.sandbox_unavailable {
            // The typed event is on stdout too; people read stderr.
            eprintln!(
                "gatehouse-cli: warning: {}",
                gatehouse_agent::sandbox::unavailable_notice(why)
            );
        }
        let session_id = started.handle.session_id;
        watch_interrupt(Arc::clone(&host), session_id.clone());
        let outcome = host.send_prompt(&session_id, &prompt)?.wait().await;
        let status = match outcome {
            Some(outcome) => {
                if let Some((kind, message)) = &outcome.error {
                    eprintln!(
                        "gatehouse-cli: session {session_id} did not complete ({kind:?}): {message}"
                    );
                }
                outcome.status
            }
            None => SessionStatus::Failed,
        };
        // Background tasks do not outlive the session; say which were stopped.
        for stopped in host.close(&session_id).await? {
            eprintln!(
                "gatehouse-cli: stopped background task {} (`{}`) as the session ended",
                stopped.task_id, stopped.command
            );
        }
        // Every event is stored and printed before the process exits.
        let failures = host.finish().await;
        anyhow::Ok((status, failures))
    })?;
    drop(runtime);
    if failures > 0 {
        eprintln!("gatehouse-cli: error: {failures} event(s) could not be stored");
        return Ok(ExitCode::FAILURE);
    }
    Ok(match status {
        SessionStatus::Completed => ExitCode::SUCCESS,
        SessionStatus::Interrupted => {
            eprintln!("gatehouse-cli: the session was interrupted");
            ExitCode::FAILURE
        }
        SessionStatus::TurnLimit | SessionStatus::Failed => ExitCode::FAILURE,
    })
}

pub(crate) use gatehouse_permissions::sources::home_dir;
