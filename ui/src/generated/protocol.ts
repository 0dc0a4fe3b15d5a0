// Generated from src-tauri/protocol by `cargo xtask gen-types`. Do not edit by hand.
// `cargo xtask test` fails when this file is stale.

/**
 * Arguments of `add_project`.
 */
export type AddProjectArgs = { 
/**
 * The folder to add; it must exist. Stored canonicalised.
 */
path: string, };

/**
 * Arguments of `answer_claude_code_ask`.
 */
export type AnswerClaudeCodeAskArgs = { 
/**
 * The ask's `request_id`.
 */
request_id: string, 
/**
 * The answer; `None` dismisses it (Claude Code asks in its terminal).
 */
answer: PermissionAnswer | null, };

/**
 * Arguments of `answer_interaction`.
 */
export type AnswerInteractionArgs = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The call whose question is answered.
 */
tool_use_id: string, 
/**
 * The reply.
 */
reply: InteractionReply, };

/**
 * Arguments of `answer_permission`.
 */
export type AnswerPermissionArgs = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The call whose prompt is answered.
 */
tool_use_id: string, 
/**
 * The answer.
 */
answer: PermissionAnswer, };

/**
 * Whether a provider has a key, and where it comes from (never the key).
 */
export type ApiKeyStatus = { 
/**
 * The provider.
 */
provider: string, 
/**
 * `keychain`, `env`, or `None` when no key is available.
 */
source: string | null, };

/**
 * Facts about the running backend, shown in the UI and used by the smoke test.
 */
export type AppInfo = { 
/**
 * The Gatehouse version (the crate version).
 */
version: string, 
/**
 * The data directory in use (platform default or `GATEHOUSE_DATA_DIR`).
 */
data_dir: string, 
/**
 * Path of the SQLite database inside the data directory.
 */
database_path: string, 
/**
 * True when the app was launched by `cargo xtask run --smoke`: the UI
 * reports back with `smoke_report` once it has loaded.
 */
smoke: boolean, 
/**
 * Why the database could not be opened (damaged, from a newer
 * Gatehouse, unwritable), if it could not. The UI shows it and touches
 * nothing; the file is left as it was.
 */
database_error: string | null, 
/**
 * The folder named on the command line (`gatehouse FOLDER`), for the
 * window to open at start; canonical when it exists, as given when not
 * (opening it then says what is wrong).
 */
launch_folder: string | null, };

/**
 * The app's own settings, kept in `<data dir>/settings.json` beside the
 * database whose projects they name.
 */
export type AppSettings = { 
/**
 * First run is over (finished or skipped): it is not shown again.
 */
onboarding_done: boolean, 
/**
 * The provider new sessions start with; `None` until one is chosen.
 */
provider: ProviderSetting | null, 
/**
 * The model per provider.
 */
default_models: DefaultModels, 
/**
 * The permission mode new sessions start in.
 */
default_mode: PermissionMode, 
/**
 * The folder of the project open when the app last closed a session
 * view, reopened at start.
 */
last_project: string | null, };

/**
 * Example commands for a Bash rule, decided by the real matcher.
 */
export type BashExamples = { 
/**
 * Commands the rule matches.
 */
matching: Array<string>, 
/**
 * Similar commands it does not match.
 */
not_matching: Array<string>, };

/**
 * How one Bash command relates to the session's sandbox (issue 24).
 */
export type BashSandboxUse = { "state": "sandboxed", 
/**
 * What it may write (canonical folders).
 */
writable_roots: Array<string>, 
/**
 * Its network.
 */
network: SandboxNetwork, 
/**
 * With [`SandboxNetwork::Proxy`]: the domain patterns the proxy
 * lets through (`example.com`, `*.example.com`), normalised.
 */
allowed_domains?: Array<string>, 
/**
 * Whether refused writes are reported (a `blocked` progress
 * event): false when `gatehouse-sandbox-exec` is not installed
 * beside Gatehouse, and in events stored by earlier builds. The
 * writes are refused either way.
 */
reports_blocked_writes: boolean, } | { "state": "excluded" } | { "state": "disabled_by_call" } | { "state": "unavailable", 
/**
 * Why, and how to fix it, in words (for people and older readers).
 */
reason: string, 
/**
 * Why, typed (absent in events stored by earlier builds).
 */
why?: SandboxUnavailable, };

/**
 * How many calls went from one decision to another.
 */
export type ChangeCount = { 
/**
 * The decision the calls got when they ran.
 */
from: PermissionBehavior, 
/**
 * The decision the replayed rules give.
 */
to: PermissionBehavior, 
/**
 * How many calls.
 */
count: number, };

/**
 * Arguments of `check_rule_edits`.
 */
export type CheckRuleEditsArgs = { 
/**
 * The project.
 */
project_id: number, 
/**
 * The unsaved edits.
 */
edits: RuleEdits, };

/**
 * A Claude Code tool call waiting for the user, as the permission modal
 * shows it (origin Claude Code).
 */
export type ClaudeCodeAsk = { 
/**
 * Claude Code's session id (also the Gatehouse session recording it).
 */
session_id: string, 
/**
 * Claude Code's id of the call.
 */
tool_use_id: string, 
/**
 * The tool.
 */
tool_name: string, 
/**
 * Its input.
 */
input: JsonValue, 
/**
 * The project (Claude Code's `CLAUDE_PROJECT_DIR`, else its cwd).
 */
project: string, 
/**
 * Why Gatehouse's engine would ask.
 */
reason: DecisionReason, 
/**
 * Every layer consulted.
 */
trace: Array<TraceStep>, 
/**
 * Rules "for this session" / "always" would add (Claude Code syntax).
 */
suggestions: Array<string>, 
/**
 * The change an Edit/Write would make.
 */
preview: FileDiff | null, };

/**
 * A Claude Code ask for the window's permission modal, with what it needs
 * to answer it: the id to answer with and where "always allow" can write.
 */
export type ClaudeCodeAskShown = { 
/**
 * What `answer_claude_code_ask` names.
 */
request_id: string, 
/**
 * The ask.
 */
ask: ClaudeCodeAsk, 
/**
 * The settings files "always allow" can write to (Claude Code's own,
 * in its syntax), the first the default.
 */
rule_files: Array<RuleFile>, };

/**
 * A Claude Code ask shown with [`ClaudeCodeAskShown`] that can no longer
 * be answered: the modal drops it.
 */
export type ClaudeCodeAskWithdrawn = { 
/**
 * The ask's `request_id`.
 */
request_id: string, 
/**
 * Why.
 */
reason: ClaudeCodeAskWithdrawnReason, };

/**
 * Why a shown Claude Code ask stopped waiting without an answer from the
 * window.
 */
export type ClaudeCodeAskWithdrawnReason = "hook_gone" | "timed_out";

/**
 * Settings → Claude Code: the guard's status and what the switch installs.
 */
export type ClaudeCodeGuard = { 
/**
 * Where the entries are and the last call.
 */
status: GuardStatus, 
/**
 * The user's settings file ("every project").
 */
user_file: string, 
/**
 * Whether the user's file holds an entry for every guarded event.
 */
user_guarded: boolean, 
/**
 * The `gatehouse-cli` the entries run (installed beside the app).
 */
cli: string | null, 
/**
 * Why the switch cannot install entries (no `gatehouse-cli` beside
 * the app); `None` when it can.
 */
cli_problem: string | null, };

/**
 * Arguments of `claude_code_guard`.
 */
export type ClaudeCodeGuardArgs = { 
/**
 * A project whose local settings file is also looked at.
 */
project: string | null, };

/**
 * What `discover_claude_transcripts` found.
 */
export type ClaudeDiscovery = { 
/**
 * The folder searched (`<home>/.claude/projects`).
 */
root: string, 
/**
 * The transcripts, sessions first then sub-agents.
 */
transcripts: Array<DiscoveredTranscript>, };

/**
 * A Claude Code transcript found under `~/.claude/projects`.
 */
export type ClaudeTranscript = { 
/**
 * The file.
 */
path: string, 
/**
 * The project folder's name under `projects/` (Claude Code's encoding
 * of the project path).
 */
project_dir: string, 
/**
 * The Gatehouse session id it imports into: `cc-<file stem>`, or
 * `cc-<session>-<agent file stem>` for a sub-agent.
 */
session_id: string, 
/**
 * For a sub-agent transcript, the session id of its parent.
 */
parent_session_id: string | null, 
/**
 * Its size in bytes.
 */
size_bytes: number, };

/**
 * The error every command returns on failure: a message that says what went
 * wrong and where, ready to show to the user.
 */
export type CommandError = { 
/**
 * Human-readable explanation, including the path or value at fault.
 */
message: string, };

/**
 * How a compaction went (`vacuum_database`, `gatehouse-cli sessions
 * vacuum`).
 *
 * A database compacts in short steps, each its own write transaction, so
 * open sessions keep writing between them; a database created by an
 * earlier version needs one full rewrite first (see [`FullRewrite`]).
 */
export type Compaction = { 
/**
 * The steps taken (search index merges, batches of free pages
 * returned to the file system, or the one full rewrite).
 */
steps: number, 
/**
 * Bytes of free pages given back to the file system.
 */
freed_bytes: number, 
/**
 * Whether the write-ahead log was folded into the database and
 * emptied; `false` when a session was reading or writing at that
 * moment (it is folded in later, as sessions write).
 */
wal_truncated: boolean, 
/**
 * Whether it stopped early because it was asked to; what was done
 * until then stays done.
 */
cancelled: boolean, 
/**
 * The one full rewrite a database of an earlier version needs.
 */
full_rewrite: FullRewrite, };

/**
 * Why a connection test failed.
 */
export type ConnectionFailure = "no_key" | "bad_key" | "no_network" | "wrong_url" | "invalid_url" | "other";

/**
 * The outcome of `test_provider_connection`.
 */
export type ConnectionTest = { 
/**
 * `None` when the provider answered as expected.
 */
failure: ConnectionFailure | null, 
/**
 * What happened, naming the address (never the key).
 */
message: string, 
/**
 * The models the server lists (OpenAI-compatible servers; Anthropic's
 * `/v1/models`), when it answered.
 */
models: Array<string>, };

/**
 * A block of tool_result content, in the Anthropic Messages API's shape.
 */
export type ContentBlock = { "type": "text", 
/**
 * The text.
 */
text: string, } | { "type": "image", 
/**
 * The image data and type.
 */
source: ImageSource, } | { "type": "tool_reference", 
/**
 * The tool's name (`mcp__github__create_issue`).
 */
tool_name: string, };

/**
 * Where the text of a `context_added` came from.
 */
export type ContextSource = "task_notification" | "agent_message" | "stop_hook_feedback";

/**
 * The outcome of `reset_database`: where the damaged file went.
 */
export type DatabaseReset = { 
/**
 * The files set aside (the database and its `-wal` / `-shm`), renamed
 * with a timestamp in the data directory.
 */
kept_as: Array<string>, };

/**
 * How a session's permission decisions went.
 */
export type DecisionBreakdown = { 
/**
 * Allowed by a rule, a mode or a hook without asking.
 */
allowed: number, 
/**
 * Asked the user (each ask is also counted in its answer below).
 */
asked: number, 
/**
 * Refused by a rule, a mode or a hook without asking.
 */
denied: number, 
/**
 * Asks the user allowed (once, for the session, or always).
 */
user_allowed: number, 
/**
 * Asks the user refused (an interrupt refuses too).
 */
user_denied: number, 
/**
 * Calls with no recorded decision (imports that carry none, calls
 * rejected before the permission check).
 */
undecided: number, };

/**
 * Why a decision came out the way it did.
 */
export type DecisionReason = { "kind": "rule", 
/**
 * The rule as written, e.g. `Bash(npm test:*)`.
 */
rule: string, 
/**
 * Which source it came from.
 */
source: RuleSource, 
/**
 * The settings file it was read from, when it came from a file.
 */
file: string | null, } | { "kind": "hook", 
/**
 * The hook's name or command.
 */
hook: string, 
/**
 * The reason the hook gave, if any.
 */
message: string | null, } | { "kind": "mode", 
/**
 * The mode in force.
 */
mode: PermissionMode, } | { "kind": "safety_check", 
/**
 * What the check found.
 */
message: string, } | { "kind": "working_directory", 
/**
 * The path at issue.
 */
path: string, } | { "kind": "tool_check", 
/**
 * What the tool found.
 */
message: string, } | { "kind": "user_answer", 
/**
 * The answer, e.g. "allow once" or "deny: <feedback>".
 */
answer: string, } | { "kind": "default", 
/**
 * Explanation of the default.
 */
message: string, };

/**
 * The model each provider starts with when the start form names none.
 */
export type DefaultModels = { 
/**
 * Anthropic's model, e.g. `claude-sonnet-4-5`.
 */
anthropic: string, 
/**
 * The OpenAI-compatible server's model; empty until one is chosen.
 */
openai: string, };

/**
 * Arguments of `delete_sessions`.
 */
export type DeleteSessionsArgs = { 
/**
 * The sessions to delete (their sub-agent sessions go with them).
 */
session_ids: Array<string>, };

/**
 * One changed region, like a unified diff's `@@ -a,b +c,d @@` hunk.
 */
export type DiffHunk = { 
/**
 * First line of the hunk in the old file (1-based; 0 when the old
 * side is empty).
 */
old_start: number, 
/**
 * Number of old-file lines in the hunk.
 */
old_lines: number, 
/**
 * First line of the hunk in the new file (1-based; 0 when the new
 * side is empty).
 */
new_start: number, 
/**
 * Number of new-file lines in the hunk.
 */
new_lines: number, 
/**
 * The lines, in order.
 */
lines: Array<DiffLine>, };

/**
 * One line of a hunk.
 */
export type DiffLine = { 
/**
 * Context, removed or added.
 */
kind: DiffLineKind, 
/**
 * Its line number in the old file (absent for added lines).
 */
old_line: number | null, 
/**
 * Its line number in the new file (absent for removed lines).
 */
new_line: number | null, 
/**
 * The text, without its line terminator.
 */
text: string, };

/**
 * The role of a line in a hunk.
 */
