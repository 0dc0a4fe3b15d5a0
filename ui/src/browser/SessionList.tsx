import { Trash2 } from "lucide-react";
import { useState } from "react";

import type { SessionFacets, SessionSummary } from "../generated/protocol";
import { formatCount, formatMs } from "./plots";
import type { ListQuery } from "./state";
import { sessionStateLabel } from "../format";

const SORTS: { value: ListQuery["sort"]; label: string }[] = [
  { value: "updated", label: "Last active" },
  { value: "started", label: "Started" },
  { value: "duration", label: "Duration" },
  { value: "tool_calls", label: "Tool calls" },
  { value: "errors", label: "Errors" },
  { value: "denials", label: "Denials" },
  { value: "tokens", label: "Tokens" },
];

/** The list's filters and sort. */
export function ListFilters({ query, facets, onChange }: { query: ListQuery; facets: SessionFacets; onChange(change: Partial<ListQuery>): void }) {
  return (
    <div className="list-filters" data-testid="list-filters">
      <label>
        Project{" "}
        <select data-testid="filter-project" value={query.project ?? ""} onChange={(e) => onChange({ project: e.target.value || null })}>
          <option value="">All</option>
          {facets.projects.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <label>
        Model{" "}
        <select data-testid="filter-model" value={query.model ?? ""} onChange={(e) => onChange({ model: e.target.value || null })}>
          <option value="">All</option>
          {facets.models.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </label>
      <label>
        From <input type="date" data-testid="filter-from" value={query.from} onChange={(e) => onChange({ from: e.target.value })} />
      </label>
      <label>
        To <input type="date" data-testid="filter-to" value={query.to} onChange={(e) => onChange({ to: e.target.value })} />
      </label>
      <label>
        Origin{" "}
        <select data-testid="filter-origin" value={query.origin} onChange={(e) => onChange({ origin: e.target.value as ListQuery["origin"] })}>
          <option value="all">All</option>
          <option value="gatehouse">Gatehouse</option>
          <option value="claude_code">Claude Code</option>
        </select>
      </label>
      <label>
        <input type="checkbox" data-testid="filter-denials" checked={query.hadDenials} onChange={(e) => onChange({ hadDenials: e.target.checked })} /> Had denials
      </label>
      <label>
        <input type="checkbox" data-testid="filter-errors" checked={query.hadErrors} onChange={(e) => onChange({ hadErrors: e.target.checked })} /> Had errors
      </label>
      <label>
        Sort{" "}
        <select data-testid="list-sort" value={query.sort} onChange={(e) => onChange({ sort: e.target.value as ListQuery["sort"] })}>
          {SORTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </label>
      <button type="button" data-testid="list-direction" onClick={() => onChange({ ascending: !query.ascending })} title="Reverse the order">
        {query.ascending ? "↑ Ascending" : "↓ Descending"}
      </button>
    </div>
  );
}

/** A delete button that asks once more inline (no native dialog). */
export function DeleteButton({ onDelete, testId = "delete-session" }: { onDelete(): void; testId?: string }) {
  const [armed, setArmed] = useState(false);
  return armed ? (
    <span className="confirm">
      <button type="button" className="danger" data-testid={`${testId}-confirm`} onClick={onDelete}>
        Delete with its files
      </button>
      <button type="button" onClick={() => setArmed(false)}>
        Keep
      </button>
    </span>
  ) : (
    <button type="button" data-testid={testId} title="Delete this session" onClick={() => setArmed(true)}>
      <Trash2 size={14} aria-hidden="true" /> Delete
    </button>
  );
}

const when = (ms: number) => new Date(ms).toLocaleString();

/** The sessions, one row each: title, project, start, duration, model, counts, tokens. */
export function SessionTable({
  sessions,
  onOpen,
  onDelete,
}: {
  sessions: readonly SessionSummary[];
  onOpen(session: SessionSummary): void;
  onDelete(session: SessionSummary): void;
}) {
  if (sessions.length === 0) return <p className="empty" data-testid="sessions-empty">No stored sessions match.</p>;
  return (
    <table className="session-table" data-testid="session-table">
      <thead>
        <tr>
          <th>Session</th>
          <th>Project</th>
          <th>Started</th>
          <th>Duration</th>
          <th>Model</th>
          <th title="Tool calls · asks · denials · errors">Calls · asks · denied · errors</th>
          <th>Tokens</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {sessions.map((s) => (
          <tr key={s.id} data-testid="session-row" data-session-id={s.id} data-origin={s.origin}>
            <td className="session-cell-title">
              <button type="button" className="link" data-testid="session-open" onClick={() => onOpen(s)} title={s.title ?? s.id}>
                {s.title ?? <span className="muted">(no prompt)</span>}
              </button>
              {s.origin === "claude_code" && <span className="badge origin-badge">Claude Code</span>}
              {s.parent_session_id !== null && <span className="badge">sub-agent</span>}
              {s.origin === "gatehouse" && (
                <span className="muted small session-state" data-testid="session-state">
                  {" "}
                  · {sessionStateLabel(s)}
                </span>
              )}
            </td>
            <td className="mono small" title={s.project_path}>
              {s.project_path}
            </td>
            <td className="small">{when(s.created_at_ms)}</td>
            <td className="small">{formatMs(s.duration_ms)}</td>
            <td className="small">{s.model}</td>
            <td className="small counts" data-testid="session-counts">
              {s.tool_calls} · {s.asks} · <span className={s.denials > 0 ? "warn" : ""}>{s.denials}</span> ·{" "}
              <span className={s.errors > 0 ? "bad" : ""}>{s.errors}</span>
            </td>
            <td className="small">{formatCount(s.input_tokens + s.output_tokens)}</td>
            <td>
              <DeleteButton onDelete={() => onDelete(s)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
