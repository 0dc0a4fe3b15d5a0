// What a server's state means for the user and what to do about it.

import type { McpServerEntry, McpServerStatus, McpToolView, McpValueDraft } from "../generated/protocol";
import { valuesOf } from "./form";

/** The badge text of a state. */
export const STATE_LABELS: Record<McpServerStatus, string> = {
  connecting: "Connecting",
  connected: "Connected",
  failed: "Failed",
  needs_auth: "Needs sign-in",
  disabled: "Disabled",
  awaiting_approval: "Awaiting approval",
};

/**
 * What to do next in a state, or `null` when nothing is needed. `hasLog`:
 * the server wrote to its stderr (the card shows that log below).
 */
export function advice(state: McpServerStatus, entry: McpServerEntry, hasLog = false): string | null {
  switch (state) {
    case "failed":
      return entry.transport === "stdio"
        ? `The server did not start or answer. Check the command, its arguments and environment (Edit)${hasLog ? ", and its log below" : ""}; then Reconnect.`
        : "The server could not be reached. Check the URL (Edit) and that the server is running; then Reconnect.";
    case "needs_auth":
      return "The server needs credentials. Enter the missing secret values (Edit: they go to the OS keychain) or sign in; then Reconnect.";
    case "awaiting_approval":
      return "This server comes from the project's .mcp.json. Approve it to let it start.";
    case "disabled":
      return "Turned off: it is listed but never started. Enable it to use its tools.";
    default:
      return null;
  }
}

/** The annotation hints of a tool, as short labels. */
export function toolHints(tool: McpToolView): string[] {
  const hints: string[] = [];
  hints.push(tool.read_only ? "read-only" : "writes");
  if (tool.destructive) hints.push("destructive");
  if (tool.open_world) hints.push("open-world");
  return hints;
}

/** Where a scope's servers are configured, for people. */
export const SCOPE_LABELS: Record<McpServerEntry["scope"], string> = {
  user: "Claude Code user",
  gatehouse: "Gatehouse",
  project: "Project .mcp.json",
  local: "Claude Code local",
};

/** The keychain-held env variables or headers of an entry. */
export function secretsOf(entry: McpServerEntry): McpValueDraft[] {
  return entry.draft === null ? [] : valuesOf(entry.draft.transport).filter((v) => v.secret);
}

/**
 * Whether an entry signs in with OAuth: an HTTP server configured without an
 * `Authorization` header (plain or secret) — the backend's rule. Entries
 * whose configuration the panel cannot read (`draft` null) are offered
 * sign-in when they are HTTP servers.
 */
export function usesOAuth(entry: McpServerEntry): boolean {
  if (entry.transport !== "http") return false;
  if (entry.draft === null) return true;
  return !valuesOf(entry.draft.transport).some((h) => h.name.trim().toLowerCase() === "authorization");
}
