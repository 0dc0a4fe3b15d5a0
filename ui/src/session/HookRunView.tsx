import { useState } from "react";

import type { HookRun as ProtocolHookRun } from "../generated/protocol";
import { formatDuration } from "./format";
import type { HookRun } from "./model";

/** How a settings-file hook run ended, from its typed fields. */
function outcome(run: ProtocolHookRun): string {
  if (run.timed_out) return "did not answer in time";
  if (run.signal !== null) return `signal ${run.signal}`;
  if (run.exit_code === null) return "did not start";
  return run.handler === "http" ? `HTTP ${run.exit_code}` : `exit ${run.exit_code}`;
}

/** The output of a run, folded: stdout and stderr as the hook printed them (first KB). */
function Output({ run }: { run: ProtocolHookRun }) {
  const [open, setOpen] = useState(false);
  if (!run.stdout && !run.stderr) return null;
  return (
    <>
      <button type="button" className="link small" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="hook-output-toggle">
        output
      </button>
      {open && (
        <div className="hook-output" data-testid="hook-output">
          {run.stdout && <pre className="mono small">{run.stdout}</pre>}
          {run.stderr && <pre className="mono small hook-stderr">{run.stderr}</pre>}
          {run.output_truncated && <div className="small muted">(output cut; the first KB is kept)</div>}
        </div>
      )}
    </>
  );
}

/** A command hook: the command, its source, exit code and duration. */
export function CommandHookRun({ hook, run }: { hook: HookRun; run: ProtocolHookRun }) {
  return (
    <li className="hook-run" data-testid="hook-run" data-kind="command" data-decision={hook.decision ?? ""}>
      <span className="hook-event">{hook.hookEvent}</span> <span className="mono">{run.command}</span>
      <span className="small muted"> {run.source ? `(${run.source})` : ""} {outcome(run)}, {formatDuration(run.duration_ms)}</span>
      {hook.decision && <strong> {hook.decision}</strong>}
      {hook.message && <span> — {hook.message}</span>}
      {hook.error && <span className="hook-error"> — {hook.error}</span>}
      <Output run={run} />
    </li>
  );
}

/** An HTTP hook: the URL, the status and duration. */
export function HttpHookRun({ hook, run }: { hook: HookRun; run: ProtocolHookRun }) {
  return (
    <li className="hook-run" data-testid="hook-run" data-kind="http" data-decision={hook.decision ?? ""}>
      <span className="hook-event">{hook.hookEvent}</span> POST <span className="mono">{run.command}</span>
      <span className="small muted"> {run.source ? `(${run.source})` : ""} {outcome(run)}, {formatDuration(run.duration_ms)}</span>
      {hook.decision && <strong> {hook.decision}</strong>}
      {hook.message && <span> — {hook.message}</span>}
      {hook.error && <span className="hook-error"> — {hook.error}</span>}
      <Output run={run} />
    </li>
  );
}

/** The settings-file hooks that ran for a call, inside the call (in-process hooks have no `run`). */
export function HookRuns({ hooks }: { hooks: readonly HookRun[] }) {
  const runs = hooks.filter((h) => h.run !== null);
  if (runs.length === 0) return null;
  return (
    <ul className="hook-runs small" data-testid="call-hook-runs">
      {runs.map((h, i) =>
        h.run?.handler === "http" ? <HttpHookRun key={i} hook={h} run={h.run} /> : h.run ? <CommandHookRun key={i} hook={h} run={h.run} /> : null,
      )}
    </ul>
  );
}

/**
 * A session-level hook run in the transcript (SessionStart, UserPromptSubmit,
 * Stop, SessionEnd): what ran, how it ended and what it said.
 */
export function SessionHookRow({ hook }: { hook: HookRun }) {
  const run = hook.run;
  return (
    <div className="session-hook small" data-testid="session-hook" data-hook-event={hook.hookEvent} data-blocked={hook.blocked}>
      <span className="hook-event">{hook.hookEvent} hook</span> <span className="mono">{run ? run.command : hook.hook}</span>
      {run && (
        <span className="muted">
          {" "}
          {run.source ? `(${run.source})` : ""} {outcome(run)}, {formatDuration(run.duration_ms)}
        </span>
      )}
      {hook.blocked && <strong> blocked</strong>}
      {hook.message && <span> — {hook.message}</span>}
      {hook.error && <span className="hook-error"> — {hook.error}</span>}
      {run && (
        <ul className="hook-runs">
          <li className="hook-run">
            <Output run={run} />
          </li>
        </ul>
      )}
    </div>
  );
}
