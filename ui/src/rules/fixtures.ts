// A project's rules view as the backend sends it, for the unit tests.

import type { RulesView } from "../generated/protocol";

export const PROJECT_SETTINGS = "/p/.claude/settings.json";

export function rulesView(overrides: Partial<RulesView> = {}): RulesView {
  return {
    project: {
      id: 1,
      path: "/p",
      name: "p",
      added_at_ms: 0,
      last_opened_ms: 0,
      trusted_at_ms: 1,
      has_project_settings: true,
    },
    trusted: true,
    files: [
      {
        path: "/etc/claude-code/managed-settings.json",
        source: "policy",
        exists: true,
        editable: false,
        lock_reason: "managed policy: set by your organisation; Gatehouse never changes it",
        fingerprint: "f0",
        rules: [{ list: "deny", text: "WebFetch", decided_30d: 3 }],
        additional_directories: [],
        default_mode: null,
      },
      {
        path: PROJECT_SETTINGS,
        source: "project",
        exists: true,
        editable: true,
        lock_reason: null,
        fingerprint: "f1",
        rules: [{ list: "allow", text: "Bash(npm test:*)", decided_30d: 12 }],
        additional_directories: ["../shared"],
        default_mode: null,
      },
      {
        path: "/home/u/.claude/settings.json",
        source: "user",
        exists: false,
        editable: true,
        lock_reason: null,
        fingerprint: "",
        rules: [],
        additional_directories: [],
        default_mode: null,
      },
    ],
    sessions: [],
    default_mode: null,
    bypass_disabled: false,
    managed_rules_only: false,
    additional_directories: ["/shared"],
    tool_names: ["Bash", "Read", "Edit", "WebFetch", "mcp__docs__search"],
    problems: [],
    can_undo: false,
    ...overrides,
  };
}
