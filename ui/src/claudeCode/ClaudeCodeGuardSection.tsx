import { useState } from "react";

import { timeAgo } from "../format";
import type { InstalledEntries, LastCall, Project } from "../generated/protocol";
import { useClaudeCodeGuard } from "./guard";

interface Props {
  /** Recent projects, offered for a project-only guard. */
  projects?: Project[] | null;
}

function LastCallLine({ call }: { call: LastCall | null }) {
  if (call === null) {
    return (
      <p className="muted" data-testid="claude-code-last-call" data-called="no">
        No Claude Code hook call has reached Gatehouse yet.
      </p>
    );
  }
  return (
    <p className="muted" data-testid="claude-code-last-call" data-called="yes">
      Last call: {call.event} {timeAgo(call.at_ms)}
      {call.claude_code_version !== null && <> from Claude Code {call.claude_code_version}</>}
      {call.session_id !== null && <> (session {call.session_id})</>}
    </p>
  );
}

function InstalledRow({
  entries,
  busy,
  onRemove,
}: {
  entries: InstalledEntries;
  busy: boolean;
  onRemove(): void;
}) {
  return (
    <li data-testid="claude-code-installed" data-scope={entries.scope}>
      <code>{entries.file}</code>{" "}
      <span className="muted">
        {entries.scope === "user" ? "every project" : `project ${entries.project ?? "?"}`} · {entries.events.join(", ")}
      </span>{" "}
      <button type="button" data-testid="claude-code-remove" disabled={busy} onClick={onRemove}>
        Remove
      </button>
    </li>
  );
}

/**
 * Settings → Claude Code: "Guard Claude Code" installs Gatehouse's hook
 * entries in Claude Code's settings, so the tool calls of Claude Code run in
 * a terminal are decided, asked in this window and recorded here.
 */
export function ClaudeCodeGuardSection({ projects = null }: Props) {
  const [{ guard, busy, error }, actions] = useClaudeCodeGuard();
  const [project, setProject] = useState("");
  const cannotInstall = guard?.cli_problem ?? null;
  return (
    <section className="claude-code-guard" data-testid="claude-code-guard">
      <h3>Claude Code</h3>
      <p className="muted">
        Claude Code sessions in a terminal ask Gatehouse first: its rules decide, its asks appear in this window, and every
        call is recorded in Sessions.
      </p>
      {error !== null && (
        <p className="error" data-testid="claude-code-guard-error" role="alert">
          {error}
        </p>
      )}
      {cannotInstall !== null && (
        <p className="error" data-testid="claude-code-cli-problem">
          {cannotInstall}
        </p>
      )}
      {guard !== null && (
        <>
          <label>
            <input
              type="checkbox"
              role="switch"
              data-testid="claude-code-guard-user"
              checked={guard.user_guarded}
              disabled={busy || (!guard.user_guarded && cannotInstall !== null)}
              onChange={(e) => void actions.set("user", null, e.target.checked)}
            />{" "}
            Guard Claude Code in every project <span className="muted">({guard.user_file})</span>
          </label>
          {projects !== null && projects.length > 0 && (
            <form
              className="claude-code-project"
              onSubmit={(e) => {
                e.preventDefault();
                if (project !== "") void actions.set("project", project, true);
              }}
            >
              <label>
                Or one project{" "}
                <select data-testid="claude-code-project" value={project} onChange={(e) => setProject(e.target.value)}>
                  <option value="">Choose…</option>
                  {projects.map((p) => (
                    <option key={p.id} value={p.path}>
                      {p.path}
                    </option>
                  ))}
                </select>
              </label>{" "}
              <button
                type="submit"
                data-testid="claude-code-guard-project"
                disabled={busy || project === "" || cannotInstall !== null}
              >
                Guard this project
              </button>
            </form>
          )}
          {guard.status.installed.length > 0 && (
            <ul className="claude-code-installed" aria-label="Guarded settings files">
              {guard.status.installed.map((entries) => (
                <InstalledRow
                  key={entries.file}
                  entries={entries}
                  busy={busy}
                  onRemove={() => void actions.set(entries.scope, entries.project, false)}
                />
              ))}
            </ul>
          )}
          {guard.status.problems.map((problem) => (
            <p key={problem} className="error" data-testid="claude-code-problem">
              {problem}
            </p>
          ))}
          <LastCallLine call={guard.status.last_call} />
        </>
      )}
    </section>
  );
}
