import type { McpServerStatus } from "../generated/protocol";
import { STATE_LABELS } from "./help";

/** A server's state as a coloured badge. */
export function StateBadge({ state, checking }: { state: McpServerStatus | null; checking: boolean }) {
  return (
    <span className={`mcp-badge mcp-badge-${state ?? "unknown"}`} data-testid="mcp-server-state" data-state={state ?? ""}>
      {state !== null ? STATE_LABELS[state] : checking ? "Checking…" : "Not checked"}
    </span>
  );
}
