import { memo } from "react";

import { formatDuration } from "../format";
import type { Task } from "../model";
import { Elapsed, Spinner } from "../Status";

/** Background tasks: running ones first, with their command, status and output file. */
export const TaskPanel = memo(function TaskPanel({ tasks }: { tasks: readonly Task[] }) {
  const sorted = [...tasks].sort((a, b) => Number(b.status === "running") - Number(a.status === "running") || b.startedMs - a.startedMs);
  return (
    <section className="panel task-panel" data-testid="task-panel" aria-label="Background tasks">
      <h3>Background tasks</h3>
      {sorted.length === 0 ? (
        <p className="muted small">No background tasks.</p>
      ) : (
        <ul>
          {sorted.map((task) => (
            <li key={task.id} className={`task task-${task.status}`} data-testid="task" data-status={task.status}>
              <div className="task-head">
                {task.status === "running" ? <Spinner /> : <span className={`dot dot-${task.status}`} />}
                <span className="mono task-id">{task.id}</span>
                <span className="task-status">{task.status}</span>
                {task.endedMs !== null ? (
                  <span className="elapsed">{formatDuration(task.endedMs - task.startedMs)}</span>
                ) : (
                  <Elapsed since={task.startedMs} />
                )}
              </div>
              <div className="mono small task-command" title={task.command}>
                {task.description ?? task.command}
              </div>
              {task.message && <div className="muted small">{task.message}</div>}
              <div className="muted small mono task-path">{task.outputPath}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
});
