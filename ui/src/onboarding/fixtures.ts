// Test data for first run and Settings.

import type { AppSettings, StartupState } from "../generated/protocol";

/** Settings after first run, with `over` applied. */
export const appSettings = (over: Partial<AppSettings> = {}): AppSettings => ({
  onboarding_done: true,
  provider: null,
  default_models: { anthropic: "claude-sonnet-4-5", openai: "" },
  default_mode: "default",
  last_project: null,
  ...over,
});

/** The start-up state with settings `over` applied and nothing to reopen. */
export const startupState = (over: Partial<AppSettings> = {}): StartupState => ({
  settings: appSettings(over),
  settings_error: null,
  keychain_unavailable: null,
  last_project: { kind: "none" },
  sample_project_path: "/data/sample-project",
});
