// The session view model: a fold of a session's `Event`s into what the
// screen shows — the transcript (prompts, assistant text, tool calls and
// groups of them, errors), each tool call's state and timestamps, pending
// permission requests, background tasks, session rules and the mode.
//
// It is built for live use: `applyEvent(model, event)` folds one more event
// in O(1) (amortised), so a 10,000-call session loads in one pass and a
// streaming one costs nothing per event. To stay O(1) the model object is
// updated in place, but every entity that changes (a tool call, a transcript
// item, a task) is *replaced* by a new object, never mutated, so components
// memoised on those objects re-render exactly when their entity changed;
// `version` counts applied events for everything else.
//
// The model never duplicates backend logic: statuses come from the events.
// A call's final status is `tool_completed`'s typed `status` (ok, error,
// denied, interrupted, cancelled, timed_out); only calls still open when the
// exchange ends (`session_completed`, an unrecoverable `session_error`) are
// marked interrupted here, because no `tool_completed` will come for them.
// Progress payloads are read by their typed `kind`; whether an MCP call is a
// read comes from `tool_queued`'s `read_only` (the tool's trusted
// annotations), never from its name.
//
// Grouping: consecutive calls of one turn whose kind is read, search, list or
// read-only MCP (Read, Grep, Glob, an MCP tool whose `read_only` is set) become one group once
// there are two of them; a lone read stays a plain call. The summary counts
// calls by verb: Read → "read N files", Grep → "searched N patterns",
// Glob → "listed N globs" (Glob lists files matching a pattern, so "listed";
// the unit is the pattern, as with Grep, not a folder), read-only MCP →
// "queried N MCP tools". Example: "Read 5 files, searched 2 patterns, listed
// 1 glob".

import type {
  BashSandboxUse,
  ContentBlock,
  ContextSource,
  DecisionReason,
  Event,
  FileDiff,
  JsonValue,
  PermissionAnswer,
  PermissionBehavior,
  PermissionMode,
  RejectionStage,
  SandboxConnection,
  SandboxDenial,
  SessionErrorKind,
  SessionStatus,
  SubagentRef,
  TaskKind,
  TaskStatus,
  ToolCallStatus,
  ToolProgressData,
  TraceStep,
} from "../generated/protocol";
import type {
  HookNotRun,
  HookRun as ProtocolHookRun,
  SandboxUnavailable,
  SettingsProblem,
  UnavailableTool,
} from "../generated/protocol";
import { foldWeb, type WebActivity } from "./web";

/** The state of one tool call, as the screen shows it. */
export type ToolStatus =
  | "queued"
  | "running"
  | "waiting_permission"
  | "completed"
  | "error"
  | "denied"
  | "interrupted"
  | "cancelled"
  | "timed_out";

/** What family a tool belongs to: picks its renderer, icon and grouping. */
export type ToolKind =
  | "read"
  | "search"
  | "list"
  | "edit"
  | "bash"
  | "mcp"
  | "task"
  | "agent"
  | "web"
  | "other";

/** At most this many characters of a call's streamed output are kept. */
export const KEPT_OUTPUT_CHARS = 64 * 1024;
/** At most this many non-output progress payloads are kept per call. */
export const KEPT_PROGRESS_ITEMS = 50;

/** A call's streamed output: the newest `KEPT_OUTPUT_CHARS`, and how much came before. */
export interface StreamedOutput {
  /** Kept chunks, oldest first; their total length is at most `KEPT_OUTPUT_CHARS`. */
  readonly chunks: readonly string[];
  /** Characters in `chunks`. */
  readonly keptChars: number;
  /** Bytes of output the command produced in all (the backend's count when it gives one). */
  readonly totalBytes: number;
  /** Bytes produced but not kept here (dropped by the backend or by the cap). */
  readonly earlierBytes: number;
  /** Line breaks in the text this model dropped from the front: the first kept line's number, from 0. */
  readonly droppedLines: number;
}

/** The engine's verdict on a call. */
export interface Decision {
  behavior: PermissionBehavior;
  reason: DecisionReason;
  trace: TraceStep[];
}

