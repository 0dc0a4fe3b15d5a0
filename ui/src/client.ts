// The one typed client for the backend. Components call these functions and
// never `invoke` directly (eslint enforces it), so every command's name,
// arguments and result are checked against the types generated from Rust.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

import type {
  ClaudeCodeAskShown,
  ClaudeCodeAskWithdrawn,
  AppSettings,
  CommandError,
  Commands,
  Event,
  ExportFormat,
  GuardScope,
  HookEditRequest,
  ListSessionsArgs,
  SearchSessionsArgs,
  McpSaveServerArgs,
  McpServerRefArgs,
  McpSetDisabledArgs,
  InteractionReply,
  PermissionAnswer,
  PermissionMode,
  ProviderChoice,
  ProviderSetting,
  ReplayRuleEditsArgs,
  RuleEdits,
  RulesReplayProgress,
  SearchProviderKind,
  StoredSessionsChanged,
  TestHookArgs,
  TestRuleCallArgs,
  WindowRequest,
} from "./generated/protocol";

/** How commands reach the backend; swapped for a fake in unit tests. */
export interface Transport {
  invoke(command: string, payload: Record<string, unknown>): Promise<unknown>;
}

const tauriTransport: Transport = {
  invoke: (command, payload) => invoke(command, payload),
};

let transport: Transport = tauriTransport;

/** Replaces the transport (unit tests only). Returns a function that restores it. */
export function setTransport(next: Transport): () => void {
  const previous = transport;
  transport = next;
  return () => {
    transport = previous;
  };
}

/** A command failed; `message` says what and where, ready to show. */
export class BackendError extends Error {
  constructor(
    readonly command: keyof Commands,
    message: string,
  ) {
    super(message);
    this.name = "BackendError";
  }
}

function isCommandError(value: unknown): value is CommandError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/** Calls a backend command with its typed arguments and result. */
export async function call<K extends keyof Commands>(
  command: K,
  args: Commands[K]["args"],
): Promise<Commands[K]["result"]> {
  try {
    return (await transport.invoke(command, { args })) as Commands[K]["result"];
  } catch (err) {
    const message = isCommandError(err) ? err.message : String(err);
    throw new BackendError(command, message);
  }
}

/** The channel on which the backend emits runtime events. */
export const EVENT_CHANNEL = "gatehouse://event";

/** How a channel's messages reach the UI; swapped for a fake in unit tests. */
export interface ChannelSource<T> {
  listen(handler: (message: T) => void): Promise<() => void>;
}

/** A backend channel: Tauri's events by default, a fake in unit tests. */
function channel<T>(name: string) {
  let source: ChannelSource<T> = { listen: (handler) => listen<T>(name, (message) => handler(message.payload)) };
  return {
    /** Replaces the source (unit tests only). Returns a function that restores it. */
    replace(next: ChannelSource<T>): () => void {
      const previous = source;
      source = next;
      return () => {
        source = previous;
      };
    },
    listen: (handler: (message: T) => void): Promise<UnlistenFn> => source.listen(handler),
    /**
     * Subscribes for an effect's lifetime: the returned function
     * unsubscribes, also when the subscription is made after it was called.
     */
    subscribe(handler: (message: T) => void): () => void {
      let stop: UnlistenFn | null = null;
      let done = false;
      source.listen(handler).then(
        (unlisten) => {
          if (done) unlisten();
          else stop = unlisten;
        },
        () => undefined,
      );
      return () => {
        done = true;
        stop?.();
      };
    },
  };
}

/** How events reach the UI; swapped for a fake in unit tests. */
export type EventSource = ChannelSource<Event>;

const events = channel<Event>(EVENT_CHANNEL);

/** Replaces the event source (unit tests only). Returns a function that restores it. */
export const setEventSource = events.replace;

/** Subscribes to runtime events; resolves to an unsubscribe function. */
export const onEvent = events.listen;

