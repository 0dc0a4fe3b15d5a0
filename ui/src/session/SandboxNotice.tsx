// The session's Bash sandbox is enabled but cannot run here (its typed
// `sandbox_unavailable`): commands run unconfined and ask as usual.

import type { SandboxUnavailable } from "../generated/protocol";
import { fixText, unavailableReasonText } from "../sandbox/describe";

export function SandboxNotice({ unavailable }: { unavailable: SandboxUnavailable | null }) {
  if (unavailable === null) return null;
  const fix = fixText(unavailable.fix);
  return (
    <section
      className="panel sandbox-notice"
      data-testid="sandbox-unavailable"
      data-reason={unavailable.reason}
      aria-label="Sandbox unavailable"
      role="status"
    >
      <h3>Sandbox unavailable</h3>
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
    </section>
  );
}