/** An ask: what the user is shown in the permission modal. */
export interface PermissionRequest {
  toolUseId: string;
  toolName: string;
  input: JsonValue;
  reason: DecisionReason;
  trace: TraceStep[];
  suggestions: string[];
  /** The suggestions for the user's own file (paths absolute); empty when not stored. */
  userSuggestions: string[];
  preview: FileDiff | null;
  requestedMs: number;
  /** The sub-agent whose call it is (its type and task); null for the session's own. */
  agent: SubagentRef | null;
  /** WebFetch: the host its URL reaches (what "always allow domain:" names); null otherwise. */
  webHost: string | null;
}

/** A span of time a call spent waiting for the user's answer. */
export interface Wait {
  fromMs: number;
  /** null while still waiting. */
  toMs: number | null;
}

/** What Bash's `started` progress said. */
export interface BashStart {
  cwd: string | null;
  pid: number | null;
  outputPath: string | null;
  description: string | null;
  /** Whether it ran in the sandbox (absent: the session's sandbox is off). */
  sandbox?: BashSandboxUse | null;
  /** The connections the sandbox's network proxy was asked for (its `network` progress). */
  network?: readonly SandboxConnection[];
  /** What the sandbox refused, read from the syscalls (its `blocked` progress). */
  blocked?: readonly SandboxDenial[];
  /** Refusals over the per-call cap, not listed in `blocked`. */
  blockedOmitted?: number;
}

/** Grep's or Glob's results as the backend lists them. */
export type SearchResultsData = Extract<ToolProgressData, { kind: "search_results" }>;

/** A Bash command's exit code, or the signal that ended its shell. */
export interface BashExited {
  exitCode: number | null;
  signal: number | null;
}

/** The result the model got. */
export interface ToolResult {
  isError: boolean;
  content: ContentBlock[];
  durationMs: number;
  persistedPath: string | null;
}

/** A hook that ran for the call. */
export interface HookRun {
  hookEvent: string;
  hook: string;
  decision: PermissionBehavior | null;
  blocked: boolean;
  message: string | null;
  error: string | null;
  /** What ran, from which settings file, its duration and output (settings-file hooks). */
  run: ProtocolHookRun | null;
  /** When it finished (the `hook_ran` event's time); it started `run.duration_ms` before. */
  endedMs: number;
}

/** The session's settings-file hooks, from its last `hooks_loaded`. */
export interface HooksLoaded {
  active: number;
  notRun: readonly HookNotRun[];
  problems: readonly SettingsProblem[];
}

/** One tool call. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly kind: ToolKind;
  readonly input: JsonValue;
  /** Whether the call changes nothing (`tool_queued`'s `read_only`). */
  readonly readOnly: boolean;
  /** Key of the turn (model request) that made it. */
  readonly turnKey: number;
  readonly status: ToolStatus;
  readonly queuedMs: number;
  readonly startedMs: number | null;
  readonly endedMs: number | null;
  readonly batch: number | null;
  readonly concurrent: boolean;
  readonly waits: readonly Wait[];
  readonly request: PermissionRequest | null;
  readonly answer: PermissionAnswer | null;
  readonly decision: Decision | null;
  readonly bash: BashStart | null;
  readonly output: StreamedOutput | null;
  /** Why Bash says it was stopped, when it was. */
  readonly interruptMessage: string | null;
  /** How a Bash command that ended on its own ended (its `exited` progress). */
  readonly bashExited: BashExited | null;
  /** Grep's or Glob's results (their `search_results` progress). */
  readonly search: SearchResultsData | null;
  /** The change an Edit/Write/NotebookEdit made (from its `file_diff` progress). */
  readonly diff: FileDiff | null;
  /** Other progress payloads (MCP notifications…), newest last, at most `KEPT_PROGRESS_ITEMS`. */
  readonly progress: readonly ToolProgressData[];
  readonly result: ToolResult | null;
  readonly rejection: { stage: RejectionStage; message: string } | null;
  readonly hooks: readonly HookRun[];
  /** The background task it started, if any. */
  readonly taskId: string | null;
  /** WebFetch's hops and response, WebSearch's results (`web.ts`). */
  readonly web: WebActivity | null;
}

