import { Bot, Square } from "lucide-react";

import { subagentState, type Subagent } from "../agents";
import { formatDuration } from "../format";
import { Elapsed, Spinner } from "../Status";

/** One row of the panel: a sub-agent and, when it runs as a background task, its task. */
export interface SubagentRow {
  agent: Subagent;
  /** The background task it runs as (Stop stops it); null for a foreground agent. */
  taskId: string | null;
}

/**
 * The session's sub-agents: running ones first, then finished ones, each
 * with its type, task, status, calls so far and time. A background agent
 * has a Stop button (the `stop_task` command); a foreground one stops with
 * the session's interrupt.
 */
export function SubagentsPanel({ rows, onStop }: { rows: readonly SubagentRow[]; onStop?: ((taskId: string) => void) | undefined }) {
  return (
    <section className="panel subagents-panel" data-testid="subagents-panel" aria-label="Sub-agents">
      <h3>Sub-agents</h3>
      {rows.length === 0 ? (
        <p className="muted small">None yet. The Agent tool starts them.</p>
      ) : (
        <ul>
          {rows.map(({ agent, taskId }) => {
            const state = subagentState(agent);
            return (
              <li
                key={agent.sessionId}
                className={`subagent subagent-${state}`}
                data-testid="subagent"
                data-status={state}
                data-session-id={agent.sessionId}
                data-subagent-type={agent.subagentType}
              >
                <div className="task-head">
                  {state === "running" ? <Spinner /> : <Bot size={14} aria-hidden="true" />}
                  <span className="task-id">{agent.subagentType}</span>
                  <span className="task-status">{state.replace(/_/g, " ")}</span>
                  {agent.endedMs !== null ? (
                    <span className="elapsed">{formatDuration(agent.endedMs - agent.startedMs)}</span>
                  ) : (
                    <Elapsed since={agent.startedMs} />
                  )}
                </div>
                <div className="small subagent-description" title={agent.description}>
                  {agent.description || "(no description)"}
                </div>
                <div className="muted small">
                  <span data-testid="subagent-calls">{agent.toolCalls} call{agent.toolCalls === 1 ? "" : "s"}</span>
                  {agent.currentTool !== null && state === "running" ? ` · ${agent.currentTool}` : ""}
                  {agent.background ? " · background" : ""}
                </div>
                {taskId !== null && state === "running" && onStop && (
                  <button type="button" className="subagent-stop" data-testid="subagent-stop" onClick={() => onStop(taskId)}>
                    <Square size={12} aria-hidden="true" /> Stop
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
