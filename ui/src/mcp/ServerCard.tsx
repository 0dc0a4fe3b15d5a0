import { useState } from "react";

import type { McpServerEntry, McpServerProbe } from "../generated/protocol";
import { advice, SCOPE_LABELS, secretsOf, usesOAuth } from "./help";
import { StateBadge } from "./StateBadge";
import { ToolList } from "./ToolList";
import { plural } from "../format";

interface Props {
  entry: McpServerEntry;
  probe: McpServerProbe | undefined;
  /** A probe is running (the state shown may be about to change). */
  checking: boolean;
  onEdit(): void;
  onRemove(): void;
  onSetDisabled(disabled: boolean): void;
  onApprove(): void;
  /** This server's OAuth sign-in is waiting for the browser. */
  signingIn: boolean;
  onSignIn(): void;
  onSignOut(): void;
}

/** One configured server: where it is from, its state, tools and log. */
export function ServerCard({
  entry,
  probe,
  checking,
  onEdit,
  onRemove,
  onSetDisabled,
  onApprove,
  signingIn,
  onSignIn,
  onSignOut,
}: Props) {
  const state = probe?.state ?? null;
  const help = state === null ? null : advice(state, entry, (probe?.stderr.length ?? 0) > 0);
  // Removing deletes the entry from its file: asked once more, in place.
  const [confirmRemove, setConfirmRemove] = useState(false);
  const editable = entry.draft !== null;
  const secrets = secretsOf(entry);
  return (
    <li className="mcp-server" data-testid="mcp-server" data-name={entry.name}>
      <div className="mcp-server-head">
        <strong>{entry.name}</strong>
        <StateBadge state={state} checking={checking} />
        <span className="mcp-scope" title={entry.file}>
          {SCOPE_LABELS[entry.scope]} · {entry.transport}
        </span>
      </div>
      <code className="mcp-summary">{entry.summary}</code>
      {secrets.length > 0 && (
        <ul className="mcp-secrets">
          {secrets.map((v) => (
            <li key={v.name} data-testid="mcp-secret" data-name={v.name}>
              {v.name}: {v.stored ? "•••••• stored in keychain" : "missing from the keychain"}
            </li>
          ))}
        </ul>
      )}
      {entry.approval === "pending" && (
        <div className="mcp-approve" role="alert">
          This project server has not been approved{state === null ? "" : " in its current form"}. It runs{" "}
          <code>{entry.summary}</code> when approved.{" "}
          <button type="button" data-testid="mcp-approve" onClick={onApprove}>
            Approve
          </button>
        </div>
      )}
      {probe?.message && (
        <p className={`mcp-message mcp-message-${state ?? ""}`} data-testid="mcp-server-message">
          {probe.message}
        </p>
      )}
      {help !== null && <p className="mcp-advice">{help}</p>}
      {usesOAuth(entry) && (state === "needs_auth" || state === "connected") && (
        <div className="mcp-sign-in" data-testid="mcp-sign-in-slot">
          {state === "needs_auth" ? (
            <button type="button" className="primary" data-testid="mcp-sign-in" disabled={signingIn} onClick={onSignIn}>
              {signingIn ? "Waiting for the browser…" : "Sign in"}
            </button>
          ) : (
            <button type="button" data-testid="mcp-sign-out" onClick={onSignOut}>
              Sign out
            </button>
          )}
          {signingIn && <span className="mcp-advice">Finish signing in in the browser window that opened.</span>}
        </div>
      )}
      {probe && <ToolList tools={probe.tools} trusted={entry.trusted} />}
      {probe && probe.stderr.length > 0 && (
        <details className="mcp-stderr" data-testid="mcp-stderr">
          <summary>Server log ({plural(probe.stderr.length, "line")})</summary>
          <pre>{probe.stderr.join("\n")}</pre>
        </details>
      )}
      <div className="mcp-actions">
        {editable ? (
          <>
            <button type="button" data-testid="mcp-edit" onClick={onEdit}>
              Edit
            </button>
            <button type="button" data-testid="mcp-toggle-disabled" onClick={() => onSetDisabled(!entry.disabled)}>
              {entry.disabled ? "Enable" : "Disable"}
            </button>
            {confirmRemove ? (
              <span className="mcp-confirm" role="alert" data-testid="mcp-remove-confirmation">
                Remove {entry.name} from {entry.file}?{" "}
                <button type="button" className="danger" data-testid="mcp-remove-confirm" onClick={onRemove}>
                  Remove
                </button>{" "}
                <button type="button" data-testid="mcp-remove-cancel" onClick={() => setConfirmRemove(false)}>
                  Keep it
                </button>
              </span>
            ) : (
              <button type="button" data-testid="mcp-remove" onClick={() => setConfirmRemove(true)}>
                Remove…
              </button>
            )}
          </>
        ) : (
          <span className="mcp-note">Configured in {entry.file} (Claude Code); edit it there.</span>
        )}
      </div>
    </li>
  );
}
