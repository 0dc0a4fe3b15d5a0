import { ChevronDown, ChevronRight, ExternalLink } from "lucide-react";
import { memo, useContext } from "react";

import type { Subagent } from "../agents";
import { AgentsContext, agentKey } from "../agentsContext";
import { formatDuration } from "../format";
import type { SessionModel, ToolCall, TranscriptItem } from "../model";
import { Elapsed, Spinner } from "../Status";
import { rowCalls, TranscriptRow } from "../Transcript";
import { GenericView } from "./GenericView";

/** At most this many of a sub-agent's transcript rows are in the DOM (the newest). */
export const NESTED_ROWS = 200;

/** Rows a nested transcript shows: no per-turn timelines (the parent's shows the Agent call's span). */
function nestedItems(model: SessionModel): TranscriptItem[] {
  return model.transcript.filter((item) => item.kind !== "timeline");
}

/** What a sub-agent is doing: its type, its current tool, calls, tokens and time. */
export function AgentProgress({ agent }: { agent: Subagent }) {
  const running = agent.status === null;
  return (
    <div className="agent-progress small" data-testid="agent-progress" data-phase={agent.phase}>
      {running ? <Spinner /> : <span className={`dot dot-${agent.status === "completed" ? "completed" : "failed"}`} />}
      <span className="agent-state" data-testid="agent-state">
        {running ? (agent.currentTool !== null ? `running ${agent.currentTool}` : "starting") : (agent.status ?? "").replace(/_/g, " ")}
      </span>
      <span data-testid="agent-calls" data-count={agent.toolCalls}>
        {agent.toolCalls} call{agent.toolCalls === 1 ? "" : "s"}
      </span>
      <span>{agent.outputTokens} tokens out</span>
      {agent.endedMs !== null ? <span className="elapsed">{formatDuration(agent.endedMs - agent.startedMs)}</span> : <Elapsed since={agent.startedMs} />}
    </div>
  );
}

/** A sub-agent's own transcript, nested under its Agent call (not virtualised: bounded to the newest rows). */
function NestedTranscript({ model, expanded, onToggle }: { model: SessionModel; expanded: ReadonlySet<string>; onToggle(key: string): void }) {
  const items = nestedItems(model);
  const shown = items.slice(-NESTED_ROWS);
  return (
    <div className="agent-transcript" data-testid="agent-transcript">
      {items.length > shown.length && (
        <p className="muted small">{items.length - shown.length} earlier rows are not shown; the sub-agent's stored session has them all.</p>
      )}
      {shown.map((item) => (
        <TranscriptRow
          key={item.key}
          item={item}
          calls={rowCalls(item, model)}
          project={model.project}
          expanded={expanded.has(item.key)}
          onToggleGroup={onToggle}
          targetCallId={null}
        />
      ))}
    </div>
  );
}

/**
 * An Agent call: the sub-agent's live progress, its nested transcript
 * (collapsed; the toggle opens it), then the call's input and result.
 */
export const AgentCallView = memo(function AgentCallView({ call }: { call: ToolCall }) {
  const view = useContext(AgentsContext);
  const agentId = view?.tree.byCall.get(call.id) ?? null;
  const agent = agentId === null ? undefined : view?.tree.agents.get(agentId);
  const child = agentId === null ? undefined : view?.tree.children.get(agentId);
  const key = agentKey(call.id);
  const open = view?.expanded.has(key) ?? false;
  const rows = child ? nestedItems(child).length : 0;
  return (
    <div className="agent-call" data-testid="agent-call" data-agent-session-id={agentId ?? undefined} data-agent-status={agent ? (agent.status ?? "running") : undefined}>
      {agent && <AgentProgress agent={agent} />}
      {view && child && rows > 0 && (
        <button type="button" className="link agent-toggle" data-testid="agent-transcript-toggle" aria-expanded={open} onClick={() => view.onToggle(key)}>
          {open ? <ChevronDown size={14} aria-hidden="true" /> : <ChevronRight size={14} aria-hidden="true" />}
          {open ? "Hide" : "Show"} the sub-agent's transcript ({rows} row{rows === 1 ? "" : "s"})
        </button>
      )}
      {view && agentId !== null && rows === 0 && view.onOpenSession && (
        <button type="button" className="link agent-toggle" data-testid="agent-open-session" onClick={() => view.onOpenSession?.(agentId)}>
          <ExternalLink size={14} aria-hidden="true" /> Open the sub-agent's transcript
        </button>
      )}
      {view && child && open && <NestedTranscript model={child} expanded={view.expanded} onToggle={view.onToggle} />}
      <GenericView call={call} />
    </div>
  );
});
