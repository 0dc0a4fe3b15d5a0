import type { McpServerStatus } from "../generated/protocol";
import { STATE_LABELS } from "./help";

/** A server's state as a coloured badge. */
export function StateBadge({ state }: { state: McpServerStatus | null }) {
  return (
    <span className={`mcp-badge mcp-badge-${state ?? "unknown"}`} data-testid="mcp-server-state" data-state={state ?? ""}>
      {state === null ? "Not checked" : STATE_LABELS[state]}
    </span>
  );
}
