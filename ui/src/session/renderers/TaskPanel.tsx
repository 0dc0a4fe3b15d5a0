import { FileText, Square } from "lucide-react";
import { memo, useState } from "react";

import { formatDuration } from "../format";
import { outputText, type Task } from "../model";
import { Elapsed, Spinner } from "../Status";
import { OutputPane } from "./BashView";

/** Lines of a task's live output in the panel (the file has all of it). */
export const TASK_OUTPUT_LINES = 12;

/** How a task ended, in a word or two: "exit 0", "exit 3", "stopped". */
export function taskExit(task: Task): string | null {
  switch (task.status) {
    case "running":
      return null;
    case "stopped":
      return "stopped";
    case "completed":
    case "failed":
      return task.exitCode !== null ? `exit ${task.exitCode}` : task.status;
  }
}

/**
 * Background tasks (Bash `run_in_background`, background agents): running
 * ones first, each with its command, status, exit status, elapsed time, its
 * live output with colours (process tasks; `task_output` events), a Stop
 * button while it runs (`stop_task`) and its whole output file (opened with
 * the OS opener, `open_task_output`). Rebuilt from stored `task_started` /
 * `task_completed` events, so a task that ended while the window was closed
 * shows how it ended.
 *
 * Test ids: task-panel · task (data-task-id, data-status, data-kind) ·
 * task-exit · task-output · task-stop · task-open-output.
 */
export const TaskPanel = memo(function TaskPanel({
  tasks,
  onStop,
  onOpenOutput,
}: {
  tasks: readonly Task[];
  onStop?: ((taskId: string) => void) | undefined;
  onOpenOutput?: ((taskId: string) => void) | undefined;
}) {
  // Stop pressed, until the task's end arrives.
  const [stopping, setStopping] = useState<ReadonlySet<string>>(new Set());
  const sorted = [...tasks].sort((a, b) => Number(b.status === "running") - Number(a.status === "running") || b.startedMs - a.startedMs);
  return (
    <section className="panel task-panel" data-testid="task-panel" aria-label="Background tasks">
      <h3>Background tasks</h3>
      {sorted.length === 0 ? (
        <p className="muted small">No background tasks.</p>
      ) : (
        <ul>
          {sorted.map((task) => {
            const running = task.status === "running";
            const exit = taskExit(task);
            return (
              <li key={task.id} className={`task task-${task.status}`} data-testid="task" data-task-id={task.id} data-status={task.status} data-kind={task.kind}>
                <div className="task-head">
                  {running ? <Spinner /> : <span className={`dot dot-${task.status}`} />}
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
                {exit !== null && (
                  <div className={`small task-exit ${task.status === "completed" ? "ok" : "bad"}`} data-testid="task-exit" title={task.message ?? undefined}>
                    {exit}
                    {task.message ? ` · ${task.message}` : ""}
                  </div>
                )}
                {task.kind === "process" && (
                  <OutputPane
                    text={outputText(task.output)}
                    streamed={task.output}
                    running={running}
                    placeholder={running ? "no output yet" : "(no output)"}
                    outputPath={task.outputPath}
                    maxLines={TASK_OUTPUT_LINES}
                    testId="task-output"
                  />
                )}
                <div className="task-actions">
                  {running && onStop && (
                    <button
                      type="button"
                      data-testid="task-stop"
                      disabled={stopping.has(task.id)}
                      onClick={() => {
                        setStopping((prev) => new Set(prev).add(task.id));
                        onStop(task.id);
                      }}
                    >
                      <Square size={12} aria-hidden="true" /> {stopping.has(task.id) ? "Stopping…" : "Stop"}
                    </button>
                  )}
                  {onOpenOutput && (
                    <button type="button" className="link small" data-testid="task-open-output" title={task.outputPath} onClick={() => onOpenOutput(task.id)}>
                      <FileText size={12} aria-hidden="true" /> Open output
                    </button>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
});
