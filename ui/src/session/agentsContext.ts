// What an Agent call's renderer needs beyond its call: the session's
// sub-agents (their models and progress, `agents.ts`), which nested
// transcripts are open, and how to open a sub-agent's stored session. The
// session screen and the browser's reader provide it; the renderer reads it
// from context because the transcript's rows are memoised on their calls,
// and a sub-agent's events change its transcript, not the Agent call.

import { createContext } from "react";

import type { SessionTree } from "./agents";

/** The sub-agents on show. */
export interface AgentsView {
  tree: SessionTree;
  /** The tree's version when it was handed down (it is updated in place). */
  version: number;
  /** Open nested transcripts and groups, by key (`agent:<call id>`, `group:…`). */
  expanded: ReadonlySet<string>;
  onToggle(key: string): void;
  /** Opens a sub-agent's stored session (read-only), when the view can. */
  onOpenSession?: ((sessionId: string) => void) | undefined;
}

export const AgentsContext = createContext<AgentsView | null>(null);

/** The key of an Agent call's nested transcript in `expanded`. */
export function agentKey(callId: string): string {
  return `agent:${callId}`;
}