/** A background task (Bash `run_in_background`). */
export interface Task {
  readonly id: string;
  readonly toolUseId: string | null;
  readonly command: string;
  readonly description: string | null;
  readonly outputPath: string;
  readonly status: TaskStatus;
  readonly exitCode: number | null;
  readonly message: string | null;
  readonly startedMs: number;
  readonly endedMs: number | null;
  /** A process or a background agent. */
  readonly kind: TaskKind;
  /** Its live output (`task_output`), bounded like a call's; null before any. */
  readonly output: StreamedOutput | null;
}

/** One model request and what it did. */
export interface Turn {
  readonly key: number;
  /** The backend's turn number. */
  readonly turn: number;
  readonly startedMs: number;
  readonly endedMs: number | null;
  readonly callIds: readonly string[];
  readonly stopReason: string | null;
}

/** One row of the transcript. */
export type TranscriptItem =
  | { kind: "user"; key: string; text: string; ts: number }
  | { kind: "assistant"; key: string; turnKey: number; text: string; streaming: boolean }
  | { kind: "thinking"; key: string; turnKey: number; text: string }
  | { kind: "tool"; key: string; callId: string }
  | { kind: "group"; key: string; turnKey: number; callIds: readonly string[] }
  | { kind: "timeline"; key: string; turnKey: number }
  | { kind: "error"; key: string; errorKind: SessionErrorKind; message: string; recoverable: boolean }
  | { kind: "notice"; key: string; text: string; tone: "info" | "warn" }
  /** Text the loop added for the model (a task's end, a message to a background agent, Stop hook feedback). */
  | { kind: "context"; key: string; source: ContextSource; text: string }
  /** A session-level hook run (SessionStart, UserPromptSubmit, Stop, SessionEnd, or one without its call). */
  | { kind: "hook"; key: string; hook: HookRun }
  | { kind: "end"; key: string; status: SessionStatus; turns: number };

/** Token totals. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The tool block of the model requests (`tool_block_changed`, issue 21). */
export interface ToolBlockInfo {
  /** Whether deferral is on. */
  readonly toolSearch: boolean;
  /** Tools whose full definitions the model has. */
  readonly loaded: number;
  /** Deferred tools not loaded yet. */
  readonly deferred: number;
  /** Bytes of the tool block. */
  readonly bytes: number;
}

/** The folded session. */
export interface SessionModel {
  /** Events applied so far. */
  version: number;
  sessionId: string | null;
  provider: string | null;
  modelName: string | null;
  project: string | null;
  transcript: TranscriptItem[];
  calls: Map<string, ToolCall>;
  turns: Map<number, Turn>;
  tasks: Map<string, Task>;
  /** Calls waiting for an answer, in the order they asked. */
  pending: string[];
  sessionRules: string[];
  /** The settings-file hooks in force (null: the session has none and said nothing). */
  hooksLoaded: HooksLoaded | null;
  /** Built-in tools left out of the pool and why (`tools_unavailable`). */
  unavailableTools: readonly UnavailableTool[];
  /** The Bash sandbox is enabled but cannot run, and why (`sandbox_unavailable`); null once it runs or is off. */
  sandboxUnavailable: SandboxUnavailable | null;
  /** Problems in the `sandbox` settings keys, from the last `sandbox_settings_read`. */
  sandboxProblems: readonly SettingsProblem[];
  /** The mode from the last `mode_changed`, and the index of that event. */
  mode: PermissionMode | null;
  modeEventIndex: number | null;
  /** Whether an exchange is in progress (a prompt without its `session_completed`). */
  active: boolean;
  usage: Usage;
  /** The tool block of the last model request (null before one). */
  toolBlock: ToolBlockInfo | null;
  /** Internal: the current turn key and the transcript index of each (turn, block) text. */
  currentTurnKey: number;
  textIndex: Map<string, number>;
  thinkingIndex: Map<string, number>;
}

/** An empty model. */
export function emptyModel(): SessionModel {
  return {
    version: 0,
    sessionId: null,
    provider: null,
    modelName: null,
    project: null,
    transcript: [],
    calls: new Map(),
    turns: new Map(),
    tasks: new Map(),
    pending: [],
    sessionRules: [],
    hooksLoaded: null,
    unavailableTools: [],
    sandboxUnavailable: null,
    sandboxProblems: [],
    mode: null,
    modeEventIndex: null,
    active: false,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    toolBlock: null,
    currentTurnKey: 0,
    textIndex: new Map(),
    thinkingIndex: new Map(),
  };
}

