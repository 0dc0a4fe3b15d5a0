// The session's Bash sandbox when there is something to say: enabled but
// unable to run here (its typed `sandbox_unavailable`: commands run
// unconfined and ask as usual), and problems in the `sandbox` settings keys
// (its last `sandbox_settings_read`: wrong shapes, unsupported keys).

import type { SandboxUnavailable, SettingsProblem } from "../generated/protocol";
import { fixText, unavailableReasonText } from "../sandbox/describe";

interface Props {
  unavailable: SandboxUnavailable | null;
  problems?: readonly SettingsProblem[];
}

export function SandboxNotice({ unavailable, problems = [] }: Props) {
  if (unavailable === null && problems.length === 0) return null;
  const fix = unavailable === null ? null : fixText(unavailable.fix);
  return (
    <section className="panel sandbox-notice" data-testid="sandbox-notice" aria-label="Sandbox" role="status">
      <h3>Sandbox</h3>
      {unavailable !== null && (
        <div data-testid="sandbox-unavailable" data-reason={unavailable.reason}>
          <p className="tool-unavailable small">
            Sandbox unavailable: {unavailableReasonText(unavailable.reason)}; commands ask as usual.
          </p>
          {fix !== null && (
            <p className="small" data-testid="sandbox-fix">
              To fix: {fix}
            </p>
          )}
          <p className="muted small mono" data-testid="sandbox-detail">
            {unavailable.detail}
          </p>
        </div>
      )}
      {problems.length > 0 && (
        <ul className="small" aria-label="Problems in sandbox settings">
          {problems.map((p) => (
            <li key={`${p.file}:${p.line}:${p.column}:${p.message}`} className="error" data-testid="sandbox-settings-problem">
              <span className="mono">
                {p.file}:{p.line}:{p.column}
              </span>{" "}
              {p.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
