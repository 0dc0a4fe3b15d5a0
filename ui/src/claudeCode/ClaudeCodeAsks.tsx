import { useMemo } from "react";

import { PermissionModal } from "../session/PermissionModal";
import { toPermissionRequest, useClaudeCodeAsks } from "./asks";
import "./claudeCode.css";

/**
 * A guarded Claude Code's asks, over whatever screen is open: the same
 * modal as a Gatehouse session's, saying which Claude Code project asks.
 */
export function ClaudeCodeAsks() {
  const queue = useClaudeCodeAsks();
  const requests = useMemo(() => queue.asks.map((a) => toPermissionRequest(a.shown, a.receivedMs)), [queue.asks]);
  const first = queue.asks[0]?.shown;
  return (
    // The modal's own rules (PermissionModal loads them) apply; the session
    // screen's class gives them its theme variables. This wrapper has no box.
    <div className="session-screen claude-code-asks" data-testid="claude-code-asks">
      {queue.error !== null && (
        <p className="error" role="alert" data-testid="claude-code-ask-error">
          {queue.error}
        </p>
      )}
      <PermissionModal
        requests={requests}
        destinations={queue.destinations}
        onAnswer={queue.answer}
        origin={first === undefined ? null : `Claude Code asks, in ${first.ask.project}`}
      />
    </div>
  );
}
