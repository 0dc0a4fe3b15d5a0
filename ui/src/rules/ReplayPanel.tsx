// Replay ("what would change"): the edited rules over stored calls, with
// progress, counts per change and the calls that change, each opening its
// session at that call.

import type { ReplayChangedCall } from "../generated/protocol";
import type { ReplayState, ScopeKind } from "./state";
import { plural } from "../format";

interface Props {
  replay: ReplayState;
  onChange(patch: Partial<Pick<ReplayState, "scope" | "sessionId" | "since" | "until">>): void;
  onRun(): void;
  onOpenCall(sessionId: string, seq: number): void;
  onTestCall(call: ReplayChangedCall): void;
}

const SCOPES: { kind: ScopeKind; label: string }[] = [
  { kind: "project", label: "This project" },
  { kind: "all", label: "All projects" },
  { kind: "date_range", label: "This project, dates" },
  { kind: "session", label: "One session" },
];

function summary(call: ReplayChangedCall): string {
  const input = call.input as Record<string, unknown> | null;
  const main = input && (input.command ?? input.file_path ?? input.url ?? input.pattern);
  return typeof main === "string" ? main : JSON.stringify(call.input);
}

export function ReplayPanel({ replay, onChange, onRun, onOpenCall, onTestCall }: Props) {
  const { report, progress } = replay;
  return (
    <section className="rules-panel replay" data-testid="rule-replay">
      <h3>What would change</h3>
      <div className="replay-row">
        <select
          data-testid="replay-scope"
          aria-label="Calls to replay"
          value={replay.scope}
          onChange={(e) => onChange({ scope: e.target.value as ScopeKind })}
        >
          {SCOPES.map((s) => (
            <option key={s.kind} value={s.kind}>
              {s.label}
            </option>
          ))}
        </select>
        {replay.scope === "session" && (
          <input
            className="mono"
            data-testid="replay-session"
            placeholder="session id"
            value={replay.sessionId}
            onChange={(e) => onChange({ sessionId: e.target.value })}
          />
        )}
        {replay.scope === "date_range" && (
          <>
            <input type="date" data-testid="replay-since" value={replay.since} onChange={(e) => onChange({ since: e.target.value })} />
            <input type="date" data-testid="replay-until" value={replay.until} onChange={(e) => onChange({ until: e.target.value })} />
          </>
        )}
        <button type="button" data-testid="replay-run" disabled={replay.running} onClick={onRun}>
          {replay.running ? "Replaying…" : "Replay"}
        </button>
      </div>
      {progress && (
        <progress
          data-testid="replay-progress"
          max={Math.max(progress.total, 1)}
          value={progress.done}
          title={`${progress.done} of ${plural(progress.total, "call")}`}
        />
      )}
      {replay.error !== null && (
        <p className="error" data-testid="replay-error">
          {replay.error}
        </p>
      )}
      {report && (
        <div data-testid="replay-report">
          <p data-testid="replay-summary">
            {plural(report.total, "call replayed", "calls replayed")} against the saved rules: the edit changes{" "}
            {report.total - report.unchanged}, {report.unchanged} unchanged.
          </p>
          <ul className="replay-counts" data-testid="replay-counts">
            {report.changes.map((c) => (
              <li key={`${c.from}-${c.to}`} data-testid="replay-count" data-from={c.from} data-to={c.to}>
                <span className={`verdict verdict-${c.from}`}>{c.from}</span> →{" "}
                <span className={`verdict verdict-${c.to}`}>{c.to}</span>: {c.count}
              </li>
            ))}
          </ul>
          {report.since_recorded.length > 0 && (
            <div className="replay-drift" data-testid="replay-since-recorded">
              <p className="muted small">
                Not from this edit — since the calls were recorded, the saved rules decide differently:
              </p>
              <ul className="replay-counts">
                {report.since_recorded.map((c) => (
                  <li key={`${c.from}-${c.to}`} data-testid="replay-drift-count" data-from={c.from} data-to={c.to}>
                    <span className={`verdict verdict-${c.from}`}>{c.from}</span> →{" "}
                    <span className={`verdict verdict-${c.to}`}>{c.to}</span>: {c.count}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {report.settings_errors.map((e) => (
            <p key={e} className="error">
              {e}
            </p>
          ))}
          <ul className="replay-calls">
            {report.changed_calls.map((c) => (
              <li
                key={`${c.session_id}:${c.seq}`}
                data-testid="replay-call"
                data-session-id={c.session_id}
                data-seq={c.seq}
                data-from={c.from}
                data-to={c.to}
              >
                <button type="button" className="link" onClick={() => onOpenCall(c.session_id, c.seq)}>
                  <span className="mono">{c.tool_name}</span> <span className="mono muted">{summary(c)}</span>
                </button>{" "}
                <span className={`verdict verdict-${c.from}`}>{c.from}</span> →{" "}
                <span className={`verdict verdict-${c.to}`}>{c.to}</span>
                <button type="button" data-testid="replay-call-test" onClick={() => onTestCall(c)}>
                  Test
                </button>
              </li>
            ))}
          </ul>
          {report.changed_calls_truncated && <p className="muted">More calls change than are listed.</p>}
        </div>
      )}
    </section>
  );
}