export type DiffLineKind = "context" | "removed" | "added";

/**
 * A Claude Code transcript as the import panel lists it.
 */
export type DiscoveredTranscript = { 
/**
 * Bytes of it imported already (`None`: never imported). Equal to
 * its size when nothing new is there.
 */
imported_bytes: number | null, 
/**
 * The file.
 */
path: string, 
/**
 * The project folder's name under `projects/` (Claude Code's encoding
 * of the project path).
 */
project_dir: string, 
/**
 * The Gatehouse session id it imports into: `cc-<file stem>`, or
 * `cc-<session>-<agent file stem>` for a sub-agent.
 */
session_id: string, 
/**
 * For a sub-agent transcript, the session id of its parent.
 */
parent_session_id: string | null, 
/**
 * Its size in bytes.
 */
size_bytes: number, };

/**
 * One event of one session.
 */
export type Event = { 
/**
 * The session the event belongs to.
 */
session_id: string, 
/**
 * When it happened, in milliseconds since the Unix epoch.
 */
ts_ms: number, } & ({ "type": "tool_queued", 
/**
 * The model's id for the call.
 */
tool_use_id: string, 
/**
 * The tool name as the model wrote it.
 */
name: string, 
/**
 * The input as the model wrote it.
 */
input: JsonValue, 
/**
 * Whether the call changes nothing (the tool's `is_read_only` for
 * this input; for an MCP tool, its trusted `readOnlyHint`). False
 * when the tool is unknown or the input invalid, and in events of
 * builds before it existed. Front ends group reads by it.
 */
read_only: boolean, } | { "type": "tool_started", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * Index of the batch (within the assistant message) it runs in.
 */
batch: number, 
/**
 * Whether it runs beside other calls (a concurrency-safe batch).
 */
concurrent: boolean, } | { "type": "permission_decided", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * The verdict.
 */
decision: PermissionBehavior, 
/**
 * What settled it.
 */
reason: DecisionReason, 
/**
 * Every layer consulted.
 */
trace: Array<TraceStep>, } | { "type": "permission_requested", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * The tool's canonical name.
 */
tool_name: string, 
/**
 * The input the user is asked to judge.
 */
input: JsonValue, 
/**
 * Why the engine asks.
 */
reason: DecisionReason, 
/**
 * Every layer consulted.
 */
trace: Array<TraceStep>, 
/**
 * Rules that "allow for this session" / "always allow" would add —
 * one per sub-command for a compound shell command.
 */
suggestions: Array<string>, 
/**
 * The same rules for the user's own settings file (read in every
 * project): paths relative to the project made absolute (`//…`).
 * Absent in events stored before it existed.
 */
user_suggestions?: Array<string>, 
/**
 * The change an Edit/Write/NotebookEdit would make, when the tool
 * can preview it.
 */
preview: FileDiff | null, 
/**
 * The sub-agent whose call this is (the prompt is the session's,
 * the call is in the sub-agent's session); absent for the
 * session's own calls and in events stored before it existed.
 */
agent?: SubagentRef, 
/**
 * For WebFetch: the host the URL reaches (WHATWG-parsed, lowercased,
 * punycode), which a domain rule would name; absent otherwise.
 */
web_host?: string, } | { "type": "permission_answered", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * The answer.
 */
answer: PermissionAnswer, } | { "type": "interaction_requested", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * The tool's canonical name.
 */
tool_name: string, 
/**
 * What the user is asked.
 */
interaction: Interaction, } | { "type": "interaction_answered", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * The reply.
 */
reply: InteractionReply, } | { "type": "session_rules_added", 
/**
 * The rule texts, e.g. `Bash(npm test)`.
 */
rules: Array<string>, } | { "type": "mode_changed", 
/**
 * The new mode.
 */
mode: PermissionMode, } | { "type": "settings_reloaded", 
/**
 * Whether the settings just read are now in force.
 */
applied: boolean, 
/**
 * What made the session read them.
 */
trigger: SettingsReloadTrigger, 
/**
 * Problems found in the files (also when applied).
 */
problems: Array<SettingsProblem>, } | { "type": "mcp_servers_changed", 
/**
 * Servers that run now and did not before (added, enabled,
 * approved), sorted.
 */
started: Array<string>, 
/**
 * Servers that ran and do not any more (removed, disabled), sorted;
 * their tools are gone from the session.
 */
stopped: Array<string>, 
/**
 * Servers whose configuration changed, started again, sorted.
 */
restarted: Array<string>, } | { "type": "tool_progress", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * What it reported, tagged by `kind`.
 */
data: ToolProgressData, } | { "type": "tool_completed", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * How the call ended. Front ends read this, never the text.
 */
status: ToolCallStatus, 
/**
 * Whether the result is an error (as the model is told; true for
 * every status but `ok`).
 */
is_error: boolean, 
/**
 * The tool_result content sent to the model.
 */
content: Array<ContentBlock>, 
/**
 * Wall time from start to completion.
 */
duration_ms: number, 
/**
 * Where the full result was written when it exceeded the budget.
 */
persisted_path: string | null, } | { "type": "tool_input_rejected", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * The stage that refused it.
 */
stage: RejectionStage, 
/**
 * What was wrong, as sent to the model.
 */
message: string, } | { "type": "hook_ran", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * Which hook event it ran for.
 */
hook_event: HookEventName, 
/**
 * The hook's name (or command, for command hooks).
 */
hook: string, 
/**
 * The permission decision it returned, if any (PreToolUse only).
 */
decision: PermissionBehavior | null, 
/**
 * Whether it blocked the call (or, after the call, the turn).
 */
blocked: boolean, 
/**
 * Whether it rewrote the call's input.
 */
input_updated: boolean, 
/**
 * Its reason, block message or additional context, if any.
 */
message: string | null, 
/**
 * Set when the hook itself failed; such a failure never blocks.
 */
error: string | null, 
/**
 * What ran, from which settings file, how long it took and what it
 * printed (hooks from settings files; `null` for in-process hooks
 * and in events of builds before it existed).
 */
run?: HookRun | null, } | { "type": "hooks_loaded", 
/**
 * Handlers that run.
 */
active: number, 
/**
 * Handlers read but not run, with why.
 */
not_run: Array<HookNotRun>, 
/**
 * Malformed entries and unknown event names.
 */
problems: Array<SettingsProblem>, 
/**
 * `None` at start; what made the session read them again otherwise.
 */
trigger: SettingsReloadTrigger | null, } | { "type": "tools_unavailable", 
/**
 * The tools and why.
 */
tools: Array<UnavailableTool>, } | { "type": "sandbox_unavailable", 
/**
 * Why, the details and how to fix it.
 */
unavailable: SandboxUnavailable, } | { "type": "sandbox_settings_read", 
/**
 * The sandbox now.
 */
state: SessionSandboxState, 
/**
 * Problems in the `sandbox` keys read (wrong shapes, keys
 * Gatehouse does not support, writable roots that do not exist),
 * with file, line and column.
 */
problems: Array<SettingsProblem>, 
/**
 * False at start, true after a settings change.
 */
reloaded: boolean, } | { "type": "context_modified", 
/**
 * The call that returned it.
 */
tool_use_id: string, 
/**
 * What the modifier does.
 */
description: string, 
/**
 * Whether it was applied.
 */
applied: boolean, } | { "type": "task_started", 
/**
 * The task's id, as TaskOutput, TaskStop and SendMessage take it
 * (`bash_<n>` or `agent_<n>`, one numbering per session).
 */
task_id: string, 
/**
 * What the task runs (`process` in events of builds before agents
 * ran as tasks; always written now).
 */
kind?: TaskKind, 
/**
 * The Bash or Agent call that started it.
 */
tool_use_id: string | null, 
/**
 * The command line (an agent: its type and task description).
 */
command: string, 
/**
 * An agent task's own session (its transcript); `null` for processes.
 */
agent_session_id?: string | null, 
/**
 * An agent task's type (`general-purpose`, `Explore`, …).
 */
subagent_type?: string | null, 
/**
 * The model's description of the command, if it gave one.
 */
description: string | null, 
/**
 * Where the task's whole output is being written.
 */
output_path: string, } | { "type": "task_completed", 
/**
 * The task.
 */
task_id: string, 
/**
 * What the task ran (as in its `task_started`).
 */
kind?: TaskKind, 
/**
 * How it ended.
 */
status: TaskStatus, 
/**
 * Its exit code, when it exited rather than being killed.
 */
exit_code: number | null, 
/**
 * Where its whole output is.
 */
output_path: string, 
/**
 * What happened, for people ("exited with code 0", "stopped when
 * the session closed: SIGTERM, then SIGKILL after 3 s").
 */
message: string, } | { "type": "task_output", 
/**
 * The task.
 */
task_id: string, 
/**
 * The new text (UTF-8; a character split across events is held
 * back for the next one).
 */
text: string, 
/**
 * Bytes produced since the previous event that this one does not carry.
 */
skipped_bytes: number, 
/**
 * Bytes the task has produced in all so far.
 */
total_bytes: number, } | { "type": "mcp_server_state", 
/**
 * The server's name as configured.
 */
server: string, 
/**
 * Its state now.
 */
state: McpServerStatus, 
/**
 * What happened, for people (the error, what to do next).
 */
message: string | null, 
/**
 * Its tools' qualified names (`mcp__<server>__<tool>`), sorted;
 * empty unless connected.
 */
tools: Array<string>, } | { "type": "session_started", 
/**
 * The provider (`anthropic`, `openai`, `replay`).
 */
provider: string, 
/**
 * The model name sent to the provider.
 */
model: string, 
/**
 * The project folder the tools work in.
 */
project: string, 
/**
 * Whether the session continues an earlier one (its history was
 * reloaded from the store).
 */
resumed: boolean, } | { "type": "user_prompt", 
/**
 * The prompt text.
 */
text: string, } | { "type": "context_added", 
/**
 * Where the text came from.
 */
source: ContextSource, 
/**
 * The text exactly as the model reads it.
 */
text: string, } | { "type": "tool_block_changed", 
/**
 * Whether deferral is on: deferred tools are listed by name and
 * loaded with ToolSearch.
 */
tool_search: boolean, 
/**
 * Tools whose full definitions the model has: the ones never
 * deferred and the deferred ones loaded so far.
 */
loaded: number, 
/**
 * Deferred tools not loaded yet (listed by name only).
 */
deferred: number, 
/**
 * Bytes of the tool block: the full definitions sent (JSON) plus,
 * with deferral, the list of deferred tools' names.
 */
bytes: number, } | { "type": "model_request_started", 
/**
 * The turn number within the session, from 1.
 */
turn: number, 
/**
 * How many messages of history the request carries.
 */
messages: number, } | { "type": "model_request_retried", 
/**
 * The turn.
 */
turn: number, 
/**
 * Which retry this is, from 1.
 */
attempt: number, 
/**
 * How long the loop waits before retrying.
 */
delay_ms: number, 
/**
 * What went wrong.
 */
error: string, } | { "type": "assistant_text_delta", 
/**
 * The turn.
 */
turn: number, 
/**
 * The content block index within the assistant message.
 */
index: number, 
/**
 * The new text.
 */
text: string, } | { "type": "assistant_thinking_delta", 
/**
 * The turn.
 */
turn: number, 
/**
 * The content block index within the assistant message.
 */
index: number, 
/**
 * The new thinking text.
 */
thinking: string, } | { "type": "assistant_message", 
/**
 * The turn.
 */
turn: number, 
/**
 * The provider's message id, if it gave one.
 */
message_id: string | null, 
/**
 * The content blocks.
 */
content: Array<JsonValue>, 
/**
 * Why the model stopped (`end_turn`, `tool_use`, `max_tokens`, …).
 */
stop_reason: string, } | { "type": "tool_results_returned", 
/**
 * The turn whose tool calls these answer.
 */
turn: number, 
/**
 * The content blocks (tool_result, then any follow-up text).
 */
content: Array<JsonValue>, } | { "type": "usage", 
/**
 * The turn.
 */
turn: number, 
/**
 * Input tokens not read from or written to the cache.
 */
input_tokens: number, 
/**
 * Output tokens.
 */
output_tokens: number, 
/**
 * Input tokens written to the prompt cache.
 */
cache_creation_input_tokens: number, 
/**
 * Input tokens read from the prompt cache.
 */
cache_read_input_tokens: number, } | { "type": "turn_completed", 
/**
 * The turn.
 */
turn: number, 
/**
 * Why the model stopped.
 */
stop_reason: string, 
/**
 * How many tool calls the turn made.
 */
tool_calls: number, 
/**
 * Wall time of the turn (request, stream and tools).
 */
duration_ms: number, } | { "type": "session_error", 
/**
 * What kind of failure.
 */
kind: SessionErrorKind, 
/**
 * What happened, for people.
 */
message: string, 
/**
 * Whether the session can continue with another prompt.
 */
recoverable: boolean, } | { "type": "imported_entry", 
/**
 * The transcript format, e.g. `claude_code`.
 */
source: string, 
/**
 * The entry's own type name (`"unknown"` when it had none).
 */
entry_type: string, 
/**
 * The line of the source file it came from (from 1).
 */
line: number, 
/**
 * The entry exactly as read.
 */
raw: JsonValue, } | { "type": "import_progress", 
/**
 * Files and bytes done so far.
 */
progress: ImportProgress, } | { "type": "session_completed", 
/**
 * How it ended.
 */
status: SessionStatus, 
/**
 * Model requests made.
 */
turns: number, } | { "type": "session_ended", 
/**
 * Why it ended.
 */
reason: SessionEndReason, });

/**
 * The formats a session can be exported in.
 */
export type ExportFormat = "jsonl" | "html";

/**
 * A finished export.
 */
export type ExportResult = { 
/**
 * The file written.
 */
path: string, 
/**
 * Its size in bytes.
 */
bytes: number, };

/**
 * Arguments of `export_session`.
 */
export type ExportSessionArgs = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The file format.
 */
format: ExportFormat, 
/**
 * Where to write; `None` asks the user with the save dialog.
 */
path?: string, };

/**
 * What a file-changing call did to one file.
 */
