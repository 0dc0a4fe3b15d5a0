// Test data shared by the home screen, session view and settings tests.

import type { ClaudeCodeGuard, SandboxState, SessionSummary, WebSearchSettings } from "../generated/protocol";

/** The Web search settings as the backend reports them, with `over` applied. */
export const webSearchView = (over: Partial<WebSearchSettings> = {}): WebSearchSettings => ({
  provider: "none",
  searxng_url: null,
  brave_key: { provider: "brave-search", source: null },
  unavailable: {
    name: "WebSearch",
    reason: "not_configured",
    message: "no search provider is configured (set webSearch in ~/.gatehouse/settings.json)",
  },
  settings_file: "/home/me/.gatehouse/settings.json",
  ...over,
});

/** Settings → Sandbox as the backend reports it (bwrap runs, sandbox on from the user's file), with `over` applied. */
export const sandboxStateView = (over: Partial<SandboxState> = {}): SandboxState => ({
  unavailable: null,
  bwrap: "/usr/bin/bwrap",
  bwrap_version: "bubblewrap 0.8.0",
  project: null,
  settings: {
    enabled: { value: true, file: "/home/me/.claude/settings.json" },
    forced: false,
    auto_allow: { value: false, file: null },
    excluded_commands: [{ value: "docker", file: "/home/me/.claude/settings.json" }],
    allow_write: [],
    deny_read: [],
    allowed_domains: [],
  },
  problems: [],
  ...over,
});

/** A stored session summary, with `over` applied. */
export const storedSession = (over: Partial<SessionSummary> = {}): SessionSummary => ({
  id: "ses_old",
  project_path: "/work/demo",
  provider: "replay",
  model: "replay",
  mode: "default",
  status: "ended",
  end_reason: "app_closed",
  title: "do it",
  created_at_ms: 1,
  updated_at_ms: 2,
  event_count: 1,
  origin: "gatehouse",
  duration_ms: 9100,
  tool_calls: 0,
  asks: 0,
  denials: 0,
  errors: 0,
  input_tokens: 0,
  output_tokens: 0,
  parent_session_id: null,
  source_path: null,
  ...over,
});

/** Settings → Claude Code with no guard installed and `gatehouse-cli` beside the app. */
export function claudeCodeGuardView(): ClaudeCodeGuard {
  return {
    status: { installed: [], problems: [], last_call: null },
    user_file: "/home/me/.claude/settings.json",
    user_guarded: false,
    cli: "/usr/bin/gatehouse-cli",
    cli_problem: null,
  };
}