/** Subscribes to the events of one session only. */
export function onSessionEvent(
  sessionId: string,
  handler: (event: Event) => void,
): Promise<UnlistenFn> {
  return onEvent((event) => {
    if (event.session_id === sessionId) handler(event);
  });
}

export const backend = {
  appInfo: () => call("app_info", {}),
  listProjects: () => call("list_projects", {}),
  addProject: (path: string) => call("add_project", { path }),
  openProject: (id: number) => call("open_project", { id }),
  pickFolder: () => call("pick_folder", {}),
  smokeReport: (ok: boolean, detail: string) => call("smoke_report", { ok, detail }),
  setProjectTrust: (id: number, trusted: boolean) => call("set_project_trust", { id, trusted }),
  startSession: (projectId: number, provider: ProviderChoice, mode: PermissionMode) =>
    call("start_session", { project_id: projectId, provider, mode }),
  resumeSession: (sessionId: string, provider: ProviderChoice | null) =>
    call("resume_session", { session_id: sessionId, provider }),
  sendPrompt: (sessionId: string, text: string) =>
    call("send_prompt", { session_id: sessionId, text }),
  interrupt: (sessionId: string) => call("interrupt", { session_id: sessionId }),
  setMode: (sessionId: string, mode: PermissionMode) =>
    call("set_mode", { session_id: sessionId, mode }),
  answerPermission: (sessionId: string, toolUseId: string, answer: PermissionAnswer) =>
    call("answer_permission", { session_id: sessionId, tool_use_id: toolUseId, answer }),
  stopTask: (sessionId: string, taskId: string) =>
    call("stop_task", { session_id: sessionId, task_id: taskId }),
  openTaskOutput: (sessionId: string, taskId: string) =>
    call("open_task_output", { session_id: sessionId, task_id: taskId }),
  answerInteraction: (sessionId: string, toolUseId: string, reply: InteractionReply) =>
    call("answer_interaction", { session_id: sessionId, tool_use_id: toolUseId, reply }),
  closeSession: (sessionId: string) => call("close_session", { session_id: sessionId }),
  listSessions: (args: ListSessionsArgs) => call("list_sessions", args),
  sessionEvents: (sessionId: string) => call("session_events", { session_id: sessionId }),
  sessionEventsBefore: (sessionId: string, count: number) =>
    call("session_events_before", { session_id: sessionId, count }),
  /** The events stored after the first `afterSeq`: a live session's new ones. */
  sessionEventsAfter: (sessionId: string, afterSeq: number) =>
    call("session_events_after", { session_id: sessionId, after_seq: afterSeq }),
  /** A resumed handle's earlier part: the session's first `count` events with its sub-agents' written meanwhile. */
  sessionFamilyEventsBefore: (sessionId: string, count: number) =>
    call("session_events_before", { session_id: sessionId, count, subagents: true }),
  setApiKey: (provider: string, key: string) => call("set_api_key", { provider, key }),
  deleteApiKey: (provider: string) => call("delete_api_key", { provider }),
  apiKeyStatus: (provider: string) => call("api_key_status", { provider }),
  webSearchSettings: () => call("web_search_settings", {}),
  saveWebSearchSettings: (provider: SearchProviderKind, searxngUrl: string | null) =>
    call("save_web_search_settings", { provider, searxng_url: searxngUrl }),
  /** Settings → Sandbox: bwrap's state (probed once; `recheck` runs it again) and the settings in force, with `projectId`'s files or without a project. */
  sandboxState: (projectId: number | null, recheck: boolean) =>
    call("sandbox_state", { project_id: projectId, recheck }),
  // The session browser (ui/src/browser).
  browseSessions: (args: ListSessionsArgs) => call("browse_sessions", args),
  sessionFacets: () => call("session_facets", {}),
  sessionSummary: (sessionId: string) => call("session_summary", { session_id: sessionId }),
  searchSessions: (args: SearchSessionsArgs) => call("search_sessions", args),
  sessionStats: (sessionId: string) => call("session_stats", { session_id: sessionId }),
  discoverClaudeTranscripts: () => call("discover_claude_transcripts", {}),
  importClaudeTranscripts: (paths: string[] | null) =>
    call("import_claude_transcripts", paths === null ? {} : { paths }),
  exportSession: (sessionId: string, format: ExportFormat) =>
    call("export_session", { session_id: sessionId, format }),
  deleteSessions: (sessionIds: string[]) => call("delete_sessions", { session_ids: sessionIds }),
  storageInfo: () => call("storage_info", {}),
  setRetention: (days: number | null, apply: boolean) => call("set_retention", { days, apply }),
  vacuumDatabase: () => call("vacuum_database", {}),
  /** OAuth sign-in to an MCP server of a project; resolves once the browser's redirect arrived. */
  mcpSignIn: (project: string, server: string) => call("mcp_sign_in", { project, server }),
  /** Deletes an MCP server's OAuth tokens from the keychain. */
  mcpSignOut: (project: string, server: string) => call("mcp_sign_out", { project, server }),
  mcpServers: (projectPath: string) => call("mcp_servers", { project_path: projectPath }),
  mcpProbe: (projectPath: string) => call("mcp_probe", { project_path: projectPath }),
  mcpSaveServer: (args: McpSaveServerArgs) => call("mcp_save_server", args),
  mcpRemoveServer: (args: McpServerRefArgs) => call("mcp_remove_server", args),
  mcpSetServerDisabled: (args: McpSetDisabledArgs) => call("mcp_set_server_disabled", args),
  mcpApproveServer: (args: McpServerRefArgs) => call("mcp_approve_server", args),
  rulesView: (projectId: number) => call("rules_view", { project_id: projectId }),
  checkRuleEdits: (projectId: number, edits: RuleEdits) =>
    call("check_rule_edits", { project_id: projectId, edits }),
  validateRule: (projectId: number, text: string) =>
    call("validate_rule", { project_id: projectId, text }),
  testRuleCall: (args: TestRuleCallArgs) => call("test_rule_call", args),
  replayRuleEdits: (args: ReplayRuleEditsArgs) => call("replay_rule_edits", args),
  saveRuleEdits: (projectId: number, edits: RuleEdits, overwrite: boolean) =>
    call("save_rule_edits", { project_id: projectId, edits, overwrite }),
  undoRulesSave: (projectId: number, overwrite: boolean) =>
    call("undo_rules_save", { project_id: projectId, overwrite }),
  // The rule editor's Hooks view (ui/src/rules/hooks).
  hooksView: (projectId: number) => call("hooks_view", { project_id: projectId }),
  saveHookEdit: (projectId: number, file: string, fingerprint: string, edit: HookEditRequest, overwrite: boolean) =>
    call("save_hook_edit", { project_id: projectId, file, fingerprint, edit, overwrite }),
  testHook: (args: TestHookArgs) => call("test_hook", args),
  // The rule editor's Skills view (ui/src/rules/skills).
  skillsView: (projectId: number) => call("skills_view", { project_id: projectId }),
  // A guarded Claude Code's asks (ui/src/claudeCode); `null` dismisses (it asks in its terminal).
  answerClaudeCodeAsk: (requestId: string, answer: PermissionAnswer | null) =>
    call("answer_claude_code_ask", { request_id: requestId, answer }),
  claudeCodeGuard: (project: string | null) => call("claude_code_guard", { project }),
  setClaudeCodeGuard: (scope: GuardScope, project: string | null, on: boolean) =>
    call("set_claude_code_guard", { scope, project, on }),
  // First run and the app's settings (ui/src/onboarding).
  startupState: () => call("startup_state", {}),
  saveAppSettings: (settings: AppSettings) => call("save_app_settings", { settings }),
  testProviderConnection: (provider: ProviderSetting) => call("test_provider_connection", { provider }),
  createSampleProject: () => call("create_sample_project", {}),
  openDataDir: () => call("open_data_dir", {}),
  resetDatabase: () => call("reset_database", {}),
  removeProject: (id: number) => call("remove_project", { id }),
  relocateProject: (id: number, path: string) => call("relocate_project", { id, path }),
  forgetLastProject: () => call("forget_last_project", {}),
};