/** Folds a whole event list. */
export function foldEvents(events: readonly Event[]): SessionModel {
  const model = emptyModel();
  for (const event of events) applyEvent(model, event);
  return model;
}

/** Splits `mcp__server__tool` into its parts; null for non-MCP names. */
export function mcpParts(name: string): { server: string; tool: string } | null {
  if (!name.startsWith("mcp__")) return null;
  const rest = name.slice(5);
  const cut = rest.indexOf("__");
  if (cut < 0) return { server: rest, tool: "" };
  return { server: rest.slice(0, cut), tool: rest.slice(cut + 2) };
}

/** The family of a tool by its name. */
export function toolKind(name: string): ToolKind {
  switch (name) {
    case "Read":
      return "read";
    case "Grep":
      return "search";
    case "Glob":
    case "LS":
      return "list";
    case "Edit":
    case "MultiEdit":
    case "Write":
    case "NotebookEdit":
      return "edit";
    case "Bash":
      return "bash";
    case "TaskOutput":
    case "TaskStop":
      return "task";
    // `Task` is Claude Code's earlier name of the Agent tool.
    case "Task":
    case "Agent":
      return "agent";
    case "WebFetch":
    case "WebSearch":
      return "web";
  }
  return mcpParts(name) ? "mcp" : "other";
}

