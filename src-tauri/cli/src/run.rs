//! `gatehouse-cli run`: one headless session.
//!
//! Every event is appended to the session in SQLite first and then printed
//! as one JSON line on stdout (so a line on stdout is always already
//! stored). Exit codes: 0 the session completed; 1 it did not (a provider
//! error, an interrupt, the turn limit); 2 it could not start (bad
//! arguments, script, project or key).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, mpsc};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use gatehouse_agent::keychain::OsKeyStore;
use gatehouse_agent::keys::{self, ApiKey, KeyStore, NoKeyStore};
use gatehouse_agent::provider::Provider;
use gatehouse_agent::provider::anthropic::{AnthropicConfig, AnthropicProvider};
use gatehouse_agent::provider::openai::{OpenAiConfig, OpenAiProvider};
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_agent::resume::history_from_events;
use gatehouse_agent::{Agent, AgentConfig, EngineSetup, StaticAsk, load_engine, session_pool};
use gatehouse_core::events::{Emitter, EventSink, to_json_line};
use gatehouse_core::{ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{Event, EventBody, SessionStatus};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_store::{NewSession, Store};
use tokio_util::sync::CancellationToken;

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
    /// How permission prompts are answered.
    #[arg(long, value_enum, default_value = "deny")]
    pub ask: AskArg,
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

/// A sink that hands events to the writer thread.
struct ForwardSink(mpsc::Sender<Event>);

impl EventSink for ForwardSink {
    fn emit(&self, event: Event) {
        let _ = self.0.send(event);
    }
}

/// Stores each event, then prints it. Returns storage errors seen.
fn writer(mut store: Store, rx: mpsc::Receiver<Event>) -> usize {
    let stdout = std::io::stdout();
    let mut failures = 0;
    for event in rx {
        if let Err(e) = store.append_event(&event) {
            failures += 1;
            eprintln!("gatehouse-cli: error: storing an event failed: {e}");
        }
        let mut out = stdout.lock();
        // A closed stdout must not stop the session or its storage.
        let _ = out
            .write_all(to_json_line(&event).as_bytes())
            .and_then(|()| out.flush());
    }
    failures
}

fn new_session_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("ses_{nanos:x}_{:x}", std::process::id())
}

fn build_provider(args: &RunArgs) -> anyhow::Result<(Arc<dyn Provider>, String)> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    Ok(match args.provider {
        ProviderKind::Replay => {
            let path = args.script.as_deref().context("--script is required")?;
            let script = Script::load(path)
                .map_err(anyhow::Error::msg)?
                .with_project_dir(
                    &args
                        .project
                        .canonicalize()
                        .unwrap_or_else(|_| args.project.clone()),
                );
            (Arc::new(ReplayProvider::new(script)), "replay".into())
        }
        ProviderKind::Anthropic => {
            let model = args.model.clone().context("--model is required")?;
            let Some(key) = find_key("anthropic", &env)? else {
                bail!(
                    "no Anthropic API key: set ANTHROPIC_API_KEY or store one with `gatehouse-cli keys set anthropic`"
                );
            };
            let mut config = AnthropicConfig::new(key);
            if let Some(url) = args.base_url.clone().or_else(|| env("ANTHROPIC_BASE_URL")) {
                config.base_url = url;
            }
            let provider = AnthropicProvider::new(config).map_err(anyhow::Error::msg)?;
            (Arc::new(provider), model)
        }
        ProviderKind::Openai => {
            let model = args.model.clone().context("--model is required")?;
            let base_url = args.base_url.clone().context("--base-url is required")?;
            let key = find_key("openai", &env)?;
            let provider = OpenAiProvider::new(OpenAiConfig::new(base_url, key))
                .map_err(anyhow::Error::msg)?;
            (Arc::new(provider), model)
        }
    })
}

/// The environment first; the keychain is opened only when needed, and an
/// unreachable keychain is then just "no key" (with the reason on stderr).
fn find_key(
    provider: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Option<ApiKey>> {
    if let Some((key, _)) =
        keys::lookup_key(provider, None, env, &NoKeyStore).map_err(anyhow::Error::msg)?
    {
        return Ok(Some(key));
    }
    let store: Box<dyn KeyStore> = match OsKeyStore::open() {
        Ok(s) => Box::new(s),
        Err(e) => {
            eprintln!("gatehouse-cli: note: the keychain is not available: {e}");
            Box::new(NoKeyStore)
        }
    };
    Ok(keys::lookup_key(provider, None, env, store.as_ref())
        .map_err(anyhow::Error::msg)?
        .map(|(k, _)| k))
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

/// Cancels `interrupt` on Ctrl-C. The handler is registered before this
/// returns, so a Ctrl-C right after the session starts is never missed.
fn watch_interrupt(interrupt: CancellationToken) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::interrupt()) {
            Ok(mut sigint) => {
                tokio::spawn(async move {
                    if sigint.recv().await.is_some() {
                        interrupt.cancel();
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
                        interrupt.cancel();
                    }
                });
            }
            Err(e) => eprintln!("gatehouse-cli: note: Ctrl-C cannot interrupt this run: {e}"),
        }
    }
}