/** The channel on which the backend emits rule-replay progress. */
export const RULES_REPLAY_PROGRESS_CHANNEL = "gatehouse://rules-replay-progress";

/** How replay progress reaches the UI; swapped for a fake in unit tests. */
export type ReplayProgressSource = ChannelSource<RulesReplayProgress>;

const replayProgress = channel<RulesReplayProgress>(RULES_REPLAY_PROGRESS_CHANNEL);

/** Replaces the replay progress source (unit tests only). Returns a function that restores it. */
export const setReplayProgressSource = replayProgress.replace;

/** Subscribes to rule-replay progress; resolves to an unsubscribe function. */
export const onRulesReplayProgress = replayProgress.listen;

/** The channel on which the app shell sends window requests (menu items, a second launch). */
export const WINDOW_REQUEST_CHANNEL = "gatehouse://window-request";

/** How window requests reach the UI; swapped for a fake in unit tests. */
export type WindowRequestSource = ChannelSource<WindowRequest>;

const windowRequests = channel<WindowRequest>(WINDOW_REQUEST_CHANNEL);

/** Replaces the window request source (unit tests only). Returns a function that restores it. */
export const setWindowRequestSource = windowRequests.replace;

/** Subscribes to window requests; resolves to an unsubscribe function. */
export const onWindowRequest = windowRequests.listen;

