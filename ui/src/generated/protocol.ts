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
database_error: string | null, };

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
source: ImageSource, };

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
input: JsonValue, } | { "type": "tool_started", 
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
 * The change an Edit/Write/NotebookEdit would make, when the tool
 * can preview it.
 */
preview: FileDiff | null, } | { "type": "permission_answered", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * The answer.
 */
answer: PermissionAnswer, } | { "type": "session_rules_added", 
/**
 * The rule texts, e.g. `Bash(npm test)`.
 */
rules: Array<string>, } | { "type": "mode_changed", 
/**
 * The new mode.
 */
mode: PermissionMode, } | { "type": "tool_progress", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * Tool-specific progress payload.
 */
data: JsonValue, } | { "type": "tool_completed", 
/**
 * The call.
 */
tool_use_id: string, 
/**
 * Whether the result is an error.
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
error: string | null, } | { "type": "context_modified", 
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
 * The task's id, as TaskOutput and TaskStop take it.
 */
task_id: string, 
/**
 * The Bash call that started it.
 */
tool_use_id: string | null, 
/**
 * The command line.
 */
command: string, 
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
message: string, } | { "type": "mcp_server_state", 
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
text: string, } | { "type": "model_request_started", 
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
raw: JsonValue, } | { "type": "session_completed", 
/**
 * How it ended.
 */
status: SessionStatus, 
/**
 * Model requests made.
 */
turns: number, });

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
 * The hook events Gatehouse runs hooks for (Claude Code's names).
 */
export type HookEventName = "PreToolUse" | "PostToolUse" | "PostToolUseFailure";

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
 * What an import did with one file.
 */
export type ImportOutcome = "imported" | "updated" | "unchanged" | "reimported";

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
 * The connection state of an MCP server.
 */
export type McpServerStatus = "connecting" | "connected" | "failed" | "needs_auth" | "disabled" | "awaiting_approval";

/**
 * Arguments of a command that takes none.
 */
export type NoArgs = Record<symbol, never>;

/**
 * Arguments of `open_project`.
 */
export type OpenProjectArgs = { 
/**
 * The project's row id.
 */
id: number, };

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
 * The pipeline stage that refused a call before it could run.
 */
export type RejectionStage = "malformed" | "lookup" | "schema" | "validate_input";

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
 * Where a permission rule came from, highest precedence first.
 */
export type RuleSource = "policy" | "flag" | "local" | "project" | "user" | "session";

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
 * What kind of failure a `session_error` reports.
 */
export type SessionErrorKind = "authentication" | "invalid_request" | "overloaded" | "server" | "network" | "timeout" | "malformed_stream" | "unknown_stop_reason" | "turn_limit" | "max_tokens" | "script" | "storage";

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
count: number, };

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
 * resumed one), oldest first. For a long resumed session only its end:
 * the last turns, from a turn boundary, so it opens on its last screen
 * at once; the `earlier_events` before them come from
 * `session_events_before`.
 */
events: Array<Event>, 
/**
 * How many stored events come before `events` (0: `events` is all).
 */
earlier_events: number, 
/**
 * The session rules in force ("allow for this session" answers).
 */
session_rules: Array<string>, };

/**
 * Where a stored session came from.
 */
export type SessionOrigin = "gatehouse" | "claude_code";

/**
 * How `list_sessions` orders sessions.
 */
export type SessionSort = "updated" | "started" | "duration" | "tool_calls" | "errors" | "denials" | "tokens";

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
 * `running`, or the status of its last `session_completed`
 * (`imported` for an import that has none).
 */
status: string, 
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
 * Wall time from its first to its last event, in ms.
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
 * The state of a background task.
 */
export type TaskStatus = "running" | "completed" | "failed" | "stopped";

/**
 * What one layer of the evaluation said.
 */
export type TraceOutcome = "allow" | "ask" | "deny" | "passthrough" | "skipped";

/**
 * One line of a decision trace.
 */
export type TraceStep = { 
/**
 * The layer consulted, e.g. `deny_rules`, `hook`, `mode`.
 */
layer: string, 
/**
 * What it said.
 */
outcome: TraceOutcome, 
/**
 * Details: the rule that matched, the rules tried, the hook's message.
 */
detail: string, };

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
  /** Closes a session: stops its tasks and servers; its events stay stored. */
  close_session: { args: SessionArgs; result: null };
  /** Stored sessions, newest first. */
  list_sessions: { args: ListSessionsArgs; result: Array<SessionSummary> };
  /** Every stored event of a session, oldest first. */
  session_events: { args: SessionArgs; result: Array<Event> };
  /** The first `count` stored events of a session, oldest first: what a
 resumed handle's `earlier_events` left out. */
  session_events_before: { args: SessionEventsBeforeArgs; result: Array<Event> };
  /** Stores a provider's API key in the OS keychain. */
  set_api_key: { args: SetApiKeyArgs; result: ApiKeyStatus };
  /** Removes a provider's API key from the OS keychain. */
  delete_api_key: { args: ProviderArgs; result: ApiKeyStatus };
  /** Where a provider's API key would come from (never the key itself). */
  api_key_status: { args: ProviderArgs; result: ApiKeyStatus };
}