export type FileDiff = { 
/**
 * The file's absolute (canonical) path.
 */
path: string, 
/**
 * Whether the file was created (it did not exist before).
 */
created: boolean, 
/**
 * The changed regions, in file order, with up to three lines of
 * context around each change.
 */
hunks: Array<DiffHunk>, 
/**
 * Lines added in total.
 */
additions: number, 
/**
 * Lines removed in total.
 */
deletions: number, };

/**
 * The one full rewrite (`VACUUM`) that switches a database created by an
 * earlier version of Gatehouse to compaction in steps.
 */
export type FullRewrite = { "status": "not_needed" } | { "status": "done" } | { "status": "waiting_for_open_sessions", 
/**
 * Sessions open at the time.
 */
open_sessions: number, };

/**
 * Which settings file of Claude Code holds the guard's entries.
 */
export type GuardScope = "user" | "project";

/**
 * Where the guard's entries are, and the last call they made
 * (`gatehouse-cli claude-code status`).
 */
export type GuardStatus = { 
/**
 * Files that hold Gatehouse's entries (user file, the project's local
 * file, and every file `guard` installed into), with their events.
 */
installed: Array<InstalledEntries>, 
/**
 * Files that could not be read (malformed, unreadable): `file:line:col: cause`.
 */
problems: Array<string>, 
/**
 * The last hook call Gatehouse answered.
 */
last_call: LastCall | null, };

/**
 * One change to a file's hooks.
 */
export type HookEditRequest = { "kind": "add", 
/**
 * The event name.
 */
event: string, 
/**
 * The matcher (`None`: all).
 */
matcher: string | null, 
/**
 * The handler object, as Claude Code writes it.
 */
handler: JsonValue, } | { "kind": "replace", 
/**
 * The event it is under now.
 */
event: string, 
/**
 * Its group.
 */
group: number, 
/**
 * Its index in the group.
 */
index: number, 
/**
 * The event it should be under.
 */
new_event: string, 
/**
 * The matcher it should have.
 */
matcher: string | null, 
/**
 * The new handler object.
 */
handler: JsonValue, } | { "kind": "remove", 
/**
 * The event.
 */
event: string, 
/**
 * The group.
 */
group: number, 
/**
 * The index in the group.
 */
index: number, } | { "kind": "set_enabled", 
/**
 * The event.
 */
event: string, 
/**
 * The group.
 */
group: number, 
/**
 * The index in the group.
 */
index: number, 
/**
 * On or off.
 */
enabled: boolean, };

/**
 * One handler of one matcher group.
 */
export type HookEntryView = { 
/**
 * The event name as written.
 */
event: string, 
/**
 * `hooks.<event>[group]`.
 */
group: number, 
/**
 * Index in the group's `hooks` list.
 */
index: number, 
/**
 * The group's matcher as written (`None`: absent, matches all).
 */
matcher: string | null, 
/**
 * Command or HTTP.
 */
handler: HookHandlerKind, 
/**
 * The command (exec form joined by spaces) or the URL.
 */
command: string, 
/**
 * The `if` filter, if any.
 */
if_rule: string | null, 
/**
 * Its timeout in seconds.
 */
timeout_secs: number, 
/**
 * `false`: switched off (`"disabled": true`).
 */
enabled: boolean, 
/**
 * Whether sessions of this project run it.
 */
runs: boolean, 
/**
 * Why it does not run, when it does not.
 */
not_run: HookNotRunReason | null, 
/**
 * The handler object as written in the file (for editing).
 */
definition: JsonValue, 
/**
 * Where the handler starts (line, from 1).
 */
line: number, 
/**
 * Column (characters, from 1).
 */
column: number, };

/**
 * The hook events Gatehouse runs hooks for (Claude Code's names).
 * `hook_ran` events of the session-level ones (prompt, stop, session
 * start/end, notification) have an empty `tool_use_id`.
 */
export type HookEventName = "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest" | "UserPromptSubmit" | "SessionStart" | "SessionEnd" | "Stop" | "Notification";

/**
 * One settings file and its hooks.
 */
export type HookFileView = { 
/**
 * Its path.
 */
path: string, 
/**
 * Its source.
 */
source: RuleSource, 
/**
 * Whether it exists.
 */
exists: boolean, 
/**
 * Whether the editor may change it.
 */
editable: boolean, 
/**
 * Why it may not be changed (managed policy, not JSON, read-only, …).
 */
lock_reason: string | null, 
/**
 * What the file held when read, to detect a change on disk before a
 * save; empty when the file did not exist.
 */
fingerprint: string, 
/**
 * Its hooks in file order (by event name, then group, then index).
 */
hooks: Array<HookEntryView>, };

/**
 * The kind of a settings-file hook handler.
 */
export type HookHandlerKind = "command" | "http";

/**
 * A hook from a settings file that is listed but not run.
 */
export type HookNotRun = { 
/**
 * The event name as written (`PreToolUse`, or one Gatehouse does not fire).
 */
event: string, 
/**
 * The command or URL.
 */
command: string, 
/**
 * The settings file.
 */
file: string, 
/**
 * Where the handler starts (line, from 1).
 */
line: number, 
/**
 * Column (characters, from 1).
 */
column: number, 
/**
 * Why it does not run.
 */
why: string, 
/**
 * Why it does not run, typed (`None` in events of earlier builds).
 */
reason?: HookNotRunReason | null, };

/**
 * Why a hook that was read does not run.
 */
export type HookNotRunReason = "policy_disables_all" | "managed_hooks_only" | "disabled_by_settings" | "untrusted" | "disabled" | "unknown_event";

/**
 * One run of a hook from a settings file, for `hook_ran`.
 */
export type HookRun = { 
/**
 * Command or HTTP.
 */
handler: HookHandlerKind, 
/**
 * The command as written (or the `args` joined by spaces), or the URL.
 */
command: string, 
/**
 * The entry's matcher as written (`None`: absent, matches all).
 */
matcher: string | null, 
/**
 * The settings source the hook is from.
 */
source: RuleSource | null, 
/**
 * The settings file.
 */
file: string | null, 
/**
 * Wall time of the run.
 */
duration_ms: number, 
/**
 * The exit code (command) or HTTP status (http); `None` when it was
 * killed by a signal, timed out or could not start.
 */
exit_code: number | null, 
/**
 * The signal that ended the process, if one did.
 */
signal: number | null, 
/**
 * It did not answer within its timeout (its process group was killed;
 * the call went on as if there were no hook).
 */
timed_out: boolean, 
/**
 * The first KB of its stdout (or response body).
 */
stdout: string, 
/**
 * The first KB of its stderr.
 */
stderr: string, 
/**
 * Output was longer than what is kept here, or over the 1 MiB cap.
 */
output_truncated: boolean, };

/**
 * The outcome of `save_hook_edit`.
 */
export type HookSaveOutcome = { "kind": "saved", 
/**
 * The view after the save.
 */
view: HooksView, } | { "kind": "conflict", 
/**
 * The file.
 */
file: string, 
/**
 * The view as the files are now.
 */
view: HooksView, };

/**
 * How a hook's answer reads, typed.
 */
export type HookTestOutcome = { 
/**
 * allow / ask / deny, if it decided.
 */
decision: PermissionBehavior | null, 
/**
 * It blocks the call (exit 2, or `decision: "block"`).
 */
blocked: boolean, 
/**
 * Its reason, block message or stop reason.
 */
message: string | null, 
/**
 * `additionalContext` (or plain text taken as context).
 */
additional_context: string | null, 
/**
 * `updatedInput`, if it rewrote the call.
 */
updated_input: JsonValue | null, 
/**
 * `systemMessage`.
 */
system_message: string | null, 
/**
 * A non-blocking error (bad JSON, a failing exit, a timeout, no start).
 */
error: string | null, };

/**
 * What a test run of a hook showed.
 */
export type HookTestResult = { 
/**
 * The JSON the hook got on stdin, pretty-printed.
 */
stdin: string, 
/**
 * Its stdout (capped at 1 MiB).
 */
stdout: string, 
/**
 * Its stderr (capped at 1 MiB).
 */
stderr: string, 
/**
 * Its exit code (`None`: a signal, a timeout or no start).
 */
exit_code: number | null, 
/**
 * The signal that ended it.
 */
signal: number | null, 
/**
 * It did not answer within its timeout.
 */
timed_out: boolean, 
/**
 * Wall time.
 */
duration_ms: number, 
/**
 * The resulting decision: what its answer means for the call.
 */
outcome: HookTestOutcome, };

/**
 * Arguments of `hooks_view`.
 */
export type HooksProjectArgs = { 
/**
 * The project's row id.
 */
project_id: number, };

/**
 * Every hook of a project's settings files, by source.
 */
export type HooksView = { 
/**
 * The project.
 */
project: Project, 
/**
 * Whether the project is trusted (project and local hooks run only then).
 */
trusted: boolean, 
/**
 * Every settings file, highest precedence first (missing ones too:
 * hooks can be added to them).
 */
files: Array<HookFileView>, 
/**
 * Malformed hook entries and unknown event names, with file, line and
 * column (malformed entries are never run and not listed in `files`).
 */
problems: Array<SettingsProblem>, 
/**
 * The events Gatehouse fires, for the add form.
 */
events: Array<HookEventName>, };

/**
 * Base64 image data as the Messages API expects it.
 */
export type ImageSource = { 
/**
 * Always `base64`.
 */
type: string, 
/**
 * e.g. `image/png`.
 */
media_type: string, 
/**
 * Base64 data.
 */
data: string, };

/**
 * Arguments of `import_claude_transcripts`.
 */
export type ImportClaudeArgs = { 
/**
 * The files to import (paths from `discover_claude_transcripts`);
 * `None` imports every transcript found.
 */
paths?: Array<string>, };

/**
 * The result of importing one Claude Code transcript.
 */
export type ImportFileReport = { 
/**
 * The file.
 */
path: string, 
/**
 * The session it went into.
 */
session_id: string, 
/**
 * What happened.
 */
outcome: ImportOutcome, 
/**
 * Lines read this time.
 */
lines: number, 
/**
 * Events stored this time.
 */
events: number, 
/**
 * Lines skipped because they were malformed or too long (the first
 * 100 are listed in `problems`).
 */
skipped_lines: number, 
/**
 * The skipped lines, with why.
 */
problems: Array<LineProblem>, };

/**
 * The result of importing one file: its report, or why it failed.
 */
export type ImportFileResult = { 
/**
 * The file.
 */
path: string, 
/**
 * What was imported (with the skipped lines and their line numbers).
 */
report: ImportFileReport | null, 
/**
 * Why the file could not be imported at all (I/O, a clashing id).
 */
error: string | null, };

/**
 * What an import did with one file.
 */
export type ImportOutcome = "imported" | "updated" | "unchanged" | "reimported" | "followed_live";

/**
 * Progress of an import, reported after every batch.
 */
export type ImportProgress = { 
/**
 * The file being read.
 */
path: string, 
/**
 * Files finished so far.
 */
files_done: number, 
/**
 * Files to import.
 */
files_total: number, 
/**
 * Bytes read so far, over all files.
 */
bytes_done: number, 
/**
 * Bytes to read, over all files (their sizes when the import began).
 */
bytes_total: number, };

/**
 * Gatehouse's entries found in one settings file.
 */
export type InstalledEntries = { 
/**
 * The settings file.
 */
file: string, 
/**
 * The events that have an entry, in the guard's event order.
 */
events: Array<string>, 
/**
 * The commands as written (one per entry).
 */
commands: Array<string>, 
/**
 * Whose file it is: the user's (every project) or one project's.
 */
scope: GuardScope, 
/**
 * The project of a project file (`None` for the user's file).
 */
project: string | null, };

/**
 * What the user is asked in place of a plain permission prompt.
 */
export type Interaction = { "kind": "questions", 
/**
 * The questions, in order.
 */
questions: Array<Question>, } | { "kind": "plan_approval", 
/**
 * The plan.
 */
plan: string, };

/**
 * The user's reply to an [`Interaction`].
 */