/** The channel on which the backend shows a guarded Claude Code's asks. */
export const CLAUDE_CODE_ASK_CHANNEL = "gatehouse://claude-code-ask";

const claudeCodeAsks = channel<ClaudeCodeAskShown>(CLAUDE_CODE_ASK_CHANNEL);

/** Replaces the Claude Code ask source (unit tests only). Returns a function that restores it. */
export const setClaudeCodeAskSource = claudeCodeAsks.replace;

/** Subscribes to Claude Code asks; resolves to an unsubscribe function. */
export const onClaudeCodeAsk = claudeCodeAsks.listen;

/** Subscribes to Claude Code asks for an effect's lifetime; returns the unsubscribe function. */
export const subscribeClaudeCodeAsks = claudeCodeAsks.subscribe;

/** The channel on which the backend names sessions written since it last did (other processes' too). */
export const STORED_SESSIONS_CHANNEL = "gatehouse://stored-sessions-changed";

const storedSessions = channel<StoredSessionsChanged>(STORED_SESSIONS_CHANNEL);

/** Replaces the stored-sessions source (unit tests only). Returns a function that restores it. */
export const setStoredSessionsSource = storedSessions.replace;

/** Subscribes to stored sessions changing for an effect's lifetime; returns the unsubscribe function. */
export const subscribeStoredSessions = storedSessions.subscribe;

/** The channel on which the backend withdraws a Claude Code ask (its hook went away, or its wait ran out). */
export const CLAUDE_CODE_ASK_WITHDRAWN_CHANNEL = "gatehouse://claude-code-ask-withdrawn";

const claudeCodeAsksWithdrawn = channel<ClaudeCodeAskWithdrawn>(CLAUDE_CODE_ASK_WITHDRAWN_CHANNEL);

/** Replaces the withdrawn Claude Code ask source (unit tests only). Returns a function that restores it. */
export const setClaudeCodeAskWithdrawnSource = claudeCodeAsksWithdrawn.replace;

/** Subscribes to withdrawn Claude Code asks for an effect's lifetime; returns the unsubscribe function. */
export const subscribeClaudeCodeAsksWithdrawn = claudeCodeAsksWithdrawn.subscribe;
