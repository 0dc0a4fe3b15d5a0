//! The tool pool and permission engine the CLI (and later the app) start
//! sessions with.
//!
//! [`builtin_pool`] builds the session's built-in tools (`gatehouse-tools`:
//! Read, Write, Edit, NotebookEdit, Glob, Grep, Bash, TaskOutput, TaskStop,
//! SendMessage, AskUserQuestion, TodoWrite, EnterPlanMode, ExitPlanMode,
//! WebFetch)
//! through the registry; [`load_engine`] loads the permission engine
//! (`gatehouse-permissions`) from the project's and the user's settings.
//! Bash learns which commands are read-only from the engine's shell analysis
//! through [`EngineShellClassifier`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::ToolPool;
use gatehouse_core::events::Emitter;
use gatehouse_core::permission::{PermissionResolver, ToolPermissionVerdict};
use gatehouse_core::registry::{Gate, GateContext, Registry};
use gatehouse_permissions::settings::SettingsError;
use gatehouse_permissions::sources::{
    LoadedSettings, SettingsLayout, load, os_managed_policy_paths,
};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::interaction::{Interaction, InteractionReply};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_tools::bash::classifier::CommandClassifier;
use gatehouse_tools::bash::sandboxed::SharedSandbox;
use gatehouse_tools::bash::{BashConfig, shell_tools};
use gatehouse_tools::talkback::ask_user_question::scripted_answers;
use gatehouse_tools::talkback::talkback_tools;
use gatehouse_tools::tasks::{SendMessageTool, TaskManager};
use gatehouse_tools::{FileStateCache, file_tools};

/// Bash's view of the permission engine's shell analysis: a command is
/// read-only (and so may run beside other safe calls) only when the engine's
/// analyser says every part of it is. The verdict is left to the engine,
/// which analyses Bash commands itself when it decides.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineShellClassifier;

impl CommandClassifier for EngineShellClassifier {
    fn is_read_only(&self, command: &str) -> bool {
        gatehouse_permissions::is_read_only(command)
    }

    fn check(&self, _command: &str) -> ToolPermissionVerdict {
        ToolPermissionVerdict::Passthrough
    }
}

/// A session's built-in tools and what must be shut down with it.
#[derive(Debug)]
pub struct SessionTools {
    /// The pool the model sees (built-ins by name, then MCP tools by name).
    pub pool: Arc<ToolPool>,
    /// Background tasks started by Bash and Agent; `shutdown()` them when
    /// the session ends.
    pub tasks: Arc<TaskManager>,
}

/// The pool of built-in tools for a session whose files live in
/// `session_dir` (Bash output, task output); `emitter` reports task events.
pub fn builtin_pool(
    session_dir: &Path,
    emitter: Emitter,
    resolver: &dyn PermissionResolver,
) -> SessionTools {
    session_pool(session_dir, emitter, resolver, Vec::new(), Vec::new())
}

/// [`builtin_pool`] plus tools from elsewhere: `extra_builtins` (such as
/// MCP's ListMcpResources / ReadMcpResource, or a WebFetch of the
/// session's own, replacing the default one) sort among the built-ins,
/// `mcp_tools` (`mcp__<server>__<tool>`, from `gatehouse-mcp`) come after
/// them, sorted by name (see `Registry::assemble_pool`).
pub fn session_pool(
    session_dir: &Path,
    emitter: Emitter,
    resolver: &dyn PermissionResolver,
    extra_builtins: Vec<Arc<dyn gatehouse_core::Tool>>,
    mcp_tools: Vec<Arc<dyn gatehouse_core::Tool>>,
) -> SessionTools {
    session_pool_sandboxed(
        session_dir,
        emitter,
        resolver,
        extra_builtins,
        mcp_tools,
        SharedSandbox::default(),
    )
}

/// [`session_pool`] whose Bash runs commands as `sandbox` says (issue 24;
/// see [`crate::sandbox`]).
pub fn session_pool_sandboxed(
    session_dir: &Path,
    emitter: Emitter,
    resolver: &dyn PermissionResolver,
    extra_builtins: Vec<Arc<dyn gatehouse_core::Tool>>,
    mcp_tools: Vec<Arc<dyn gatehouse_core::Tool>>,
    sandbox: SharedSandbox,
) -> SessionTools {
    let tasks = TaskManager::new(session_dir.join("tasks"), emitter);
    let mut bash = BashConfig::new(session_dir.join("bash"));
    bash.classifier = Arc::new(EngineShellClassifier);
    bash.sandbox = sandbox;
    let mut registry = Registry::new(GateContext::from_process(Vec::new()));
    // SendMessage reaches background agents, which run as tasks of the
    // same manager as Bash's.
    let send = gatehouse_core::typed::Typed::arc(SendMessageTool::new(Arc::clone(&tasks)));
    for tool in file_tools(FileStateCache::new())
        .into_iter()
        .chain(shell_tools(Arc::clone(&tasks), bash))
        .chain(std::iter::once(send))
        .chain(talkback_tools())
        .chain(std::iter::once(
            gatehouse_tools::tool_search::tool_search_tool(),
        ))
    {
        registry.register(tool, Gate::Always);
    }
    // WebFetch is in every pool (permission decides each host); WebSearch
    // comes with the session's provider through `extra_builtins`, and so
    // does the session's own WebFetch (with its small model), which then
    // replaces this default one.
    let own_fetch = extra_builtins
        .iter()
        .any(|t| t.name() == gatehouse_core::names::WEB_FETCH);
    if !own_fetch {
        match gatehouse_tools::web::WebFetchTool::new(
            gatehouse_tools::web::WebFetchConfig::default(),
        ) {
            Ok(fetch) => {
                registry.register(gatehouse_core::typed::Typed::arc(fetch), Gate::Always);
            }
            Err(e) => eprintln!("gatehouse: WebFetch is not available: {e}"),
        }
    }
    for tool in extra_builtins {
        registry.register(tool, Gate::Always);
    }
    SessionTools {
        pool: Arc::new(registry.assemble_pool(resolver, mcp_tools)),
        tasks,
    }
}