export type InteractionReply = { "kind": "answers", 
/**
 * In the order of the questions.
 */
answers: Array<QuestionAnswer>, } | { "kind": "unanswered", 
/**
 * Why, for the model ("a headless run without --answer").
 */
reason: string, } | { "kind": "plan_approved", 
/**
 * The mode after plan mode.
 */
mode: PermissionMode, } | { "kind": "keep_planning", 
/**
 * What the user wants changed.
 */
feedback: string | null, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * The result of importing a Gatehouse JSONL export.
 */
export type JsonlImportReport = { 
/**
 * The file.
 */
path: string, 
/**
 * The session created.
 */
session_id: string, 
/**
 * Events stored.
 */
events: number, 
/**
 * Lines skipped (listed in `problems`, the first 100).
 */
skipped_lines: number, 
/**
 * The skipped lines, with why.
 */
problems: Array<LineProblem>, };

/**
 * The last hook call Gatehouse answered.
 */
export type LastCall = { 
/**
 * The hook event (`PreToolUse`…).
 */
event: string, 
/**
 * When, in milliseconds since the Unix epoch.
 */
at_ms: number, 
/**
 * Claude Code's version, read from its transcript (`version` of its
 * entries); `None` when the transcript did not say.
 */
claude_code_version: string | null, 
/**
 * Claude Code's session id.
 */
session_id: string | null, };

/**
 * How a project folder remembered from last time stands now.
 */
export type LastProject = { "kind": "none" } | { "kind": "reopened", 
/**
 * The project.
 */
project: Project, } | { "kind": "missing", 
/**
 * The project as stored.
 */
project: Project, };

/**
 * A line of a transcript that could not be imported (it was skipped).
 */
export type LineProblem = { 
/**
 * The file.
 */
path: string, 
/**
 * Its line number (from 1).
 */
line: number, 
/**
 * What was wrong.
 */
message: string, };

/**
 * Arguments of `list_sessions`: which stored sessions, in what order.
 *
 * Every filter is optional; fields added after the first release are
 * optional in TypeScript too, so older callers keep working.
 */
export type ListSessionsArgs = { 
/**
 * Only sessions of this project folder; all when `None`.
 */
project_path: string | null, 
/**
 * At most this many (default 100).
 */
limit: number | null, 
/**
 * The order (default: most recently active first).
 */
sort?: SessionSort, 
/**
 * Oldest first instead of the sort's natural "biggest/newest first".
 */
ascending?: boolean, 
/**
 * Only sessions that started at or after this time (ms since the epoch).
 */
since_ms?: number, 
/**
 * Only sessions that started before this time (ms since the epoch).
 */
until_ms?: number, 
/**
 * Only sessions with this model name.
 */
model?: string, 
/**
 * `true`: only sessions with at least one denied call; `false`: only
 * sessions without.
 */
had_denials?: boolean, 
/**
 * `true`: only sessions with at least one error (failed call or
 * session error); `false`: only sessions without.
 */
had_errors?: boolean, 
/**
 * Only sessions recorded by Gatehouse, or only imported ones.
 */
origin?: SessionOrigin, };

/**
 * Whether a server may start, as far as approval goes.
 */
export type McpApproval = "not_needed" | "approved" | "pending";

/**
 * A problem in a configuration file (the server is left out).
 */
export type McpConfigProblem = { 
/**
 * The file.
 */
file: string, 
/**
 * The server, when the problem is in one entry.
 */
server: string | null, 
/**
 * What is wrong.
 */
message: string, };

/**
 * Every configured server of a project (not connected).
 */
export type McpPanel = { 
/**
 * The project folder (canonical).
 */
project_path: string, 
/**
 * Servers after precedence (a project server replaces a user one of the
 * same name), sorted by name.
 */
servers: Array<McpServerEntry>, 
/**
 * Problems in the configuration files.
 */
problems: Array<McpConfigProblem>, };

/**
 * Arguments naming a project.
 */
export type McpProjectArgs = { 
/**
 * The project folder.
 */
project_path: string, };

/**
 * Arguments of `mcp_save_server`.
 */
export type McpSaveServerArgs = { 
/**
 * The project folder.
 */
project_path: string, 
/**
 * `gatehouse` or `project` (the editable files).
 */
scope: McpScope, 
/**
 * The server's name before this edit (`None` when adding).
 */
original_name: string | null, 
/**
 * The server as it should be written.
 */
draft: McpServerDraft, };

/**
 * Where a server is configured.
 */
export type McpScope = "user" | "gatehouse" | "project" | "local";

/**
 * Arguments of `mcp_sign_in` and `mcp_sign_out`: which server of which
 * project (the server as the project's MCP configuration names it).
 */
export type McpServerArgs = { 
/**
 * The project folder whose configuration names the server.
 */
project: string, 
/**
 * The server's name.
 */
server: string, };

/**
 * A server as written in a configuration file (values as written, with
 * `${VAR}` unexpanded), for the edit form.
 */
export type McpServerDraft = { 
/**
 * Its name (`mcp__<name>__<tool>`): no `__`.
 */
name: string, 
/**
 * How to reach it.
 */
transport: McpTransportDraft, 
/**
 * Listed but never started.
 */
disabled: boolean, 
/**
 * Trust its tool annotations (only Gatehouse's own list may).
 */
trusted: boolean, };

/**
 * One configured server, from any source.
 */
export type McpServerEntry = { 
/**
 * Its name.
 */
name: string, 
/**
 * Where it is configured.
 */
scope: McpScope, 
/**
 * The file.
 */
file: string, 
/**
 * `stdio` or `http`.
 */
transport: string, 
/**
 * The command line or URL, as written (no secret values).
 */
summary: string, 
/**
 * Turned off.
 */
disabled: boolean, 
/**
 * Its annotations are trusted.
 */
trusted: boolean, 
/**
 * Approval (project servers).
 */
approval: McpApproval, 
/**
 * The entry as written, for editing; `None` for read-only scopes.
 */
draft: McpServerDraft | null, };

/**
 * A server after a probe: its state, tools and stderr tail.
 */
export type McpServerProbe = { 
/**
 * Its name.
 */
name: string, 
/**
 * Its state after connecting (or why it did not start).
 */
state: McpServerStatus, 
/**
 * The error or what to do next.
 */
message: string | null, 
/**
 * Its tools (connected servers).
 */
tools: Array<McpToolView>, 
/**
 * The last lines of its stderr (stdio servers).
 */
stderr: Array<string>, };

/**
 * Arguments naming one server of an editable file.
 */
export type McpServerRefArgs = { 
/**
 * The project folder.
 */
project_path: string, 
/**
 * `gatehouse` or `project`.
 */
scope: McpScope, 
/**
 * The server.
 */
name: string, };

/**
 * The connection state of an MCP server.
 */
export type McpServerStatus = "connecting" | "connected" | "failed" | "needs_auth" | "disabled" | "awaiting_approval";

/**
 * Arguments of `mcp_set_server_disabled`.
 */
export type McpSetDisabledArgs = { 
/**
 * The project folder.
 */
project_path: string, 
/**
 * `gatehouse` or `project`.
 */
scope: McpScope, 
/**
 * The server.
 */
name: string, 
/**
 * True to turn it off.
 */
disabled: boolean, };

/**
 * Result of `mcp_sign_in`.
 */
export type McpSignInResult = { 
/**
 * The server's name.
 */
server: string, 
/**
 * The server's URL.
 */
url: string, 
/**
 * The authorization server that issued the tokens.
 */
issuer: string | null, 
/**
 * The scopes granted.
 */
scopes: Array<string>, 
/**
 * Open sessions' copies of the server that were waiting for a sign-in
 * and now connect again.
 */
reconnected: number, };

/**
 * Result of `mcp_sign_out`.
 */
export type McpSignOutResult = { 
/**
 * The server's name.
 */
server: string, 
/**
 * The server's URL.
 */
url: string, 
/**
 * Whether a sign-in was stored (and is now deleted from the keychain).
 */
signed_out: boolean, };

/**
 * One remote tool with its annotations (hints; trusted only for trusted
 * servers).
 */
export type McpToolView = { 
/**
 * The server's name for it.
 */
name: string, 
/**
 * `mcp__<server>__<tool>`.
 */
qualified_name: string, 
/**
 * Its description.
 */
description: string, 
/**
 * `readOnlyHint`.
 */
read_only: boolean, 
/**
 * `destructiveHint` (MCP default: true).
 */
destructive: boolean, 
/**
 * `openWorldHint` (MCP default: true).
 */
open_world: boolean, };

/**
 * How to reach a server being edited.
 */
export type McpTransportDraft = { "type": "stdio", 
/**
 * The program.
 */
command: string, 
/**
 * Its arguments.
 */
args: Array<string>, 
/**
 * Its extra environment.
 */
env: Array<McpValueDraft>, } | { "type": "http", 
/**
 * The endpoint (`http://` or `https://`).
 */
url: string, 
/**
 * Extra request headers.
 */
headers: Array<McpValueDraft>, };

/**
 * One env variable or header of a server being edited.
 */
export type McpValueDraft = { 
/**
 * The variable or header name.
 */
name: string, 
/**
 * The value. For a secret: a new value to store in the keychain, or
 * `""` to keep the stored one. Never a stored secret when sent by the
 * backend.
 */
value: string, 
/**
 * Kept in the OS keychain; the file holds only the name.
 */
secret: boolean, 
/**
 * For a secret: the keychain holds a value now (set by the backend;
 * ignored when saving).
 */
stored: boolean, };

/**
 * Arguments of a command that takes none.
 */
export type NoArgs = Record<symbol, never>;

/**
 * A rule read from a settings file that matched the call but does not
 * apply.
 */
export type NotAppliedRule = { 
/**
 * The rule as written, e.g. `Edit(./src/greeter.py)`.
 */
rule: string, 
/**
 * Which source it came from.
 */
source: RuleSource, 
/**
 * The settings file it was read from (`path:line:column`).
 */
file: string | null, 
/**
 * Why it does not apply.
 */
why: NotAppliedWhy, };

/**
 * Why a matching rule was not applied.
 */
export type NotAppliedWhy = "project_not_trusted" | "managed_policy_only";

/**
 * Arguments of `open_project`.
 */
export type OpenProjectArgs = { 
/**
 * The project's row id.
 */
id: number, };

/**
 * What `open_task_output` opened.
 */
export type OpenedTaskOutput = { 
/**
 * The task's whole output file.
 */
path: string, };

/**
 * The stream a piece of output came from.
 */
export type OutputStream = "stdout" | "stderr";

/**
 * Project files a path rule matches.
 */
export type PathPreview = { 
/**
 * Matching files, relative to the project (at most 50).
 */
matches: Array<string>, 
/**
 * Files looked at.
 */
scanned: number, 
/**
 * True when the walk or the list stopped at its limit.
 */
truncated: boolean, };

/**
 * The user's answer to a permission prompt.
 */
export type PermissionAnswer = { "kind": "allow_once" } | { "kind": "allow_for_session" } | { "kind": "always_allow", 
/**
 * The rules to add, as edited by the user.
 */
rules: Array<string>, 
/**
 * Which settings file receives them.
 */
destination: RuleSource, } | { "kind": "deny", 
/**
 * Optional feedback passed to the model with the refusal.
 */
feedback: string | null, };

/**
 * The three outcomes of a permission check.
 */
export type PermissionBehavior = "allow" | "ask" | "deny";

/**
 * A complete, explained permission decision.
 */
export type PermissionDecision = { 
/**
 * The verdict.
 */
decision: PermissionBehavior, 
/**
 * What settled it.
 */
reason: DecisionReason, 
/**
 * Every layer consulted, in order.
 */
trace: Array<TraceStep>, };

/**
 * Permission modes, spelled as in Claude Code's settings files.
 */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk";

/**
 * A folder the user opened in Gatehouse, as stored in SQLite.
 */
export type Project = { 
/**
 * Row id, stable for the life of the database.
 */
id: number, 
/**
 * Canonical absolute path of the folder.
 */
path: string, 
/**
 * Display name (the folder's last path component).
 */
name: string, 
/**
 * When the project was first added, in milliseconds since the Unix epoch.
 */
added_at_ms: number, 
/**
 * When the project was last opened, in milliseconds since the Unix epoch.
 */
last_opened_ms: number, 
/**
 * When the user trusted the project (its settings' allow rules apply
 * only then; its deny and ask rules always do), in milliseconds since
 * the Unix epoch; `None` while it is not trusted.
 */
trusted_at_ms: number | null, 
/**
 * Whether the folder has project settings (`.claude/settings.json` or
 * `.claude/settings.local.json`), so trusting it would change anything.
 */
has_project_settings: boolean, };

/**
 * Arguments of `api_key_status` and `delete_api_key`.
 */
export type ProviderArgs = { 
/**
 * `anthropic` or `openai`.
 */
provider: string, };

/**
 * Which model a session talks to. API keys are never part of this: they
 * come from the environment or the OS keychain.
 */
export type ProviderChoice = { "kind": "replay", 
/**
 * Path of a script file; `None` plays the built-in demo script
 * against the project.
 */
script: string | null, } | { "kind": "anthropic", 
/**
 * The model name, e.g. `claude-sonnet-4-5`.
 */
model: string, 
/**
 * Overrides the API base URL (else settings or `ANTHROPIC_BASE_URL`).
 */
base_url: string | null, } | { "kind": "openai", 
/**
 * The model name.
 */
model: string, 
/**
 * The server's base URL, e.g. `http://127.0.0.1:11434/v1`.
 */
base_url: string, };

/**
 * The model provider new sessions start with, chosen at first run or in
 * Settings. Keys are never here: they live in the OS keychain or the
 * environment.
 */
export type ProviderSetting = { "kind": "anthropic", 
/**
 * Another API address than Anthropic's (a proxy); `None`: the
 * default (or `ANTHROPIC_BASE_URL`).
 */
base_url: string | null, } | { "kind": "openai", 
/**
 * The server's base URL, e.g. `http://127.0.0.1:11434/v1`.
 */
base_url: string, } | { "kind": "demo" };

/**
 * One question of an AskUserQuestion call (Claude Code's input shape).
 */
export type Question = { 
/**
 * The full question.
 */
question: string, 
/**
 * A short label (a chip, at most 12 characters), unique in the call;
 * scripted answers name it (`--answer 'Header=Option'`).
 */
header: string, 
/**
 * The 2–4 choices; the user may also type an "Other" answer.
 */
options: Array<QuestionOption>, 
/**
 * Whether several options may be picked.
 */
multiSelect: boolean, };

/**
 * The user's answer to one question.
 */
export type QuestionAnswer = { 
/**
 * The question's header.
 */
header: string, 
/**
 * The labels picked (one unless the question is `multiSelect`).
 */
selected: Array<string>, 
/**
 * The "Other" free-text answer, if the user typed one.
 */
other: string | null, };

/**
 * One option of a question.
 */
export type QuestionOption = { 
/**
 * What the user picks (1–5 words).
 */
label: string, 
/**
 * What picking it means.
 */
description: string, };

/**
 * The pipeline stage that refused a call before it could run.
 */
export type RejectionStage = "malformed" | "lookup" | "schema" | "validate_input";

/**
 * Arguments of `relocate_project`.
 */
export type RelocateProjectArgs = { 
/**
 * The project whose folder is gone.
 */
id: number, 
/**
 * Its new folder.
 */
path: string, };

/**
 * Arguments of `remove_project`.
 */
export type RemoveProjectArgs = { 
/**
 * The project's row id. Its stored sessions are kept.
 */
id: number, };

/**
 * A stored call whose decision changes under the edited rules.
 */
export type ReplayChangedCall = { 
/**
 * Its session.
 */
session_id: string, 
/**
 * Its position in the session (the `tool_queued` event's sequence).
 */
seq: number, 
/**
 * When it was decided (ms since the epoch).
 */
ts_ms: number, 
/**
 * Its session's project folder.
 */
project_path: string, 
/**
 * The mode it was decided in.
 */
mode: PermissionMode, 
/**
 * The tool name.
 */
tool_name: string, 
/**
 * The input.
 */
input: JsonValue, 
/**
 * The decision the saved rules give it (before the edit).
 */
from: PermissionBehavior, 
/**
 * The decision the edited rules give.
 */
to: PermissionBehavior, 
/**
 * The decision it got when it ran (may differ from `from` when rules
 * were saved or trust given since).
 */
recorded: PermissionBehavior, 
/**
 * Why the edited rules decide so.
 */
new_reason: DecisionReason, };

/**
 * Arguments of `replay_rule_edits`.
 */
export type ReplayRuleEditsArgs = { 
/**
 * The project whose edits are replayed.
 */
project_id: number, 
/**
 * The unsaved edits.
 */
edits: RuleEdits, 
/**
 * Which calls.
 */
scope: ReplayScope, 
/**
 * Chosen by the UI; progress events carry it.
 */
replay_id: string, 
/**
 * At most this many changed calls are listed (default 1000).
 */
limit: number | null, };

/**
 * Which stored calls a replay re-decides.
 */
export type ReplayScope = { "kind": "all" } | { "kind": "project" } | { "kind": "date_range", 
/**
 * From (inclusive).
 */
since_ms: number | null, 
/**
 * Until (exclusive).
 */
until_ms: number | null, } | { "kind": "session", 
/**
 * The session.
 */
session_id: string, };

/**
 * Arguments of `resume_session`.
 */
export type ResumeSessionArgs = { 
/**
 * The stored session to continue.
 */
session_id: string, 
/**
 * The model to continue with; `None` continues with the session's own
 * provider and model where that needs nothing more (Anthropic), and is
 * refused otherwise (a replay script or an OpenAI base URL is not
 * stored).
 */
provider: ProviderChoice | null, };

/**
 * The result of `set_retention`.
 */
export type RetentionResult = { 
/**
 * The setting now stored.
 */
retention_days: number | null, 
/**
 * Sessions deleted by applying it.
 */
deleted: Array<string>, };

/**
 * Unsaved edits: the files and sessions whose rules changed.
 */
export type RuleEdits = { 
/**
 * Changed settings files.
 */
files: Array<RuleFileEdit>, 
/**
 * Changed sessions.
 */
sessions: Array<SessionRulesEdit>, };

/**
 * A settings file rules can be saved to ("always allow"), for the UI.
 */
export type RuleFile = { 
/**
 * Which source it is.
 */
source: RuleSource, 
/**
 * Its absolute path.
 */
path: string, };

/**
 * The rule lists of one settings file after editing (the whole lists, not
 * a diff).
 */
export type RuleFileEdit = { 
/**
 * The settings file.
 */
path: string, 
/**
 * The [`RuleFileView::fingerprint`] it had when loaded (empty: it did
 * not exist).
 */
base_fingerprint: string, 
/**
 * `permissions.allow`.
 */
allow: Array<string>, 
/**
 * `permissions.ask`.
 */
ask: Array<string>, 
/**
 * `permissions.deny`.
 */
deny: Array<string>, 
/**
 * `permissions.additionalDirectories`.
 */
additional_directories: Array<string>, };

/**
 * One settings file and its rules.
 */
export type RuleFileView = { 
/**
 * Its path.
 */
path: string, 
/**
 * Its source.
 */
source: RuleSource, 
/**
 * Whether it exists.
 */
exists: boolean, 
/**
 * Whether the editor may change it.
 */
editable: boolean, 
/**
 * Why it may not be changed (managed policy, malformed, too large,
 * read-only, …).
 */
lock_reason: string | null, 
/**
 * What the file held when read, to detect a change on disk before a
 * save; empty when the file did not exist.
 */
fingerprint: string, 
/**
 * The rules, per list, in file order.
 */
rules: Array<RuleView>, 
/**
 * `permissions.additionalDirectories` as written.
 */
additional_directories: Array<string>, 
/**
 * `permissions.defaultMode`, if set.
 */
default_mode: PermissionMode | null, };

/**
 * A rule list of a settings file.
 */
export type RuleList = "allow" | "ask" | "deny";

/**
 * A problem with a rule or a settings file (from the linter).
 */
export type RuleProblem = { 
/**
 * `error` or `warning`.
 */
severity: string, 
/**
 * `settings_error`, `shadowed_by_deny`, `shadowed_by_ask`,
 * `duplicate`, `unknown_tool`, `not_applied`.
 */
code: string, 
/**
 * The file (`<command line>` for flag rules).
 */
file: string, 
/**
 * 1-based line.
 */
line: number, 
/**
 * 1-based column.
 */
column: number, 
/**
 * The rule's list, when about a rule.
 */
list: RuleList | null, 
/**
 * The rule text, when about a rule.
 */
rule: string | null, 
/**
 * What is wrong.
 */
message: string, };

/**
 * Where a permission rule came from, highest precedence first.
 */
export type RuleSource = "policy" | "flag" | "local" | "project" | "user" | "session" | "skill";

/**
 * A rule's syntax error, with the character span to highlight.
 */
export type RuleSyntaxError = { 
/**
 * The parser's message.
 */
message: string, 
/**
 * 1-based character column the parser reported.
 */
column: number, 
/**
 * 0-based character offset where the highlight starts.
 */
start: number, 
/**
 * 0-based character offset just past the highlight.
 */
end: number, };

/**
 * What `validate_rule` found.
 */
export type RuleValidation = { 
/**
 * The syntax error, if the rule does not parse.
 */
error: RuleSyntaxError | null, 
/**
 * The tool the rule names (canonical spelling), when it parses.
 */
tool: string | null, 
/**
 * For path rules: project files the pattern matches.
 */
path_preview: PathPreview | null, 
/**
 * For Bash rules: example commands that match and that do not.
 */
bash_examples: BashExamples | null, };

/**
 * One rule as written in a file or a session.
 */
export type RuleView = { 
/**
 * Its list.
 */
list: RuleList, 
/**
 * The rule text.
 */
text: string, 
/**
 * Stored calls it decided in the last 30 days.
 */
decided_30d: number, };

/**
 * Arguments of `rules_view` and `undo_rules_save`.
 */
export type RulesProjectArgs = { 
/**
 * The project's row id.
 */
project_id: number, };

/**
 * Progress of a replay, emitted on [`RULES_REPLAY_PROGRESS_CHANNEL`].
 */
export type RulesReplayProgress = { 
/**
 * The replay's id.
 */
replay_id: string, 
/**
 * Calls read so far.
 */
done: number, 
/**
 * Calls in scope (counted before the replay starts).
 */
total: number, };

/**
 * What a replay found: the effect of the unsaved edit (each call decided
 * with the saved rules, then with the edited ones) and, apart from it,
 * what changed since the calls were recorded.
 */
export type RulesReplayReport = { 
/**
 * Calls re-decided.
 */
total: number, 
/**
 * Calls the edit does not change.
 */
unchanged: number, 
/**
 * Counts per change the edit makes (saved rules → edited rules), most
 * first.
 */
changes: Array<ChangeCount>, 
/**
 * Not the edit: counts per difference between the decision recorded
 * when a call ran and the saved rules' decision now (recorded →
 * saved), most first.
 */
since_recorded: Array<ChangeCount>, 
/**
 * The calls the edit changes, in store order.
 */
changed_calls: Array<ReplayChangedCall>, 
/**
 * True when more calls changed than are listed.
 */
changed_calls_truncated: boolean, 
/**
 * Problems in the settings read (file:line:column: cause).
 */
settings_errors: Array<string>, 
/**
 * Stored events that could not be read.
 */
unreadable_events: number, };

/**
 * Every rule that applies in a project, by source.
 */
export type RulesView = { 
/**
 * The project.
 */
project: Project, 
/**
 * Whether the project is trusted (its allow rules, additional
 * directories and default mode apply only then).
 */
trusted: boolean, 
/**
 * Every settings file, highest precedence first (missing ones too:
 * rules can be added to them).
 */
files: Array<RuleFileView>, 
/**
 * Sessions of the project with "for this session" rules, newest first.
 */
sessions: Array<SessionRulesView>, 
/**
 * The default mode the merged settings give, if any.
 */
default_mode: PermissionMode | null, 
/**
 * True when some settings disable bypass mode.
 */
bypass_disabled: boolean, 
/**
 * True when the managed policy allows only policy rules to allow.
 */
managed_rules_only: boolean, 
/**
 * The additional working directories in force (resolved paths).
 */
additional_directories: Array<string>, 
/**
 * Tool names for completion (built-in tools, then MCP tools met in
 * stored calls).
 */
tool_names: Array<string>, 
/**
 * Problems of the saved rules (errors and warnings, with places).
 */
problems: Array<RuleProblem>, 
/**
 * Whether the last save of this project can be undone.
 */
can_undo: boolean, };

/**
 * One connection a sandboxed command asked the network proxy for
 * (`sandbox.network.allowedDomains`), in the order asked.
 */
export type SandboxConnection = { 
/**
 * The host asked for, normalised (lower case, no trailing dot).
 */
host: string, 
/**
 * The port.
 */
port: number, 
/**
 * Whether the allowed domains let it through (else it got `403`).
 */
allowed: boolean, 
/**
 * Bytes from the command to the host.
 */
bytes_up: number, 
/**
 * Bytes from the host to the command.
 */
bytes_down: number, 
/**
 * Why an allowed connection failed (resolving, connecting), if it did.
 */
error?: string, };

/**
 * One thing the sandbox refused a command, read from the syscall (seccomp
 * user notifications), not from the command's output.
 */
export type SandboxDenial = { 
/**
 * What was refused.
 */
kind: SandboxDenialKind, 
/**
 * A write: the path, absolute inside the sandbox (the same as on the
 * host: the sandbox binds folders at their own paths). A socket: its
 * address family (`AF_INET`, `AF_INET6`, `AF_NETLINK`, …).
 */
target: string, 
/**
 * The syscall (`openat`, `unlinkat`, `renameat2`, `socket`, …).
 */
syscall: string, };

/**
 * What kind of thing the sandbox refused.
 */
export type SandboxDenialKind = "write" | "network";

/**
 * The `sandbox` settings in force, merged by trust (an untrusted
 * project only tightens; the managed policy can force the sandbox on).
 */
export type SandboxEffectiveSettings = { 
/**
 * `sandbox.enabled`.
 */
enabled: SandboxFlag, 
/**
 * The managed policy turned it on (nothing may turn it off).
 */
forced: boolean, 
/**
 * `sandbox.autoAllowBashIfSandboxed`.
 */
auto_allow: SandboxFlag, 
/**
 * `sandbox.excludedCommands`.
 */
excluded_commands: Array<SandboxEntry>, 
/**
 * `sandbox.filesystem.allowWrite`, resolved.
 */
allow_write: Array<SandboxEntry>, 
/**
 * `sandbox.filesystem.denyRead`, resolved.
 */
deny_read: Array<SandboxEntry>, 
/**
 * `sandbox.network.allowedDomains`, normalised.
 */
allowed_domains: Array<SandboxEntry>, };

/**
 * One entry of a list setting in force and the file it came from.
 */
export type SandboxEntry = { 
/**
 * The entry (a command prefix, a resolved path, a domain pattern).
 */
value: string, 
/**
 * The settings file it is in.
 */
file: string, };

/**
 * What the user can do about it.
 */
export type SandboxFix = { "kind": "install_package", 
/**
 * The package's name (Debian, Ubuntu, Fedora and Arch agree).
 */
package: string, } | { "kind": "sysctl", 
/**
 * The setting (`kernel.apparmor_restrict_unprivileged_userns`).
 */
key: string, 
/**
 * The value that allows bwrap.
 */
value: string, 
/**
 * What it reads now.
 */
current: string, };

/**
 * A yes/no setting in force and the file it came from.
 */
export type SandboxFlag = { 
/**
 * Its value.
 */
value: boolean, 
/**
 * The settings file that set it; `None`: the default.
 */
file: string | null, };

/**
 * A sandboxed command's network.
 */
export type SandboxNetwork = "off" | "proxy";

/**
 * Settings → Sandbox: whether bubblewrap can run here (probed by running
 * it once; cached until asked to check again), and the settings in force.
 */
export type SandboxState = { 
/**
 * `None`: a sandbox runs here. Otherwise why not and how to fix it.
 */
unavailable: SandboxUnavailable | null, 
/**
 * The bwrap executable found on `PATH`.
 */
bwrap: string | null, 
/**
 * What `bwrap --version` says (`bubblewrap 0.8.0`).
 */
bwrap_version: string | null, 
/**
 * The project whose files were read (`None`: user and managed only).
 */
project: string | null, 
/**
 * The settings in force.
 */
settings: SandboxEffectiveSettings, 
/**
 * Problems in the `sandbox` keys (wrong shapes, unsupported keys),
 * with file, line and column.
 */
problems: Array<SettingsProblem>, };

/**
 * `sandbox_state`'s arguments.
 */
export type SandboxStateArgs = { 
/**
 * Also read this project's files (a known project's id; trusted or
 * not as the app records it); `None`: user and managed settings only.
 */
project_id: number | null, 
/**
 * Run bwrap again instead of using the cached probe.
 */
recheck: boolean, };

/**
 * The sandbox is enabled but cannot run here: commands run unconfined
 * and ask as usual (nothing is auto-allowed as if confined).
 */
export type SandboxUnavailable = { 
/**
 * Why.
 */
reason: SandboxUnavailableReason, 
/**
 * Details for people: bwrap's path, status and stderr (bounded).
 */
detail: string, 
/**
 * How to fix it, when known.
 */
fix: SandboxFix | null, };

/**
 * Why the sandbox cannot run here.
 */
export type SandboxUnavailableReason = "bwrap_missing" | "user_namespaces_disabled" | "bwrap_failed" | "bwrap_not_started" | "setup_failed";

/**
 * Arguments of `save_app_settings`.
 */
export type SaveAppSettingsArgs = { 
/**
 * The settings to keep.
 */
settings: AppSettings, };

/**
 * Arguments of `save_hook_edit`.
 */
export type SaveHookEditArgs = { 
/**
 * The project.
 */
project_id: number, 
/**
 * The settings file (one of the view's `files`).
 */
file: string, 
/**
 * The file's `fingerprint` when the view was read.
 */
fingerprint: string, 
/**
 * The change.
 */
edit: HookEditRequest, 
/**
 * Write even when the file changed on disk since it was read.
 */
overwrite: boolean, };

/**
 * Arguments of `save_rule_edits`.
 */
export type SaveRuleEditsArgs = { 
/**
 * The project.
 */
project_id: number, 
/**
 * The edits to write.
 */
edits: RuleEdits, 
/**
 * Write even over files changed on disk since they were loaded (the
 * user chose to overwrite).
 */
overwrite: boolean, };

/**
 * The outcome of a save or an undo.
 */
export type SaveRulesOutcome = { "kind": "saved", 
/**
 * The settings files written.
 */
files: Array<string>, 
/**
 * The sessions whose rules were replaced.
 */
sessions: Array<string>, } | { "kind": "conflict", 
/**
 * The files that changed.
 */
files: Array<string>, };

/**
 * Arguments of `save_web_search_settings`.
 */
export type SaveWebSearchArgs = { 
/**
 * The provider to use.
 */
provider: SearchProviderKind, 
/**
 * The SearXNG instance's URL (required with `searxng`, kept
 * otherwise when given).
 */
searxng_url: string | null, };

/**
 * One full-text search match: where to jump to, and the text around it.
 */
export type SearchHit = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The matching event's position in the session (from 1): the place
 * to jump to.
 */
seq: number, 
/**
 * The event's type.
 */
type: string, 
/**
 * The matching text with the matches in `[` `]`.
 */
snippet: string, 
/**
 * The session's title (its first prompt, shortened).
 */
session_title: string | null, 
/**
 * The session's project folder.
 */
project_path: string, 
/**
 * The tool of the matching call, for tool events.
 */
tool_name: string | null, };

