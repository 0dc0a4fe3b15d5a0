// Test data shared by the home screen and session view tests.

import type { SessionSummary } from "../generated/protocol";

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