/** Whether a call joins a read/search group. */
export function isGroupable(call: Pick<ToolCall, "kind" | "readOnly">): boolean {
  if (call.kind === "read" || call.kind === "search" || call.kind === "list") return true;
  return call.kind === "mcp" && call.readOnly;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "Read 5 files, searched 2 patterns, listed 1 glob" for a group's calls. */
export function groupSummary(calls: readonly Pick<ToolCall, "name" | "kind">[]): string {
  let reads = 0;
  let searches = 0;
  let lists = 0;
  let mcp = 0;
  for (const c of calls) {
    if (c.kind === "read") reads++;
    else if (c.kind === "search") searches++;
    else if (c.kind === "list") lists++;
    else mcp++;
  }
  const parts: string[] = [];
  if (reads) parts.push(`read ${plural(reads, "file", "files")}`);
  if (searches) parts.push(`searched ${plural(searches, "pattern", "patterns")}`);
  if (lists) parts.push(`listed ${plural(lists, "glob", "globs")}`);
  if (mcp) parts.push(`queried ${plural(mcp, "MCP tool", "MCP tools")}`);
  const text = parts.join(", ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Whether a call has ended (no more events expected for it). */
export function isFinished(status: ToolStatus): boolean {
  return (
    status === "completed" ||
    status === "error" ||
    status === "denied" ||
    status === "interrupted" ||
    status === "cancelled" ||
    status === "timed_out"
  );
}

function asRecord(value: JsonValue | undefined): Record<string, JsonValue> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
}

function str(value: JsonValue | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/** Appends text to a bounded output, dropping the oldest chunks past the cap. */
export function appendOutput(
  prev: StreamedOutput | null,
  text: string,
  totalBytes: number | null,
): StreamedOutput {
  const chunks = prev ? [...prev.chunks] : [];
  let kept = prev ? prev.keptChars : 0;
  let dropped = prev ? prev.droppedLines : 0;
  let piece = text;
  if (piece.length > KEPT_OUTPUT_CHARS) {
    dropped += countLines(piece.slice(0, piece.length - KEPT_OUTPUT_CHARS));
    piece = piece.slice(piece.length - KEPT_OUTPUT_CHARS);
  }
  if (piece.length > 0) {
    chunks.push(piece);
    kept += piece.length;
  }
  while (kept > KEPT_OUTPUT_CHARS && chunks.length > 0) {
    const oldest = chunks[0] ?? "";
    const excess = kept - KEPT_OUTPUT_CHARS;
    if (oldest.length <= excess) {
      chunks.shift();
      kept -= oldest.length;
      dropped += countLines(oldest);
    } else {
      // Cut at a line break when one is near, so the kept text starts cleanly.
      let cut = oldest.indexOf("\n", excess);
      if (cut < 0 || cut - excess > 4096) cut = excess;
      else cut += 1;
      kept -= cut;
      dropped += countLines(oldest.slice(0, cut));
      if (cut >= oldest.length) chunks.shift();
      else chunks[0] = oldest.slice(cut);
    }
  }
  const total = Math.max(totalBytes ?? (prev ? prev.totalBytes : 0) + text.length, kept);
  return { chunks, keptChars: kept, totalBytes: total, earlierBytes: Math.max(0, total - kept), droppedLines: dropped };
}

function countLines(text: string): number {
  let n = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

function newCall(id: string, name: string, input: JsonValue, readOnly: boolean, turnKey: number, ts: number): ToolCall {
  return {
    id,
    name,
    kind: toolKind(name),
    input,
    readOnly,
    turnKey,
    status: "queued",
    queuedMs: ts,
    startedMs: null,
    endedMs: null,
    batch: null,
    concurrent: false,
    waits: [],
    request: null,
    answer: null,
    decision: null,
    bash: null,
    output: null,
    interruptMessage: null,
    bashExited: null,
    search: null,
    diff: null,
    progress: [],
    result: null,
    rejection: null,
    hooks: [],
    taskId: null,
    web: null,
  };
}

function closeWaits(waits: readonly Wait[], ts: number): readonly Wait[] {
  return waits.some((w) => w.toMs === null) ? waits.map((w) => (w.toMs === null ? { ...w, toMs: ts } : w)) : waits;
}

function removePending(model: SessionModel, id: string) {
  const at = model.pending.indexOf(id);
  if (at >= 0) model.pending = [...model.pending.slice(0, at), ...model.pending.slice(at + 1)];
}

function updateCall(model: SessionModel, id: string, change: (call: ToolCall) => Partial<ToolCall>) {
  const call = model.calls.get(id);
  if (!call) return;
  model.calls.set(id, { ...call, ...change(call) });
}

function turnOf(model: SessionModel, key: number, ts: number): Turn {
  let turn = model.turns.get(key);
  if (!turn) {
    turn = { key, turn: key, startedMs: ts, endedMs: null, callIds: [], stopReason: null };
    model.turns.set(key, turn);
  }
  return turn;
}

function push(model: SessionModel, item: TranscriptItem) {
  model.transcript.push(item);
}

/** Ends every open call (the exchange is over): they were interrupted. */
function endOpenCalls(model: SessionModel, ts: number) {
  for (const [id, call] of model.calls) {
    if (!isFinished(call.status)) {
      model.calls.set(id, {
        ...call,
        status: "interrupted",
        endedMs: ts,
        waits: closeWaits(call.waits, ts),
      });
    }
  }
  model.pending = [];
  for (const [key, index] of model.textIndex) {
    const item = model.transcript[index];
    if (item?.kind === "assistant" && item.streaming) model.transcript[index] = { ...item, streaming: false };
    model.textIndex.delete(key);
  }
}

function addToolToTranscript(model: SessionModel, call: ToolCall) {
  const turn = turnOf(model, call.turnKey, call.queuedMs);
  if (turn.callIds.length === 0) {
    push(model, { kind: "timeline", key: `timeline:${call.turnKey}`, turnKey: call.turnKey });
  }
  model.turns.set(turn.key, { ...turn, callIds: [...turn.callIds, call.id] });
  const lastIndex = model.transcript.length - 1;
  const last = model.transcript[lastIndex];
  if (isGroupable(call) && last) {
    if (last.kind === "group" && last.turnKey === call.turnKey) {
      model.transcript[lastIndex] = { ...last, callIds: [...last.callIds, call.id] };
      return;
    }
    if (last.kind === "tool") {
      const prev = model.calls.get(last.callId);
      if (prev && prev.turnKey === call.turnKey && isGroupable(prev)) {
        model.transcript[lastIndex] = {
          kind: "group",
          key: `group:${prev.id}`,
          turnKey: call.turnKey,
          callIds: [prev.id, call.id],
        };
        return;
      }
    }
  }
  push(model, { kind: "tool", key: `tool:${call.id}`, callId: call.id });
}

/** Adds a delta to the (turn, block) text or thinking item, creating it on the first delta. */
function appendStreamedText(model: SessionModel, kind: "assistant" | "thinking", index: number, delta: string) {
  const key = `${model.currentTurnKey}:${index}`;
  const positions = kind === "assistant" ? model.textIndex : model.thinkingIndex;
  const at = positions.get(key);
  const item = at === undefined ? undefined : model.transcript[at];
  if (at !== undefined && (item?.kind === "assistant" || item?.kind === "thinking")) {
    model.transcript[at] = { ...item, text: item.text + delta };
    return;
  }
  positions.set(key, model.transcript.length);
  const turnKey = model.currentTurnKey;
  push(
    model,
    kind === "assistant"
      ? { kind, key: `text:${key}`, turnKey, text: delta, streaming: true }
      : { kind, key: `thinking:${key}`, turnKey, text: delta },
  );
}

/** The screen's status for `tool_completed`'s status. */
export function completedStatus(status: ToolCallStatus): ToolStatus {
  return status === "ok" ? "completed" : status;
}

/**
 * Folds one event into the model (in place; changed entities are replaced)
 * and returns the model.
 */
export function applyEvent(model: SessionModel, event: Event): SessionModel {
  const ts = event.ts_ms;
  const eventIndex = model.version;
  model.version += 1;
  model.sessionId ??= event.session_id;
  switch (event.type) {
    case "session_started":
      model.provider = event.provider;
      model.modelName = event.model;
      model.project = event.project;
      if (event.resumed) push(model, { kind: "notice", key: `resumed:${eventIndex}`, text: "Session resumed", tone: "info" });
      break;
    case "session_ended":
      push(model, {
        kind: "notice",
        key: `ended:${eventIndex}`,
        text: event.reason === "app_closed" ? "Session ended: app closed" : "Session closed",
        tone: "info",
      });
      break;
    case "user_prompt":
      model.active = true;
      push(model, { kind: "user", key: `user:${eventIndex}`, text: event.text, ts });
      break;
    case "context_added":
      push(model, { kind: "context", key: `context:${eventIndex}`, source: event.source, text: event.text });
      break;
    case "model_request_started":
      model.currentTurnKey += 1;
      model.turns.set(model.currentTurnKey, {
        key: model.currentTurnKey,
        turn: event.turn,
        startedMs: ts,
        endedMs: null,
        callIds: [],
        stopReason: null,
      });
      break;
    case "tool_block_changed":
      model.toolBlock = { toolSearch: event.tool_search, loaded: event.loaded, deferred: event.deferred, bytes: event.bytes };
      break;
    case "model_request_retried":
      push(model, {
        kind: "notice",
        key: `retry:${eventIndex}`,
        text: `Retrying the model request (attempt ${event.attempt}) in ${Math.round(event.delay_ms / 100) / 10} s: ${event.error}`,
        tone: "warn",
      });
      break;
    case "assistant_text_delta":
      appendStreamedText(model, "assistant", event.index, event.text);
      break;
    case "assistant_thinking_delta":
      appendStreamedText(model, "thinking", event.index, event.thinking);
      break;
    case "assistant_message": {
      // The message is final: text blocks it carries that streamed no
      // deltas (a resumed history) are added; streamed ones stop streaming.
      event.content.forEach((block, index) => {
        const b = asRecord(block);
        if (!b || b["type"] !== "text") return;
        const key = `${model.currentTurnKey}:${index}`;
        const at = model.textIndex.get(key);
        const item = at === undefined ? undefined : model.transcript[at];
        const text = str(b["text"]) ?? "";
        if (at !== undefined && item?.kind === "assistant") {
          model.transcript[at] = { ...item, text, streaming: false };
        } else if (text.length > 0) {
          model.textIndex.set(key, model.transcript.length);
          push(model, { kind: "assistant", key: `text:${key}`, turnKey: model.currentTurnKey, text, streaming: false });
        }
      });
      // No more deltas come for this message.
      for (const at of model.textIndex.values()) {
        const item = model.transcript[at];
        if (item?.kind === "assistant" && item.streaming) model.transcript[at] = { ...item, streaming: false };
      }
      model.textIndex.clear();
      model.thinkingIndex.clear();
      break;
    }
    case "tool_queued": {
      if (model.calls.has(event.tool_use_id)) break;
      const call = newCall(event.tool_use_id, event.name, event.input, event.read_only, model.currentTurnKey, ts);
      model.calls.set(call.id, call);
      addToolToTranscript(model, call);
      break;
    }
    case "tool_started":
      updateCall(model, event.tool_use_id, (c) => ({
        status: isFinished(c.status) ? c.status : c.status === "waiting_permission" ? c.status : "running",
        startedMs: c.startedMs ?? ts,
        batch: event.batch,
        concurrent: event.concurrent,
      }));
      break;
    case "permission_requested": {
      const request: PermissionRequest = {
        toolUseId: event.tool_use_id,
        toolName: event.tool_name,
        input: event.input,
        reason: event.reason,
        trace: event.trace,
        suggestions: event.suggestions,
        userSuggestions: event.user_suggestions ?? [],
        preview: event.preview,
        requestedMs: ts,
        agent: event.agent ?? null,
        webHost: event.web_host ?? null,
      };
      updateCall(model, event.tool_use_id, (c) => ({
        status: "waiting_permission",
        request,
        startedMs: c.startedMs ?? ts,
        waits: [...c.waits, { fromMs: ts, toMs: null }],
      }));
      if (model.calls.has(event.tool_use_id) && !model.pending.includes(event.tool_use_id)) {
        model.pending = [...model.pending, event.tool_use_id];
      }
      break;
    }
    case "permission_answered":
      removePending(model, event.tool_use_id);
      updateCall(model, event.tool_use_id, (c) => ({
        answer: event.answer,
        status: c.status === "waiting_permission" ? "running" : c.status,
        waits: closeWaits(c.waits, ts),
      }));
      break;
    case "permission_decided":
      removePending(model, event.tool_use_id);
      updateCall(model, event.tool_use_id, (c) => ({
        decision: { behavior: event.decision, reason: event.reason, trace: event.trace },
        status: c.status === "waiting_permission" && event.decision !== "ask" ? "running" : c.status,
        waits: event.decision === "ask" ? c.waits : closeWaits(c.waits, ts),
      }));
      break;
    case "session_rules_added": {
      const rules = [...model.sessionRules];
      for (const rule of event.rules) if (!rules.includes(rule)) rules.push(rule);
      model.sessionRules = rules;
      break;
    }
    case "mode_changed":
      model.mode = event.mode;
      model.modeEventIndex = eventIndex;
      break;
    case "tool_progress":
      updateCall(model, event.tool_use_id, (c) => progressChange(c, event.data));
      break;
    case "tool_completed": {
      removePending(model, event.tool_use_id);
      updateCall(model, event.tool_use_id, (c) => ({
        status: completedStatus(event.status),
        endedMs: ts,
        startedMs: c.startedMs ?? ts,
        waits: closeWaits(c.waits, ts),
        result: {
          isError: event.is_error,
          content: event.content,
          durationMs: event.duration_ms,
          persistedPath: event.persisted_path,
        },
      }));
      break;
    }
    case "tool_input_rejected":
      updateCall(model, event.tool_use_id, () => ({
        rejection: { stage: event.stage, message: event.message },
      }));
      break;
    case "hook_ran": {
      const hook: HookRun = {
        hookEvent: event.hook_event,
        hook: event.hook,
        decision: event.decision,
        blocked: event.blocked,
        message: event.message,
        error: event.error,
        run: event.run ?? null,
        endedMs: ts,
      };
      if (model.calls.has(event.tool_use_id)) updateCall(model, event.tool_use_id, (c) => ({ hooks: [...c.hooks, hook] }));
      // Session-level runs (an empty tool_use_id) are rows of their own.
      else push(model, { kind: "hook", key: `hook:${eventIndex}`, hook });
      break;
    }
    case "hooks_loaded":
      model.hooksLoaded = { active: event.active, notRun: event.not_run, problems: event.problems };
      break;
    case "tools_unavailable":
      model.unavailableTools = event.tools;
      break;
    case "sandbox_unavailable":
      model.sandboxUnavailable = event.unavailable;
      break;
    case "sandbox_settings_read":
      model.sandboxProblems = event.problems;
      if (event.state !== "unavailable") model.sandboxUnavailable = null;
      break;
    case "context_modified":
      break;
    case "task_started":
      model.tasks.set(event.task_id, {
        id: event.task_id,
        toolUseId: event.tool_use_id,
        command: event.command,
        description: event.description,
        outputPath: event.output_path,
        status: "running",
        exitCode: null,
        message: null,
        startedMs: ts,
        endedMs: null,
        kind: event.kind ?? "process",
        output: null,
      });
      if (event.tool_use_id !== null) updateCall(model, event.tool_use_id, () => ({ taskId: event.task_id }));
      break;
    case "task_completed": {
      const task = model.tasks.get(event.task_id);
      const base: Task = task ?? {
        id: event.task_id,
        toolUseId: null,
        command: "",
        description: null,
        outputPath: event.output_path,
        status: event.status,
        exitCode: null,
        message: null,
        startedMs: ts,
        endedMs: null,
        kind: event.kind ?? "process",
        output: null,
      };
      model.tasks.set(event.task_id, {
        ...base,
        status: event.status,
        exitCode: event.exit_code,
        message: event.message,
        outputPath: event.output_path,
        endedMs: ts,
      });
      break;
    }
    case "task_output": {
      const task = model.tasks.get(event.task_id);
      if (task) {
        // Bytes the backend left out are counted, not shown.
        const output = appendOutput(task.output, event.text, event.total_bytes);
        model.tasks.set(event.task_id, { ...task, output });
      }
      break;
    }
    case "tool_results_returned":
      break;
    case "usage":
      model.usage = {
        input: model.usage.input + event.input_tokens,
        output: model.usage.output + event.output_tokens,
        cacheRead: model.usage.cacheRead + event.cache_read_input_tokens,
        cacheWrite: model.usage.cacheWrite + event.cache_creation_input_tokens,
      };
      break;
    case "turn_completed": {
      const turn = turnOf(model, model.currentTurnKey, ts);
      model.turns.set(turn.key, { ...turn, endedMs: ts, stopReason: event.stop_reason });
      break;
    }
    case "session_error":
      push(model, {
        kind: "error",
        key: `error:${eventIndex}`,
        errorKind: event.kind,
        message: event.message,
        recoverable: event.recoverable,
      });
      if (!event.recoverable) endOpenCalls(model, ts);
      break;
    case "session_completed":
      model.active = false;
      endOpenCalls(model, ts);
      push(model, { kind: "end", key: `end:${eventIndex}`, status: event.status, turns: event.turns });
      break;
  }
  return model;
}

function progressChange(call: ToolCall, data: ToolProgressData): Partial<ToolCall> {
  switch (data.kind) {
    case "file_diff":
      return { diff: data.diff };
    case "started":
      return {
        bash: {
          cwd: data.cwd,
          pid: data.pid,
          outputPath: data.output_path,
          description: data.description,
          sandbox: data.sandbox ?? null,
        },
      };
    case "output":
      return { output: appendOutput(call.output, data.text, data.total_bytes) };
    case "interrupted":
      return { interruptMessage: data.message };
    case "exited":
      return { bashExited: { exitCode: data.exit_code, signal: data.signal } };
    case "search_results":
      return { search: data };
    case "network":
      return call.bash ? { bash: { ...call.bash, network: data.connections } } : {};
    case "blocked":
      return call.bash ? { bash: { ...call.bash, blocked: data.denials, blockedOmitted: data.omitted } } : {};
    case "web_hop":
    case "web_response":
    case "web_search_results":
      return { web: foldWeb(call.web, data) };
    // A sub-agent's progress (issue 19) is kept like MCP progress; its
    // transcript is its own model (agents.ts). TodoWrite's list: the todo
    // panel folds it (talkback.ts).
    case "subagent":
    case "todos_updated":
    case "mcp_progress":
    case "other": {
      const progress = [...call.progress, data];
      if (progress.length > KEPT_PROGRESS_ITEMS) progress.splice(0, progress.length - KEPT_PROGRESS_ITEMS);
      return { progress };
    }
  }
}

/** The calls that are waiting for an answer, oldest request first. */
export function pendingRequests(model: SessionModel): PermissionRequest[] {
  const out: PermissionRequest[] = [];
  for (const id of model.pending) {
    const request = model.calls.get(id)?.request;
    if (request) out.push(request);
  }
  return out;
}

/** The text of a call's result (text blocks joined). */
export function resultText(call: ToolCall): string {
  if (!call.result) return "";
  return call.result.content
    .filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/** The kept output joined. */
export function outputText(output: StreamedOutput | null): string {
  return output ? output.chunks.join("") : "";
}
