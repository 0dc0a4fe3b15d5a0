import { ChevronDown, ChevronRight, Layers } from "lucide-react";
import { memo, useState } from "react";

import { callSummary } from "./format";
import { ToolIcon } from "./icons";
import { groupSummary, isFinished, mcpParts, type ToolCall } from "./model";
import { AgentCallView } from "./renderers/AgentCall";
import { BashView } from "./renderers/BashView";
import { DiffView } from "./renderers/DiffView";
import { GenericView } from "./renderers/GenericView";
import { McpView } from "./renderers/McpView";
import { ReadView } from "./renderers/ReadView";
import { ReasonAndTrace, RefusalView } from "./renderers/RefusalView";
import { SearchView } from "./renderers/SearchView";
import { ToolSearchView } from "./renderers/ToolSearchView";
import { WebFetchView } from "./renderers/WebFetchView";
import { WebSearchView } from "./renderers/WebSearchView";
import { CallTiming, StatusBadge } from "./Status";
import { HookRuns } from "./HookRunView";

/** Edit/Write/NotebookEdit: the diff it made, or the one it would make, or what it was given. */
function EditBody({ call }: { call: ToolCall }) {
  const diff = call.diff ?? call.request?.preview ?? null;
  if (diff) return <DiffView diff={diff} />;
  if (isFinished(call.status)) return null;
  return <div className="muted small">Preparing the change…</div>;
}

/** The renderer for a call's kind. */
function Body({ call }: { call: ToolCall }) {
  // A todo update or a mode switch is its header line alone (the list is in
  // the todo panel); a refusal still shows below.
  if ((call.name === "TodoWrite" || call.name === "EnterPlanMode") && call.status !== "error") return null;
  if (call.name === "ToolSearch") return <ToolSearchView call={call} />;
  switch (call.kind) {
    case "read":
      return <ReadView call={call} />;
    case "search":
    case "list":
      return <SearchView call={call} />;
    case "edit":
      return call.status === "denied" ? null : <EditBody call={call} />;
    case "bash":
      return <BashView call={call} />;
    case "mcp":
      return <McpView call={call} />;
    case "agent":
      return <AgentCallView call={call} />;
    case "web":
      return call.name === "WebSearch" ? <WebSearchView call={call} /> : <WebFetchView call={call} />;
    default:
      return <GenericView call={call} />;
  }
}

/** The name shown for a tool (MCP: the tool part; the server is in the body). */
export function displayName(name: string): string {
  const mcp = mcpParts(name);
  return mcp ? mcp.tool || mcp.server : name;
}

/** One tool call: header (icon, name, what, status, time), its renderer, refusals and "why". */
export const ToolCallView = memo(function ToolCallView({
  call,
  project,
  target = false,
}: {
  call: ToolCall;
  project: string | null;
  /** The call a search hit or a replay opened at: marked. */
  target?: boolean;
}) {
  const [why, setWhy] = useState(false);
  const decided = call.decision && call.status !== "denied";
  return (
    <div
      className={`tool-call status-${call.status}`}
      data-testid="tool-call"
      data-tool-name={call.name}
      data-tool-use-id={call.id}
      data-status={call.status}
      data-target={target ? true : undefined}
    >
      <div className="tool-head">
        <ToolIcon kind={call.kind} />
        <span className="tool-name">{displayName(call.name)}</span>
        <span className="tool-summary mono" title={callSummary(call, project)}>
          {callSummary(call, project)}
        </span>
        {decided && (
          <button type="button" className="link why" aria-expanded={why} onClick={() => setWhy(!why)} data-testid="why-button">
            why?
          </button>
        )}
        <StatusBadge status={call.status} />
        <CallTiming call={call} />
      </div>
      {why && call.decision && (
        <div className="why-panel">
          <ReasonAndTrace reason={call.decision.reason} trace={call.decision.trace} />
          {call.hooks.length > 0 && (
            <ul className="hooks small" data-testid="hook-runs">
              {call.hooks.map((h, i) => (
                <li key={i}>
                  {h.hookEvent} hook <span className="mono">{h.hook}</span>
                  {h.decision ? `: ${h.decision}` : ""}
                  {h.blocked ? " (blocked)" : ""}
                  {h.message ? ` — ${h.message}` : ""}
                  {h.error ? ` — failed: ${h.error}` : ""}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="tool-body">
        <HookRuns hooks={call.hooks} />
        <Body call={call} />
        <RefusalView call={call} />
      </div>
    </div>
  );
});

/** The status of a group: the "worst" of its calls while any runs, else done/error. */
function groupStatus(calls: readonly ToolCall[]): ToolCall["status"] {
  const order: ToolCall["status"][] = [
    "waiting_permission",
    "running",
    "queued",
    "error",
    "timed_out",
    "denied",
    "interrupted",
    "cancelled",
  ];
  for (const s of order) if (calls.some((c) => c.status === s)) return s;
  return "completed";
}

/**
 * Consecutive read/search calls as one collapsible line with a summary
 * ("Read 3 files, searched 1 pattern"); collapsed by default.
 */
export const ToolGroupView = memo(function ToolGroupView({
  calls,
  project,
  expanded,
  onToggle,
  targetCallId = null,
}: {
  calls: readonly ToolCall[];
  project: string | null;
  expanded: boolean;
  onToggle(): void;
  /** The call to mark, when it is one of these. */
  targetCallId?: string | null;
}) {
  const status = groupStatus(calls);
  const start = Math.min(...calls.map((c) => c.startedMs ?? c.queuedMs));
  const end = calls.every((c) => c.endedMs !== null) ? Math.max(...calls.map((c) => c.endedMs ?? 0)) : null;
  const timing: ToolCall = { ...(calls[0] as ToolCall), result: null, startedMs: start, endedMs: end };
  return (
    <div className={`tool-group status-${status}`} data-testid="tool-group" data-status={status} data-count={calls.length}>
      <button type="button" className="tool-group-head" data-testid="tool-group-toggle" aria-expanded={expanded} onClick={onToggle}>
        {expanded ? <ChevronDown size={16} aria-hidden="true" /> : <ChevronRight size={16} aria-hidden="true" />}
        <Layers size={16} aria-hidden="true" className="tool-icon" />
        <span className="tool-group-summary" data-testid="tool-group-summary">
          {groupSummary(calls)}
        </span>
        <StatusBadge status={status} />
        {status === "queued" ? <span className="elapsed" /> : <CallTiming call={timing} />}
      </button>
      {expanded && (
        <div className="tool-group-calls">
          {calls.map((call) => (
            <ToolCallView key={call.id} call={call} project={project} target={call.id === targetCallId} />
          ))}
        </div>
      )}
    </div>
  );
});