/**
 * The search provider WebSearch is set to use (Settings → Web search;
 * `webSearch.provider` in `~/.gatehouse/settings.json`).
 */
export type SearchProviderKind = "none" | "brave" | "searxng";

/**
 * One search result (WebSearch).
 */
export type SearchResult = { 
/**
 * The page title.
 */
title: string, 
/**
 * The page's URL.
 */
url: string, 
/**
 * The provider's snippet.
 */
snippet: string, };

/**
 * Arguments of `search_sessions`.
 */
export type SearchSessionsArgs = { 
/**
 * The query: SQLite FTS5 syntax, or plain words when `literal`.
 */
query: string, 
/**
 * At most this many matches (default 50).
 */
limit?: number, 
/**
 * Treat the query as plain words (each quoted), so `foo(` or `a-b`
 * cannot be a syntax error.
 */
literal?: boolean, 
/**
 * Only matches in sessions of this project folder.
 */
project_path?: string, 
/**
 * Only matches in this session (search inside one session).
 */
session_id?: string, };

/**
 * What a search's `count` counts (see [`ToolProgressData::SearchResults`]).
 */
export type SearchUnit = "files" | "lines";

/**
 * Arguments of `send_prompt`.
 */
export type SendPromptArgs = { 
/**
 * The session.
 */
session_id: string, 
/**
 * What the user typed.
 */
text: string, };

