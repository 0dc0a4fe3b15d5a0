// A project's hooks view as the backend sends it, for the unit tests.

import type { HookEntryView, HookTestResult, HooksView } from "../../generated/protocol";
import { PROJECT_SETTINGS, rulesView } from "../fixtures";

export const USER_SETTINGS = "/home/u/.claude/settings.json";

export function guardEntry(overrides: Partial<HookEntryView> = {}): HookEntryView {
  return {
    event: "PreToolUse",
    group: 0,
    index: 0,
    matcher: "Bash",
    handler: "command",
    command: "./guard.sh",
    if_rule: null,
    timeout_secs: 30,
    enabled: true,
    runs: true,
    not_run: null,
    definition: { type: "command", command: "./guard.sh", timeout: 30, statusMessage: "checking" },
    line: 4,
    column: 31,
    ...overrides,
  };
}

export function hooksView(overrides: Partial<HooksView> = {}): HooksView {
  return {
    project: rulesView().project,
    trusted: true,
    files: [
      {
        path: "/etc/claude-code/managed-settings.json",
        source: "policy",
        exists: false,
        editable: false,
        lock_reason: "managed policy: set by your organisation; Gatehouse never changes it",
        fingerprint: "",
        hooks: [],
      },
      { path: PROJECT_SETTINGS, source: "project", exists: true, editable: true, lock_reason: null, fingerprint: "f1", hooks: [guardEntry()] },
      {
        path: USER_SETTINGS,
        source: "user",
        exists: true,
        editable: true,
        lock_reason: null,
        fingerprint: "f2",
        hooks: [
          guardEntry({
            event: "Stop",
            matcher: null,
            handler: "http",
            command: "http://127.0.0.1:9/stop",
            definition: { type: "http", url: "http://127.0.0.1:9/stop" },
            line: 2,
            column: 40,
          }),
        ],
      },
    ],
    problems: [{ file: PROJECT_SETTINGS, line: 9, column: 18, message: "`hooks.PostToolUse[0].hooks[0]` is a command hook without a command", loses_restrictions: false }],
    events: ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "Notification"],
    ...overrides,
  };
}

export function denyRun(): HookTestResult {
  return {
    stdin: '{\n  "hook_event_name": "PreToolUse",\n  "tool_name": "Bash"\n}',
    stdout: '{"hookSpecificOutput": {"permissionDecision": "deny"}}',
    stderr: "checking\n",
    exit_code: 0,
    signal: null,
    timed_out: false,
    duration_ms: 12,
    outcome: {
      decision: "deny",
      blocked: false,
      message: "no rm here",
      additional_context: null,
      updated_input: null,
      system_message: null,
      error: null,
    },
  };
}
