import { lazy, Suspense, useMemo, useState } from "react";

import { toPermissionRequest, useClaudeCodeAsks } from "./asks";
import "./claudeCode.css";

// The modal (with its diff view, highlight.js and the session screen's
// styles) is its own chunk, loaded when the first ask arrives: most windows
// never see one, and the home screen starts without it (issue 23 item 6).
const PermissionModal = lazy(() =>
  import("../session/PermissionModal").then((module) => ({ default: module.PermissionModal })),
);

/**
 * A guarded Claude Code's asks, over whatever screen is open: the same
 * modal as a Gatehouse session's, saying which Claude Code project asks.
 */
export function ClaudeCodeAsks() {
  const queue = useClaudeCodeAsks();
  const requests = useMemo(() => queue.asks.map((a) => toPermissionRequest(a.shown, a.receivedMs)), [queue.asks]);
  const first = queue.asks[0]?.shown;
  // Mounted from the first ask on, so it keeps its focus bookkeeping
  // between asks as it did when it was always mounted.
  const [needed, setNeeded] = useState(false);
  if (!needed && queue.asks.length > 0) setNeeded(true);
  return (
    // The modal's own rules (PermissionModal loads them) apply; the session
    // screen's class gives them its theme variables. This wrapper has no box.
    <div className="session-screen claude-code-asks" data-testid="claude-code-asks">
      {queue.error !== null && (
        <p className="error" role="alert" data-testid="claude-code-ask-error">
          {queue.error}
        </p>
      )}
      {needed && (
        <Suspense fallback={null}>
          <PermissionModal
            requests={requests}
            destinations={queue.destinations}
            onAnswer={queue.answer}
            origin={first === undefined ? null : `Claude Code asks, in ${first.ask.project}`}
          />
        </Suspense>
      )}
    </div>
  );
}