/**
 * Arguments of commands that name only a session (`interrupt`,
 * `close_session`, `session_events`).
 */
export type SessionArgs = { 
/**
 * The session.
 */
session_id: string, };

/**
 * A session's diagnostics: how the runtime under it stands. The shell
 * parser counts are process-wide (every session's permission engine parses
 * through the same single helper-thread slot).
 */
export type SessionDiagnostics = { 
/**
 * The session.
 */
session_id: string, 
/**
 * Shell-parser helper threads that ran past their deadline and still
 * run (at most one: while it runs, no other such parse starts).
 */
parser_threads_abandoned_running: number, 
/**
 * Helper threads abandoned since the process started.
 */
parser_threads_abandoned_total: number, 
/**
 * Command lines not parsed because the helper thread was busy (each
 * failed closed to an ask) since the process started.
 */
parser_refused_busy_total: number, 
/**
 * Whether the session's settings watcher runs (false: file changes do
 * not reach the session; saves in the app still do).
 */
settings_watcher_running: boolean, 
/**
 * Settings reloads of this session so far.
 */
settings_reloads: number, 
/**
 * Of those, how many kept the previous rules (the new files would have
 * lost restrictions).
 */
settings_reloads_kept_previous: number, };

/**
 * Why a session ended (`session_ended`).
 */
export type SessionEndReason = "closed" | "app_closed";

/**
 * What kind of failure a `session_error` reports.
 */
export type SessionErrorKind = "authentication" | "invalid_request" | "overloaded" | "server" | "network" | "timeout" | "malformed_stream" | "unknown_stop_reason" | "turn_limit" | "max_tokens" | "script" | "storage" | "hook_blocked";

/**
 * Arguments of `session_events_after`.
 */
export type SessionEventsAfterArgs = { 
/**
 * The stored session.
 */
session_id: string, 
/**
 * The events stored after this position (`seq`, from 1) are returned:
 * a reader passes how many it has read.
 */
after_seq: number, };

/**
 * Arguments of `session_events_before`.
 */
export type SessionEventsBeforeArgs = { 
/**
 * The stored session.
 */
session_id: string, 
/**
 * How many of its first events to return (a handle's `earlier_events`).
 */
count: number, 
/**
 * Also its sub-agents' events written before the first event left out,
 * in the order written (what a resumed live session's handle holds).
 * Absent: false.
 */
subagents?: boolean, };

/**
 * The values the session list's filters can take: every project folder
 * and every model of the stored sessions, sorted.
 */
export type SessionFacets = { 
/**
 * Project folders of stored sessions.
 */
projects: Array<string>, 
/**
 * Model names of stored sessions (empty names left out).
 */
models: Array<string>, };

/**
 * A session that is open in the backend.
 */
export type SessionHandle = { 
/**
 * Its id, stamped on every event it emits.
 */
session_id: string, 
/**
 * The project folder.
 */
project_path: string, 
/**
 * The current permission mode.
 */
mode: PermissionMode, 
/**
 * The events stored so far (empty for a new session; the history for a
 * resumed one), oldest first, with its sub-agents' events where they
 * were written. For a long resumed session only its end: the last
 * turns, from a turn boundary, so it opens on its last screen at once;
 * the `earlier_events` before them come from `session_events_before`
 * (with `subagents: true`).
 */
events: Array<Event>, 
/**
 * How many of the session's own stored events come before `events`
 * (0: `events` is all).
 */
earlier_events: number, 
/**
 * The session rules in force ("allow for this session" answers).
 */
session_rules: Array<string>, 
/**
 * Where "always allow" can save rules, in the order offered, with
 * each file's path ([`crate::permission::rule_files`]).
 */
rule_files: Array<RuleFile>, 
/**
 * Whether policy disables `bypassPermissions`
 * (`permissions.disableBypassPermissionsMode: "disable"` in any
 * settings file) as the session opened: `set_mode` then refuses it.
 */
bypass_disabled?: boolean, };

/**
 * Where a stored session came from.
 */
export type SessionOrigin = "gatehouse" | "claude_code";

/**
 * The rules of one session after editing.
 */
export type SessionRulesEdit = { 
/**
 * The session.
 */
session_id: string, 
/**
 * Allow rules.
 */
allow: Array<string>, 
/**
 * Ask rules.
 */
ask: Array<string>, 
/**
 * Deny rules.
 */
deny: Array<string>, };

/**
 * The session rules of one stored session.
 */
export type SessionRulesView = { 
/**
 * The session's id.
 */
session_id: string, 
/**
 * Its title (first prompt), if any.
 */
title: string | null, 
/**
 * Its rules.
 */
rules: Array<RuleView>, };

/**
 * What a session's sandbox is, after its settings files were read.
 */
export type SessionSandboxState = "off" | "on" | "unavailable";

/**
 * How `list_sessions` orders sessions.
 */
export type SessionSort = "updated" | "started" | "duration" | "tool_calls" | "errors" | "denials" | "tokens";

/**
 * Statistics of one stored session, computed from its events.
 */
export type SessionStats = { 
/**
 * The session.
 */
session_id: string, 
/**
 * Per tool, most calls first (ties by name).
 */
tools: Array<ToolStats>, 
/**
 * Permission decisions.
 */
decisions: DecisionBreakdown, 
/**
 * Per turn, in order.
 */
turns: Array<TurnStats>, };

/**
 * How a session (or one prompt's exchange) ended.
 */
export type SessionStatus = "completed" | "interrupted" | "turn_limit" | "failed";

/**
 * A stored session, for lists. The counters are maintained as events are
 * stored, so listing never scans events.
 */
export type SessionSummary = { 
/**
 * Its id.
 */
id: string, 
/**
 * The project folder.
 */
project_path: string, 
/**
 * The provider name.
 */
provider: string, 
/**
 * The model name.
 */
model: string, 
/**
 * The permission mode it started in.
 */
mode: string, 
/**
 * `running` (an exchange runs, or none has finished since it was
 * opened), the status of its last `session_completed`, `ended` when it
 * was closed before any exchange finished (see `end_reason`), or
 * `imported` for an import that has none.
 */
status: string, 
/**
 * Why it was last closed (`None`: open now, or imported without an
 * end).
 */
end_reason: SessionEndReason | null, 
/**
 * The first prompt, shortened.
 */
title: string | null, 
/**
 * When it was created (ms since the epoch; for an import, the time of
 * the transcript's first entry).
 */
created_at_ms: number, 
/**
 * When its last event was stored (ms since the epoch).
 */
updated_at_ms: number, 
/**
 * How many events it has.
 */
event_count: number, 
/**
 * Recorded by Gatehouse or imported from Claude Code.
 */
origin: SessionOrigin, 
/**
 * Active time in ms: the spans from each start or resume to the last
 * event before the following close, summed (the gaps between visits
 * do not count).
 */
duration_ms: number, 
/**
 * Tool calls made (`tool_queued` events).
 */
tool_calls: number, 
/**
 * Permission decisions that asked the user.
 */
asks: number, 
/**
 * Calls refused: by a rule or mode, or by the user's answer.
 */
denials: number, 
/**
 * Failed calls (not counting refusals) plus session errors.
 */
errors: number, 
/**
 * Input tokens reported by the provider, cache reads and writes included.
 */
input_tokens: number, 
/**
 * Output tokens reported by the provider.
 */
output_tokens: number, 
/**
 * For a sub-agent transcript, the session that started it.
 */
parent_session_id: string | null, 
/**
 * For an import, the file it was read from.
 */
source_path: string | null, };

/**
 * Arguments of `set_api_key`.
 */
export type SetApiKeyArgs = { 
/**
 * `anthropic` or `openai`.
 */
provider: string, 
/**
 * The key; stored in the OS keychain only, never echoed back.
 */
key: string, };

/**
 * Arguments of `set_claude_code_guard`.
 */
export type SetClaudeCodeGuardArgs = { 
/**
 * Whose settings file.
 */
scope: GuardScope, 
/**
 * The project, for [`GuardScope::Project`].
 */
project: string | null, 
/**
 * Install (`true`) or remove (`false`) the entries.
 */
on: boolean, };

/**
 * Arguments of `set_mode`.
 */
export type SetModeArgs = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The new mode.
 */
mode: PermissionMode, };

/**
 * Arguments of `set_project_trust`.
 */
export type SetProjectTrustArgs = { 
/**
 * The project's row id.
 */
id: number, 
/**
 * True to trust it (its settings' allow rules apply), false to withdraw.
 */
trusted: boolean, };

/**
 * Arguments of `set_retention`.
 */
export type SetRetentionArgs = { 
/**
 * Days to keep sessions after their last activity; `None` keeps them
 * forever. 0 is refused.
 */
days: number | null, 
/**
 * Also delete now the sessions the new setting expires.
 */
apply?: boolean, };

/**
 * One problem in a settings file, where it is.
 */
export type SettingsProblem = { 
/**
 * The file.
 */
file: string, 
/**
 * Its line (from 1).
 */
line: number, 
/**
 * Its column (characters, from 1).
 */
column: number, 
/**
 * What is wrong.
 */
message: string, 
/**
 * True when the problem may hide deny or ask rules (such settings are
 * not put in force by a reload).
 */
loses_restrictions: boolean, };

/**
 * What made a session read its settings files again.
 */
export type SettingsReloadTrigger = "file_changed" | "rules_saved" | "hooks_saved";

/**
 * Where a skill's SKILL.md lives.
 */
export type SkillOrigin = "user" | "project";

/**
 * A skill folder that could not be used, and why.
 */
export type SkillProblem = { 
/**
 * The SKILL.md (or the folder, when it has none).
 */
file: string, 
/**
 * The 1-based line (0: the whole file).
 */
line: number, 
/**
 * What is wrong.
 */
message: string, };

/**
 * One skill.
 */
export type SkillView = { 
/**
 * The name the model calls it by.
 */
name: string, 
/**
 * When to use it (what the model reads).
 */
description: string, 
/**
 * Where it comes from.
 */
origin: SkillOrigin, 
/**
 * Its SKILL.md (absolute path).
 */
file: string, 
/**
 * The rules its `allowed-tools` grants while it runs, as written.
 */
allowed_tools: Array<string>, 
/**
 * The model its front matter asks for, if any.
 */
model: string | null, 
/**
 * Whether the project's sessions load it: a project skill loads only
 * once the project is trusted; a user skill a project skill of the
 * same name replaces does not.
 */
active: boolean, 
/**
 * The latest stored Skill call of it in this project (ms since the
 * Unix epoch); `None` when never used.
 */
last_used_ms: number | null, 
/**
 * How many stored Skill calls in this project named it.
 */
uses: number, };

/**
 * Arguments of `skills_view`.
 */
export type SkillsProjectArgs = { 
/**
 * The project's row id.
 */
project_id: number, };

/**
 * A project's skills.
 */
export type SkillsView = { 
/**
 * Whether the project is trusted (its skills load only then).
 */
trusted: boolean, 
/**
 * Every skill found, active ones first, each group by name.
 */
skills: Array<SkillView>, 
/**
 * Skill folders that could not be used.
 */
problems: Array<SkillProblem>, };

/**
 * Arguments of `smoke_report`.
 */