/// Runs the session; the exit code says how it ended.
pub fn run(
    args: RunArgs,
    store: Store,
    reopen: impl Fn() -> anyhow::Result<Store>,
) -> anyhow::Result<ExitCode> {
    let setup = (|| -> anyhow::Result<_> {
        let project = args
            .project
            .canonicalize()
            .with_context(|| format!("the project folder {}", args.project.display()))?;
        if !project.is_dir() {
            bail!("{}: not a folder", project.display());
        }
        let (provider, model) = build_provider(&args)?;
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
    let project_text = project.to_string_lossy().into_owned();
    let mode = args.mode.mode();
    let (session_id, history, turns) = match &args.resume {
        Some(id) => {
            let Some(_summary) = store.session(id)? else {
                eprintln!("gatehouse-cli: error: no stored session with id {id}");
                return Ok(ExitCode::from(2));
            };
            let (events, _skipped) = store.session_events(id)?;
            let (history, turns) = history_from_events(&events);
            (id.clone(), history, turns)
        }
        None => {
            let id = new_session_id();
            store.create_session(&NewSession {
                id: id.clone(),
                project_path: project_text.clone(),
                provider: provider.name().to_owned(),
                model: model.clone(),
                mode: serde_json::to_value(mode)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
            })?;
            (id, Vec::new(), 0)
        }
    };
    // MCP servers (configuration and approvals are read before the store is
    // handed to the writer thread).
    let mcp_config = crate::mcp_cmd::load_config(&project, &home_dir());
    let mcp_approved = crate::mcp_cmd::approved_servers(&mcp_config, &project, &store);
    let data_dir = store
        .path()
        .parent()
        .map_or_else(std::env::temp_dir, std::path::Path::to_path_buf);
    drop(store);
    let writer_store = reopen()?;
    let (tx, rx) = mpsc::channel();
    let writer = std::thread::spawn(move || writer(writer_store, rx));

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let status = runtime.block_on(async {
        let (engine, settings_errors) = load_engine(&EngineSetup {
            project: project.clone(),
            home: home_dir(),
            mode: Some(mode),
            trust_project: args.trust_project,
            settings_files: Vec::new(),
        });
        for error in &settings_errors {
            eprintln!("gatehouse-cli: warning: {error}");
        }
        let resolver = Arc::new(engine);
        // Large tool results, Bash output and task output are written beside
        // the database.
        let session_dir = data_dir.join("sessions").join(&session_id);
        let sink: Arc<dyn EventSink> = Arc::new(ForwardSink(tx));
        // session_started comes first, then the MCP servers' states.
        Emitter::new(session_id.clone(), Arc::clone(&sink)).emit(EventBody::SessionStarted {
            provider: provider.name().to_owned(),
            model: model.clone(),
            project: project_text.clone(),
            resumed: args.resume.is_some(),
        });
        let mcp = crate::mcp_cmd::start(
            &mcp_config,
            &project,
            &mcp_approved,
            args.trust_project,
            Emitter::new(session_id.clone(), Arc::clone(&sink)),
            std::time::Duration::from_secs(args.mcp_timeout_secs.max(1)),
        )
        .await;
        let tools = session_pool(
            &session_dir,
            Emitter::new(session_id.clone(), Arc::clone(&sink)),
            resolver.as_ref(),
            mcp.resource_tools(),
            mcp.tools(),
        );
        let pool = tools.pool;
        let ask = match args.ask {
            AskArg::Allow => StaticAsk::allow(),
            AskArg::Deny => StaticAsk::deny(),
        };
        let rt = ToolRuntime::builder(pool, resolver, session_dir)
            .session_id(session_id.clone())
            .event_sink(sink)
            .ask_handler(Arc::new(ask))
            .build();

        let mut config = AgentConfig::new(model);
        config.max_turns = turns.saturating_add(args.max_turns);
        config.idle_timeout = std::time::Duration::from_secs(args.timeout_secs.max(1));
        let ctx = ToolUseContext {
            session_id: session_id.clone(),
            cwd: project.clone(),
            permission_mode: mode,
            ..ToolUseContext::default()
        };
        let mut agent = Agent::new(provider, rt, config, ctx).with_history(history, turns);
        let interrupt = CancellationToken::new();
        watch_interrupt(interrupt.clone());
        let outcome = agent.run_prompt(&prompt, &interrupt).await;
        if let Some((kind, message)) = &outcome.error {
            eprintln!("gatehouse-cli: session {session_id} did not complete ({kind:?}): {message}");
        }
        // Background tasks do not outlive the session; say which were stopped.
        for stopped in tools.tasks.shutdown().await {
            eprintln!(
                "gatehouse-cli: stopped background task {} (`{}`) as the session ended",
                stopped.task_id, stopped.command
            );
        }
        // MCP servers (their process groups) stop with the session.
        mcp.shutdown();
        drop(mcp);
        outcome.status
        // The agent (and with it the runtime's sink) is dropped here, which
        // ends the writer once it has stored everything.
    });
    drop(runtime);
    let failures = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the event writer thread panicked"))?;
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

/// The user's home directory (`~/.claude/settings.json` lives there).
pub(crate) fn home_dir() -> PathBuf {
    std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from)
}
