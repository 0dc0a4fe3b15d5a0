//! Built-in tool names and the named tool sets for sub-agents (SPEC §2).
//!
//! Names live here, not in the tools, so the registry, the sets below and
//! the permission engine agree on spelling before the tools exist.

/// `Agent`: start a sub-agent.
pub const AGENT: &str = "Agent";
/// `AskUserQuestion`.
pub const ASK_USER_QUESTION: &str = "AskUserQuestion";
/// `Bash`.
pub const BASH: &str = "Bash";
/// `Edit`.
pub const EDIT: &str = "Edit";
/// `EnterPlanMode`.
pub const ENTER_PLAN_MODE: &str = "EnterPlanMode";
/// `EnterWorktree`.
pub const ENTER_WORKTREE: &str = "EnterWorktree";
/// `ExitPlanMode`.
pub const EXIT_PLAN_MODE: &str = "ExitPlanMode";
/// `ExitWorktree`.
pub const EXIT_WORKTREE: &str = "ExitWorktree";
/// `Glob`.
pub const GLOB: &str = "Glob";
/// `Grep`.
pub const GREP: &str = "Grep";
/// `ListMcpResources`.
pub const LIST_MCP_RESOURCES: &str = "ListMcpResources";
/// `NotebookEdit`.
pub const NOTEBOOK_EDIT: &str = "NotebookEdit";
/// `PowerShell` (Windows only).
pub const POWERSHELL: &str = "PowerShell";
/// `Read`.
pub const READ: &str = "Read";
/// `ReadMcpResource`.
pub const READ_MCP_RESOURCE: &str = "ReadMcpResource";
/// `SendMessage`.
pub const SEND_MESSAGE: &str = "SendMessage";
/// `Skill`.
pub const SKILL: &str = "Skill";
/// `TaskOutput`.
pub const TASK_OUTPUT: &str = "TaskOutput";
/// `TaskStop`.
pub const TASK_STOP: &str = "TaskStop";
/// `TodoWrite`.
pub const TODO_WRITE: &str = "TodoWrite";
/// `ToolSearch`.
pub const TOOL_SEARCH: &str = "ToolSearch";
/// `WebFetch`.
pub const WEB_FETCH: &str = "WebFetch";
/// `WebSearch`.
pub const WEB_SEARCH: &str = "WebSearch";
/// `Write`.
pub const WRITE: &str = "Write";

/// The prefix of every MCP tool name (`mcp__<server>__<tool>`).
pub const MCP_PREFIX: &str = "mcp__";

/// The tools of simple mode.
pub const SIMPLE_MODE_TOOLS: &[&str] = &[BASH, READ, EDIT];

/// Tools no sub-agent may use: they need the main thread (plan mode, the
/// user, the task registry) or would recurse.
pub const ALL_AGENT_DISALLOWED_TOOLS: &[&str] = &[
    TASK_OUTPUT,
    ENTER_PLAN_MODE,
    EXIT_PLAN_MODE,
    ASK_USER_QUESTION,
    TASK_STOP,
    AGENT,
];

/// The only built-ins a background (asynchronous) agent may use.
pub const ASYNC_AGENT_ALLOWED_TOOLS: &[&str] = &[
    READ,
    WEB_SEARCH,
    TODO_WRITE,
    GREP,
    WEB_FETCH,
    GLOB,
    BASH,
    POWERSHELL,
    EDIT,
    WRITE,
    NOTEBOOK_EDIT,
    SKILL,
    TOOL_SEARCH,
    ENTER_WORKTREE,
    EXIT_WORKTREE,
];

/// The only tools a coordinator may use: it delegates, it does not work.
pub const COORDINATOR_MODE_ALLOWED_TOOLS: &[&str] = &[AGENT, TASK_STOP, SEND_MESSAGE];