export type SmokeReportArgs = { 
/**
 * Whether the UI loaded and completed its round trip.
 */
ok: boolean, 
/**
 * What the UI saw, printed by the backend before it exits.
 */
detail: string, };

/**
 * Arguments of `start_session`.
 */
export type StartSessionArgs = { 
/**
 * The project (row id) the session works in.
 */
project_id: number, 
/**
 * The model to talk to.
 */
provider: ProviderChoice, 
/**
 * The permission mode to start in.
 */
mode: PermissionMode, };

/**
 * Everything the window needs to decide what to show at start.
 */
export type StartupState = { 
/**
 * The settings (defaults when the file is absent or unreadable).
 */
settings: AppSettings, 
/**
 * Why `settings.json` could not be read (it was set aside, renamed
 * with a timestamp, so the app can save again), if it could not.
 */
settings_error: string | null, 
/**
 * Why the OS keychain cannot be used (locked, no Secret Service), if
 * it cannot: keys then come from the environment only.
 */
keychain_unavailable: string | null, 
/**
 * The project to open, or the one whose folder is gone; always
 * `None` when onboarding is not done or the database is unusable.
 */
last_project: LastProject, 
/**
 * Where the sample project is (or would be) created.
 */
sample_project_path: string, };

/**
 * Arguments of `stop_task`.
 */
export type StopTaskArgs = { 
/**
 * The session whose task it is (also the arguments of `open_task_output`).
 */
session_id: string, 
/**
 * The task (`task_started`'s `task_id`).
 */
task_id: string, };

/**
 * What `stop_task` did: the task's state once it stopped (a task that had
 * already ended keeps its own status).
 */
export type StoppedTask = { 
/**
 * The task.
 */
task_id: string, 
/**
 * What it ran: a process or a background agent.
 */
kind: TaskKind, 
/**
 * Its state now (`stopped`, or how it had ended before).
 */
status: TaskStatus, 
/**
 * How it ended, for people.
 */
message: string | null, };

/**
 * Disk use and the retention setting, for the housekeeping panel.
 */
export type StorageInfo = { 
/**
 * The database file and the files beside it.
 */
usage: StorageUsage, 
/**
 * Sessions idle longer than this many days are deleted (`None`:
 * kept forever).
 */
retention_days: number | null, };

/**
 * How much disk the stored sessions take.
 */
export type StorageUsage = { 
/**
 * The database file, in bytes.
 */
database_bytes: number, 
/**
 * Its write-ahead log, in bytes (folded into the file at checkpoints).
 */
wal_bytes: number, 
/**
 * Unused pages inside the database file that `VACUUM` would return.
 */
reclaimable_bytes: number, 
/**
 * Files beside the database (`sessions/<id>/`: spilled tool results,
 * Bash and task output), in bytes.
 */
session_files_bytes: number, 
/**
 * Stored sessions.
 */
sessions: number, 
/**
 * Stored events.
 */
events: number, };

/**
 * A stored session's events as this build reads them: the reader says
 * when some could not be read, and maps a stored position (`seq`) to the
 * right event even then.
 */
export type StoredEvents = { 
/**
 * The events this build could read, oldest first.
 */
events: Array<Event>, 
/**
 * Positions (`seq`, from 1) of the events it could not read (written by
 * a newer Gatehouse, or damaged), ascending; at most
 * [`StoredEvents::MAX_LISTED_UNREADABLE`] are listed.
 */
unreadable_seqs: number[], 
/**
 * How many events could not be read in all.
 */
unreadable: number, };

/**
 * Sessions another process (or the app itself) wrote to since the last
 * such event: a guarded Claude Code's hooks and `gatehouse-cli run` write
 * the database from their own processes, and the session browser shows
 * their sessions growing.
 */
export type StoredSessionsChanged = { 
/**
 * The sessions updated, latest first.
 */
session_ids: Array<string>, };

/**
 * Where a sub-agent is (see [`ToolProgressData::Subagent`]).
 */
export type SubagentPhase = "started" | "running" | "completed";

/**
 * Which sub-agent a call belongs to, for a front end that must say so (the
 * permission prompt of a sub-agent's call names the agent, issue 19).
 */
export type SubagentRef = { 
/**
 * The sub-agent's session (a child of the session that started it).
 */
agent_session_id: string, 
/**
 * The Agent call in the parent that started it.
 */
tool_use_id: string, 
/**
 * Its agent type (`Explore`, `general-purpose`, a definition's name).
 */
subagent_type: string, 
/**
 * The Agent call's short description of its task.
 */
description: string, };

/**
 * What a background task runs.
 */
export type TaskKind = "process" | "agent";

/**
 * The state of a background task.
 */
export type TaskStatus = "running" | "completed" | "failed" | "stopped";

/**
 * Arguments of `test_provider_connection`.
 */
export type TestConnectionArgs = { 
/**
 * The provider to try (its key from the environment or the keychain).
 */
provider: ProviderSetting, };

/**
 * Arguments of `test_hook`: a handler (as it would be written) and a
 * sample call.
 */
export type TestHookArgs = { 
/**
 * The project (the hook runs in its directory).
 */
project_id: number, 
/**
 * The event the hook is for.
 */
event: HookEventName, 
/**
 * The handler object.
 */
handler: JsonValue, 
/**
 * The sample call's tool.
 */
tool_name: string, 
/**
 * The sample call's input.
 */
tool_input: JsonValue, };

/**
 * Arguments of `test_rule_call`.
 */
export type TestRuleCallArgs = { 
/**
 * The project (its folder is the working directory).
 */
project_id: number, 
/**
 * The unsaved edits to decide with.
 */
edits: RuleEdits, 
/**
 * The tool name.
 */
tool: string, 
/**
 * The tool's input.
 */
input: JsonValue, 
/**
 * The mode to decide in.
 */
mode: PermissionMode, };

/**
 * One item of the agent's todo list (TodoWrite).
 */
export type TodoItem = { 
/**
 * What is to be done, imperative ("Run the tests").
 */
content: string, 
/**
 * The same while it is being done ("Running the tests").
 */
activeForm: string, 
/**
 * Its state.
 */
status: TodoStatus, };

/**
 * The state of one todo item.
 */
export type TodoStatus = "pending" | "in_progress" | "completed";

/**
 * How a tool call ended (`tool_completed`'s `status`).
 */
export type ToolCallStatus = "ok" | "error" | "denied" | "interrupted" | "cancelled" | "timed_out";

/**
 * What a running call reported; the variant name is the payload's `kind`.
 */
export type ToolProgressData = { "kind": "started", 
/**
 * The process group id of the command.
 */
pid: number | null, 
/**
 * The directory it runs in.
 */
cwd: string | null, 
/**
 * The model's description of the command, if it gave one.
 */
description: string | null, 
/**
 * Where the command's whole output is being written.
 */
output_path: string | null, 
/**
 * Whether it runs in the sandbox (issue 24); absent when the
 * session's sandbox is not enabled.
 */
sandbox?: BashSandboxUse, } | { "kind": "output", 
/**
 * The new text.
 */
text: string, 
/**
 * Bytes produced since the last event that this one does not carry.
 */
skipped_bytes: number, 
/**
 * Bytes the command has produced in all so far.
 */
total_bytes: number, 
/**
 * Which stream the text is from, when it is known apart from the
 * other (imported transcripts; Gatehouse's Bash interleaves them).
 */
stream: OutputStream | null, } | { "kind": "interrupted", 
/**
 * How the process group ended, for people.
 */
message: string, 
/**
 * Where the whole output is, when there is a file.
 */
output_path: string | null, } | { "kind": "exited", 
/**
 * The shell's exit code (`None` when a signal ended it).
 */
exit_code: number | null, 
/**
 * The signal that ended the shell, if one did.
 */
signal: number | null, } | { "kind": "network", 
/**
 * In the order asked.
 */
connections: Array<SandboxConnection>, } | { "kind": "blocked", 
/**
 * In the order refused, each path once.
 */
denials: Array<SandboxDenial>, 
/**
 * Further refusals not listed (over the per-call cap).
 */
omitted: number, } | { "kind": "file_diff", 
/**
 * The change.
 */
diff: FileDiff, } | { "kind": "mcp_progress", 
/**
 * Progress so far (the server's unit; increases with each one).
 */
progress: number, 
/**
 * The total, if the server knows it.
 */
total: number | null, 
/**
 * The server's message, if any.
 */
message: string | null, } | { "kind": "subagent", 
/**
 * The sub-agent's session (its `parent_session_id` is this one).
 */
agent_session_id: string, 
/**
 * Its agent type (`Explore`, `general-purpose`, a definition's name).
 */
subagent_type: string, 
/**
 * Where it is.
 */
phase: SubagentPhase, 
/**
 * The tool it is calling now (phase `running`).
 */
current_tool: string | null, 
/**
 * Calls it has started so far.
 */
tool_calls: number, 
/**
 * Model requests it has made so far.
 */
turns: number, 
/**
 * Output tokens its replies used so far.
 */
output_tokens: number, 
/**
 * How it ended (phase `completed`).
 */
status: SessionStatus | null, } | { "kind": "todos_updated", 
/**
 * The list, in order.
 */
todos: Array<TodoItem>, } | { "kind": "web_hop", 
/**
 * The hop.
 */
hop: WebHop, } | { "kind": "web_response", 
/**
 * The URL the content came from (after redirects).
 */
final_url: string, 
/**
 * Its HTTP status.
 */
status: number, 
/**
 * Its `Content-Type` (without parameters), when it had one.
 */
content_type: string | null, 
/**
 * Bytes read (after decompression).
 */
bytes: number, 
/**
 * Whether the body was cut at the size cap.
 */
truncated: boolean, 
/**
 * Whether it came from the session's 15-minute cache.
 */
from_cache: boolean, } | { "kind": "web_search_results", 
/**
 * The provider that answered ("Brave Search", "SearXNG").
 */
provider: string, 
/**
 * The results, in the provider's order.
 */
results: Array<SearchResult>, 
/**
 * Results dropped by `allowed_domains` / `blocked_domains`.
 */
filtered_out: number, } | { "kind": "search_results", 
/**
 * What `count` counts.
 */
unit: SearchUnit, 
/**
 * Files found, or matching lines, in all (beyond what is listed).
 */
count: number, 
/**
 * The entries, in the result's order.
 */
entries: Array<string>, 
/**
 * Entries the model got that are not listed here.
 */
more_entries: number, 
/**
 * Whether the tool's limit cut the entries the model got.
 */
truncated: boolean, } | { "kind": "other", 
/**
 * The payload as it was.
 */
data: JsonValue, };

/**
 * Calls and time of one tool within a session.
 */
export type ToolStats = { 
/**
 * The tool name as the model wrote it.
 */
name: string, 
/**
 * Calls made (`tool_queued`).
 */
calls: number, 
/**
 * Calls that ended with an error (refusals not counted).
 */
errors: number, 
/**
 * Calls refused (by a rule, a mode or the user).
 */
denials: number, 
/**
 * Wall time of the completed calls, summed (ms).
 */
total_ms: number, 
/**
 * The longest completed call (ms).
 */
max_ms: number, };

/**
 * What one layer of the evaluation said.
 */
export type TraceOutcome = "allow" | "ask" | "deny" | "passthrough" | "skipped";

/**
 * Which stage of the evaluation a trace step comes from: what front ends
 * label in plain words (the `layer` name is internal and may carry a
 * hook's name).
 */
export type TraceStage = "deny_rules" | "ask_rules" | "allow_rules" | "tool_check" | "shell_analysis" | "safety_checks" | "mode" | "settings" | "destructive" | "default" | "hook" | "user_answer" | "imported" | "claude_code_hook" | "claude_code_terminal" | "other";

/**
 * One line of a decision trace.
 */
export type TraceStep = { 
/**
 * The layer consulted, e.g. `deny_rules`, `hook:fmt`, `mode`
 * (internal; front ends label [`Self::stage`]).
 */
layer: string, 
/**
 * The stage of that layer, typed (derived from `layer` for events
 * stored before it existed).
 */
stage: TraceStage, 
/**
 * What it said.
 */
outcome: TraceOutcome, 
/**
 * Details: the rule that matched, the rules tried, the hook's message.
 */
detail: string, 
/**
 * A rule that would have decided this layer but was not applied (an
 * untrusted project's allow rule): the UI says "allowed by … — not
 * applied: project not trusted" from these fields, not from `detail`.
 */
not_applied?: NotAppliedRule, };

/**
 * Tokens and time of one turn (one model request).
 */
export type TurnStats = { 
/**
 * The turn number within the session, from 1.
 */
turn: number, 
/**
 * Input tokens not read from or written to the cache.
 */
input_tokens: number, 
/**
 * Output tokens.
 */
output_tokens: number, 
/**
 * Input tokens read from the prompt cache.
 */
cache_read_tokens: number, 
/**
 * Input tokens written to the prompt cache.
 */
cache_write_tokens: number, 
/**
 * Time from the request to the model's first output (text, thinking
 * or the whole message), when the events show both.
 */
latency_ms: number | null, 
/**
 * Wall time of the whole turn (request, stream and tools), when known.
 */
duration_ms: number | null, 
/**
 * Tool calls the turn made.
 */
tool_calls: number, };

/**
 * Why a tool is unavailable (typed, so a front end need not read words).
 */
export type UnavailableReason = "not_configured";

/**
 * A built-in tool left out of a session's pool, and why.
 */
export type UnavailableTool = { 
/**
 * The tool's name (`WebSearch`).
 */
name: string, 
/**
 * Why it is not available, and what would enable it.
 */
reason: UnavailableReason, 
/**
 * The same in words.
 */
message: string, };

/**
 * Arguments of `undo_rules_save`.
 */
export type UndoRulesSaveArgs = { 
/**
 * The project.
 */
project_id: number, 
/**
 * Restore even files changed on disk since the save.
 */
overwrite: boolean, };

/**
 * What `vacuum_database` returns: the usage afterwards (the fields of
 * [`StorageUsage`], as before) and how the database was compacted.
 */
