// The session's settings-file hooks (its last `hooks_loaded`): how many
// run, which are listed but not run and why, and malformed entries with
// file:line:col. Shown beside the session rules; nothing when the session
// has no hooks.

import type { HooksLoaded } from "./model";

export function SessionHooks({ hooks }: { hooks: HooksLoaded | null }) {
  if (hooks === null) return null;
  const { active, notRun, problems } = hooks;
  return (
    <section className="panel session-hooks" data-testid="session-hooks" data-active={active} aria-label="Hooks">
      <h3>Hooks</h3>
      <p className="small" data-testid="session-hooks-summary">
        {active === 0 ? "No hook runs" : `${active} hook${active === 1 ? "" : "s"} run`}
        {notRun.length > 0 && `, ${notRun.length} listed but not run`}
        {problems.length > 0 && `, ${problems.length} problem${problems.length === 1 ? "" : "s"}`}
      </p>
      {(notRun.length > 0 || problems.length > 0) && (
        <details>
          <summary className="small">Which and why</summary>
          <ul className="small">
            {notRun.map((h, i) => (
              <li key={`n${i}`} data-testid="session-hook-not-run" data-reason={h.reason ?? ""}>
                {h.event} <span className="mono">{h.command}</span> <span className="hook-why">— {h.why}</span>
                <div className="muted mono">
                  {h.file}:{h.line}:{h.column}
                </div>
              </li>
            ))}
            {problems.map((p, i) => (
              <li key={`p${i}`} className="hook-why" data-testid="session-hook-problem">
                {p.file}:{p.line}:{p.column}: {p.message}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