/// Where a session's permission engine reads its settings from.
#[derive(Debug, Clone)]
pub struct EngineSetup {
    /// The project root (its `.claude/settings*.json`), also the cwd.
    pub project: PathBuf,
    /// The home directory (`~/.claude/settings.json`).
    pub home: PathBuf,
    /// The mode asked for; `None` uses the settings' `defaultMode`.
    pub mode: Option<PermissionMode>,
    /// Whether the user trusts the project (its allow rules apply).
    pub trust_project: bool,
    /// Extra settings files given on the command line.
    pub settings_files: Vec<PathBuf>,
}

/// Loads the settings and builds the engine. Problems in settings files are
/// returned (file, line, column, cause) for the caller to show; the engine
/// already fails closed on them.
pub fn load_engine(setup: &EngineSetup) -> (PermissionEngine, Vec<SettingsError>) {
    let settings = load_settings(setup);
    let errors = settings.errors.clone();
    let mode = setup
        .mode
        .or(settings.default_mode)
        .unwrap_or(PermissionMode::Default);
    let engine = PermissionEngine::new(
        EngineContext {
            cwd: setup.project.clone(),
            home: setup.home.clone(),
            additional_dirs: Vec::new(),
            mode,
        },
        settings,
    );
    (engine, errors)
}

/// Loads the settings of `setup` (again, e.g. after "always allow" wrote a
/// rule), for [`PermissionEngine::replace_settings`].
pub fn load_settings(setup: &EngineSetup) -> LoadedSettings {
    load(&settings_layout(setup))
}

/// The settings files a session of `setup` reads (to load or watch them).
pub fn settings_layout(setup: &EngineSetup) -> SettingsLayout {
    // The OS-wide managed policy always applies.
    let (managed_file, managed_dropin_dir) = os_managed_policy_paths();
    SettingsLayout {
        project_dir: setup.project.clone(),
        home_dir: setup.home.clone(),
        managed_file: Some(managed_file),
        managed_dropin_dir: Some(managed_dropin_dir),
        flag_files: setup.settings_files.clone(),
        flag_rules: Vec::new(),
        project_trusted: setup.trust_project,
    }
}

/// Answers every permission prompt the same way (headless runs:
/// `gatehouse-cli run --ask allow|deny`), and the tools that need the user
/// from a script: AskUserQuestion from `--answer 'Header=Option'` pairs
/// (without one for every question: "no user to ask"), ExitPlanMode from
/// `--ask` (allow approves the plan into default mode, deny keeps planning).
#[derive(Debug, Clone)]
pub struct StaticAsk {
    allow: bool,
    answers: Vec<(String, String)>,
}

impl StaticAsk {
    /// Allows every prompted call once.
    pub fn allow() -> Self {
        Self {
            allow: true,
            answers: Vec::new(),
        }
    }

    /// Denies every prompted call, telling the model nobody could approve it.
    pub fn deny() -> Self {
        Self {
            allow: false,
            answers: Vec::new(),
        }
    }

    /// Answers AskUserQuestion with these `(header, option)` pairs.
    pub fn with_answers(mut self, answers: Vec<(String, String)>) -> Self {
        self.answers = answers;
        self
    }

    fn reply(&self, interaction: &Interaction) -> InteractionReply {
        match interaction {
            Interaction::Questions { questions } => {
                match scripted_answers(questions, &self.answers) {
                    Ok(answers) => InteractionReply::Answers { answers },
                    Err(missing) => InteractionReply::Unanswered {
                        reason: format!(
                            "there is no user to ask in this headless run, and no --answer was given for {}",
                            missing
                                .iter()
                                .map(|h| format!("\"{h}\""))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    },
                }
            }
            Interaction::PlanApproval { .. } if self.allow => InteractionReply::PlanApproved {
                mode: PermissionMode::Default,
            },
            Interaction::PlanApproval { .. } => InteractionReply::KeepPlanning {
                feedback: Some(
                    "This is a headless run and nobody can approve the plan (--ask deny).".into(),
                ),
            },
        }
    }
}

#[async_trait::async_trait]
impl gatehouse_core::ask::AskHandler for StaticAsk {
    async fn ask(
        &self,
        request: gatehouse_core::ask::AskRequest,
    ) -> gatehouse_core::ask::AskAnswer {
        if let Some(interaction) = &request.interaction {
            return gatehouse_core::ask::AskAnswer::Reply(self.reply(interaction));
        }
        if self.allow {
            gatehouse_core::ask::AskAnswer::AllowOnce
        } else {
            gatehouse_core::ask::AskAnswer::Deny {
                feedback: Some(
                    "This is a headless run and nobody can approve the call (--ask deny).".into(),
                ),
            }
        }
    }
}