export type VacuumResult = { 
/**
 * How it was compacted.
 */
compaction: Compaction, 
/**
 * The database file, in bytes.
 */
database_bytes: number, 
/**
 * Its write-ahead log, in bytes (folded into the file at checkpoints).
 */
wal_bytes: number, 
/**
 * Unused pages inside the database file that `VACUUM` would return.
 */
reclaimable_bytes: number, 
/**
 * Files beside the database (`sessions/<id>/`: spilled tool results,
 * Bash and task output), in bytes.
 */
session_files_bytes: number, 
/**
 * Stored sessions.
 */
sessions: number, 
/**
 * Stored events.
 */
events: number, };

/**
 * Arguments of `validate_rule`.
 */
export type ValidateRuleArgs = { 
/**
 * The project (path previews list its files).
 */
project_id: number, 
/**
 * The rule as typed.
 */
text: string, };

/**
 * One URL a WebFetch call visited or refused.
 */
export type WebHop = { 
/**
 * The URL (after WHATWG parsing).
 */
url: string, 
/**
 * Its host, lowercased, without a trailing dot, IDNs in punycode.
 */
host: string, 
/**
 * How it was decided.
 */
decision: WebHopDecision, 
/**
 * Why, in words (the rule, the answer, the blocked address).
 */
reason: string | null, 
/**
 * The HTTP status the hop answered, when it was requested.
 */
status: number | null, };

/**
 * How the permission engine (and the user) settled one hop of a fetch.
 */
export type WebHopDecision = "covered" | "allowed" | "allowed_by_user" | "denied" | "blocked";

/**
 * The Web search section of Settings: what is configured, and whether a
 * session started now would have WebSearch.
 */
export type WebSearchSettings = { 
/**
 * The provider chosen (`none` also when the file names an unknown one:
 * see `unavailable`).
 */
provider: SearchProviderKind, 
/**
 * The SearXNG instance's URL, when one is saved (kept while another
 * provider is chosen).
 */
searxng_url: string | null, 
/**
 * Where Brave Search's key would come from (never the key).
 */
brave_key: ApiKeyStatus, 
/**
 * Why WebSearch would be left out of a new session, as the session's
 * `tools_unavailable` says it; `None` when it is available.
 */
unavailable: UnavailableTool | null, 
/**
 * The settings file these come from and are saved to.
 */
settings_file: string, };

/**
 * Something the user asked of the app outside the page: a menu item, or
 * `gatehouse FOLDER` run while a window was already open.
 */
export type WindowRequest = { "kind": "open_folder", 
/**
 * The folder.
 */
path: string, } | { "kind": "pick_folder" } | { "kind": "show_shortcuts" };

/** Every backend command: its argument object and its result. */
export interface Commands {
  /** Version, data directory and launch mode of the backend. */
  app_info: { args: NoArgs; result: AppInfo };
  /** Every known project, most recently opened first. */
  list_projects: { args: NoArgs; result: Array<Project> };
  /** Adds a folder as a project (or returns the existing one) and marks it opened. */
  add_project: { args: AddProjectArgs; result: Project };
  /** Marks a known project as opened now and returns it. */
  open_project: { args: OpenProjectArgs; result: Project };
  /** Trusts a project (its settings' allow rules apply from the next
 session on) or withdraws trust; remembered in SQLite. */
  set_project_trust: { args: SetProjectTrustArgs; result: Project };
  /** Asks the user for a folder with the native dialog; `null` when cancelled. */
  pick_folder: { args: NoArgs; result: string | null };
  /** The UI's answer to a smoke launch; the backend prints it and exits. */
  smoke_report: { args: SmokeReportArgs; result: null };
  /** Opens a new session in a project; its events arrive on `EVENT_CHANNEL`. */
  start_session: { args: StartSessionArgs; result: SessionHandle };
  /** Reopens a stored session with its history and session rules. */
  resume_session: { args: ResumeSessionArgs; result: SessionHandle };
  /** Sends a prompt; returns at once, the exchange streams as events. */
  send_prompt: { args: SendPromptArgs; result: null };
  /** Interrupts the running exchange (in-flight request and tools). */
  interrupt: { args: SessionArgs; result: null };
  /** Changes the session's permission mode. */
  set_mode: { args: SetModeArgs; result: null };
  /** Answers a pending `permission_requested`. */
  answer_permission: { args: AnswerPermissionArgs; result: null };
  /** Stops a background task of an open session (a background agent, a
 Bash `run_in_background`) and waits for it to end. */
  stop_task: { args: StopTaskArgs; result: StoppedTask };
  /** Opens a background task's whole output file with the OS opener
 (`xdg-open`, `open`); says which file. */
  open_task_output: { args: StopTaskArgs; result: OpenedTaskOutput };
  /** Answers a pending `interaction_requested` (a question, a plan). */
  answer_interaction: { args: AnswerInteractionArgs; result: null };
  /** Closes a session: stops its tasks and servers; its events stay stored. */
  close_session: { args: SessionArgs; result: null };
  /** Stored sessions, newest first. */
  list_sessions: { args: ListSessionsArgs; result: Array<SessionSummary> };
  /** Every stored event of a session, oldest first, and the positions of
 those this build cannot read. */
  session_events: { args: SessionArgs; result: StoredEvents };
  /** The first `count` stored events of a session, oldest first: what a
 resumed handle's `earlier_events` left out. */
  session_events_before: { args: SessionEventsBeforeArgs; result: StoredEvents };
  /** The events of a stored session after a position: a reader's new
 events once `STORED_SESSIONS_CHANNEL` names the session. */
  session_events_after: { args: SessionEventsAfterArgs; result: StoredEvents };
  /** Stores a provider's API key in the OS keychain. */
  set_api_key: { args: SetApiKeyArgs; result: ApiKeyStatus };
  /** Removes a provider's API key from the OS keychain. */
  delete_api_key: { args: ProviderArgs; result: ApiKeyStatus };
  /** Where a provider's API key would come from (never the key itself). */
  api_key_status: { args: ProviderArgs; result: ApiKeyStatus };
  /** The Web search settings: the provider, SearXNG's URL, Brave Search's
 key status and whether WebSearch is available (and why not). */
  web_search_settings: { args: NoArgs; result: WebSearchSettings };
  /** Saves the search provider (and SearXNG's URL) into
 `~/.gatehouse/settings.json`, other keys kept; Brave Search's key
 goes through `set_api_key` (`brave-search`) to the keychain only. */
  save_web_search_settings: { args: SaveWebSearchArgs; result: WebSearchSettings };
  /** Settings → Sandbox: whether bubblewrap runs here (probed once and
 cached; `recheck` runs it again) and why not with the fix, its
 version, and the `sandbox` settings in force with their files. */
  sandbox_state: { args: SandboxStateArgs; result: SandboxState };
  /** Stored sessions of every project with `args`' filters and sort
 (`list_sessions` keeps its plain newest-first list). */
  browse_sessions: { args: ListSessionsArgs; result: Array<SessionSummary> };
  /** The projects and models of stored sessions, for the list's filters. */
  session_facets: { args: NoArgs; result: SessionFacets };
  /** One stored session's summary (an error names a session not stored). */
  session_summary: { args: SessionArgs; result: SessionSummary };
  /** Full-text search over stored sessions; each hit names the event to
 open (`seq`) and a snippet with the matches in `[` `]`. */
  search_sessions: { args: SearchSessionsArgs; result: Array<SearchHit> };
  /** Calls and time per tool, decisions, tokens and latency per turn. */
  session_stats: { args: SessionArgs; result: SessionStats };
  /** Claude Code transcripts under `~/.claude/projects` (or
 `$GATEHOUSE_CLAUDE_HOME/.claude/projects`), with what is imported. */
  discover_claude_transcripts: { args: NoArgs; result: ClaudeDiscovery };
  /** Imports transcripts (all when `paths` is absent); `import_progress`
 events report each batch; one result per file. */
  import_claude_transcripts: { args: ImportClaudeArgs; result: Array<ImportFileResult> };
  /** Writes a session as JSONL or HTML; `null` when the save dialog was
 cancelled. */
  export_session: { args: ExportSessionArgs; result: ExportResult | null };
  /** Deletes sessions with their sub-agents and files; returns the ids
 deleted. */
  delete_sessions: { args: DeleteSessionsArgs; result: Array<string> };
  /** Database size, files beside it and the retention setting. */
  storage_info: { args: NoArgs; result: StorageInfo };
  /** Sets the retention period (and optionally applies it now). */
  set_retention: { args: SetRetentionArgs; result: RetentionResult };
  /** Compacts the database in short steps (open sessions keep writing
 between them); returns the usage afterwards and how it went. A
 database of an earlier version is rewritten whole only when no
 session is open (see `FullRewrite`). */
  vacuum_database: { args: NoArgs; result: VacuumResult };
  /** Signs in to an OAuth MCP server of a project: opens the browser at
 its authorization page and waits (up to 5 minutes) for the redirect;
 the tokens go only to the OS keychain. Servers of open sessions that
 were waiting for the sign-in connect again. */
  mcp_sign_in: { args: McpServerArgs; result: McpSignInResult };
  /** Signs out of an OAuth MCP server: deletes its tokens and client
 credentials from the OS keychain. */
  mcp_sign_out: { args: McpServerArgs; result: McpSignOutResult };
  /** Every configured MCP server of a project, from every source (not connected). */
  mcp_servers: { args: McpProjectArgs; result: McpPanel };
  /** Connects every enabled, approved server of a project (as
 `gatehouse-cli mcp list` does) and reports state, tools and stderr; then stops them. */
  mcp_probe: { args: McpProjectArgs; result: Array<McpServerProbe> };
  /** Adds or replaces a server in `~/.gatehouse/mcp.json` or the project's
 `.mcp.json`; secret values go to the OS keychain only. */
  mcp_save_server: { args: McpSaveServerArgs; result: McpPanel };
  /** Removes a server (and its keychain secrets) from an editable file. */
  mcp_remove_server: { args: McpServerRefArgs; result: McpPanel };
  /** Turns a server off or on in an editable file. */
  mcp_set_server_disabled: { args: McpSetDisabledArgs; result: McpPanel };
  /** Approves a project server in its current form. */
  mcp_approve_server: { args: McpServerRefArgs; result: McpPanel };
  /** Every rule of a project by source, with counts, trust and problems. */
  rules_view: { args: RulesProjectArgs; result: RulesView };
  /** Lint problems (errors and warnings) of the rules with unsaved edits. */
  check_rule_edits: { args: CheckRuleEditsArgs; result: Array<RuleProblem> };
  /** Parses a rule as typed: the parser's error with its span, a path
 preview or Bash examples. */
  validate_rule: { args: ValidateRuleArgs; result: RuleValidation };
  /** Decides a call with the rules plus unsaved edits, with the full trace. */
  test_rule_call: { args: TestRuleCallArgs; result: PermissionDecision };
  /** Re-decides stored calls with the edited rules; progress on
 `RULES_REPLAY_PROGRESS_CHANNEL`. */
  replay_rule_edits: { args: ReplayRuleEditsArgs; result: RulesReplayReport };
  /** Writes the edits (settings files atomically, session rules to
 SQLite), or reports files changed on disk since they were loaded. */
  save_rule_edits: { args: SaveRuleEditsArgs; result: SaveRulesOutcome };
  /** Restores what the last save of the project replaced. */
  undo_rules_save: { args: UndoRulesSaveArgs; result: SaveRulesOutcome };
  /** Every settings-file hook of a project by source and event, with
 which run, why the others do not, and malformed entries. */
  hooks_view: { args: HooksProjectArgs; result: HooksView };
  /** Adds, replaces, removes or switches one hook in a settings file
 (validated, other keys kept); open sessions read their hooks again. */
  save_hook_edit: { args: SaveHookEditArgs; result: HookSaveOutcome };
  /** Runs a command hook once with a sample call and shows its stdin,
 output, exit code, duration and the resulting decision. */
  test_hook: { args: TestHookArgs; result: HookTestResult };
  /** A project's skills (user, and project ones with whether they load),
 each with its last use, and the skill folders that could not be read. */
  skills_view: { args: SkillsProjectArgs; result: SkillsView };
  /** The app's settings, the keychain's state and the project to reopen
 (or the one whose folder is gone): what the window shows at start. */
  startup_state: { args: NoArgs; result: StartupState };
  /** Saves the app's settings (`<data dir>/settings.json`, atomically). */
  save_app_settings: { args: SaveAppSettingsArgs; result: AppSettings };
  /** Tries a provider for real (Anthropic's or the server's `/v1/models`)
 and names the failure: no key, bad key, no network, wrong URL. */
  test_provider_connection: { args: TestConnectionArgs; result: ConnectionTest };
  /** Writes the sample project (for the offline demo) into the data
 directory and adds it; the only folder the demo plays in. */
  create_sample_project: { args: NoArgs; result: Project };
  /** Opens the data directory in the OS file manager. */
  open_data_dir: { args: NoArgs; result: null };
  /** Sets a database that could not be opened aside (renamed with a
 timestamp, never deleted); the app then restarts on a fresh one. */
  reset_database: { args: NoArgs; result: DatabaseReset };
  /** Forgets a project (its folder and stored sessions are untouched). */
  remove_project: { args: RemoveProjectArgs; result: null };
  /** Replaces a project whose folder is gone by its new folder. */
  relocate_project: { args: RelocateProjectArgs; result: Project };
  /** No project is to be reopened at the next start (the user closed
 the project's view); opening one records it again. */
  forget_last_project: { args: NoArgs; result: null };
  /** Answers a Claude Code ask shown on `CLAUDE_CODE_ASK_CHANNEL` (or
 dismisses it: Claude Code then asks in its terminal). */
  answer_claude_code_ask: { args: AnswerClaudeCodeAskArgs; result: null };
  /** Settings → Claude Code: where the guard's entries are, the last
 call, and the `gatehouse-cli` the switch installs. */
  claude_code_guard: { args: ClaudeCodeGuardArgs; result: ClaudeCodeGuard };
  /** The switch: installs (or removes) the guard's entries in the user's
 or a project's Claude Code settings file, every other key kept. */
  set_claude_code_guard: { args: SetClaudeCodeGuardArgs; result: ClaudeCodeGuard };
}
