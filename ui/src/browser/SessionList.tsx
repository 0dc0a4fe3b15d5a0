import { ArrowDown, ArrowUp, Trash2 } from "lucide-react";
import { useState } from "react";

import type { SessionFacets, SessionSummary } from "../generated/protocol";
import { type SessionLabel, plural, sessionStateLabel, startedLabel } from "../format";
import { formatCount, formatMs } from "./plots";
import { nestSessions } from "./nesting";
import { allState, deletionNames } from "./selection";
import type { ListQuery } from "./state";

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
      {/* One unit that never wraps inside itself: the label, the order, the direction. */}
      <div className="list-sort" data-testid="list-sort-group">
        <label htmlFor="list-sort">Sort by</label>
        <select id="list-sort" data-testid="list-sort" value={query.sort} onChange={(e) => onChange({ sort: e.target.value as ListQuery["sort"] })}>
          {SORTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="icon"
          data-testid="list-direction"
          data-ascending={query.ascending}
          aria-label={query.ascending ? "Ascending (reverse the order)" : "Descending (reverse the order)"}
          title={query.ascending ? "Ascending: click for descending" : "Descending: click for ascending"}
          onClick={() => onChange({ ascending: !query.ascending })}
        >
          {query.ascending ? <ArrowUp size={14} aria-hidden="true" /> : <ArrowDown size={14} aria-hidden="true" />}
        </button>
      </div>
    </div>
  );
}

/** The reader's delete button: asks once more inline (no native dialog), naming the session. */
export function DeleteButton({ onDelete, what, testId = "reader-delete" }: { onDelete(): void; what: string; testId?: string }) {
  const [armed, setArmed] = useState(false);
  return armed ? (
    <span className="confirm" role="group" aria-label="Confirm deletion">
      <span className="confirm-what" data-testid={`${testId}-what`}>
        Delete “{what}” and its files?
      </span>
      <button type="button" className="danger" data-testid={`${testId}-confirm`} onClick={onDelete}>
        Delete
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

/**
 * The action on the ticked sessions: "Delete selected (n)", then a
 * confirmation naming what is deleted.
 */
export function SelectionBar({
  listed,
  selected,
  labels,
  onDelete,
  onClear,
}: {
  listed: readonly string[];
  selected: ReadonlySet<string>;
  labels: ReadonlyMap<string, SessionLabel>;
  onDelete(ids: string[]): void;
  onClear(): void;
}) {
  const [armed, setArmed] = useState(false);
  const ids = listed.filter((id) => selected.has(id));
  if (ids.length === 0) return null;
  const { names, more } = deletionNames(listed, selected, labels);
  return (
    <div className="selection-bar" data-testid="selection-bar" role="region" aria-label="Selected sessions">
      {armed ? (
        <>
          <p className="confirm-what" data-testid="delete-selected-what">
            Delete {plural(ids.length, "session")} and their files: {names.map((n) => `“${n}”`).join(", ")}
            {more > 0 ? ` and ${more} more` : ""}?
          </p>
          <button
            type="button"
            className="danger"
            data-testid="delete-selected-confirm"
            onClick={() => {
              setArmed(false);
              onDelete(ids);
            }}
          >
            Delete {plural(ids.length, "session")}
          </button>
          <button type="button" data-testid="delete-selected-keep" onClick={() => setArmed(false)}>
            Keep
          </button>
        </>
      ) : (
        <>
          <span data-testid="selection-count">{plural(ids.length, "session")} selected</span>
          <button type="button" data-testid="delete-selected" onClick={() => setArmed(true)}>
            <Trash2 size={14} aria-hidden="true" /> Delete selected ({ids.length})
          </button>
          <button type="button" className="link" data-testid="selection-clear" onClick={onClear}>
            Clear selection
          </button>
        </>
      )}
    </div>
  );
}

/** The sessions, one row each: a tick box, title, project, start, duration, model, counts, tokens. */
export function SessionTable({
  sessions,
  labels,
  selected,
  onOpen,
  onToggle,
  onToggleAll,
}: {
  sessions: readonly SessionSummary[];
  labels: ReadonlyMap<string, SessionLabel>;
  selected: ReadonlySet<string>;
  onOpen(session: SessionSummary): void;
  onToggle(id: string): void;
  onToggleAll(): void;
}) {
  if (sessions.length === 0) return <p className="empty" data-testid="sessions-empty">No stored sessions match.</p>;
  const all = allState(
    selected,
    sessions.map((s) => s.id),
  );
  return (
    <table className="session-table" data-testid="session-table">
      <thead>
        <tr>
          <th className="select-cell">
            <input
              type="checkbox"
              data-testid="session-select-all"
              aria-label="Select every listed session"
              checked={all === "all"}
              ref={(el) => {
                if (el) el.indeterminate = all === "some";
              }}
              onChange={onToggleAll}
            />
          </th>
          <th>Session</th>
          <th>Project</th>
          <th>Started</th>
          <th>Duration</th>
          <th>Model</th>
          <th title="Tool calls · asks · denials · errors">Calls · asks · denied · errors</th>
          <th>Tokens</th>
        </tr>
      </thead>
      <tbody>
        {nestSessions(sessions).map(({ session: s, depth }) => (
          <SessionRow key={s.id} session={s} depth={depth} label={labels.get(s.id)} selected={selected.has(s.id)} onOpen={onOpen} onToggle={onToggle} />
        ))}
      </tbody>
    </table>
  );
}

/** One listed session: its tick box, then its title (opens the reader) and figures. */
function SessionRow({
  session: s,
  depth,
  label,
  selected,
  onOpen,
  onToggle,
}: {
  session: SessionSummary;
  /** How deep it sits under listed parent sessions (sub-agents are indented). */
  depth: number;
  label: SessionLabel | undefined;
  selected: boolean;
  onOpen(session: SessionSummary): void;
  onToggle(id: string): void;
}) {
  return (
    <tr data-testid="session-row" data-session-id={s.id} data-origin={s.origin} data-selected={selected} data-depth={depth} data-parent-id={s.parent_session_id ?? undefined}>
      <td className="select-cell">
        <input
          type="checkbox"
          data-testid="session-select"
          aria-label={`Select ${label ? label.title : s.id}`}
          checked={selected}
          onChange={() => onToggle(s.id)}
        />
      </td>
      <td className="session-cell-title" style={depth > 0 ? { paddingLeft: `${depth * 1.25}rem` } : undefined}>
        {depth > 0 && (
          <span className="muted nest-mark" aria-hidden="true">
            ↳{" "}
          </span>
        )}
        <button type="button" className="link" data-testid="session-open" onClick={() => onOpen(s)} title={s.title ?? s.id}>
          {s.title ?? <span className="muted">(no prompt)</span>}
          {label && label.ordinal !== null && <span className="muted"> ({label.ordinal})</span>}
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
      <td className="small">{label?.started ?? startedLabel(s.created_at_ms)}</td>
      <td className="small">{formatMs(s.duration_ms)}</td>
      <td className="small">{s.model}</td>
      <td className="small counts" data-testid="session-counts">
        {s.tool_calls} · {s.asks} · <span className={s.denials > 0 ? "warn" : ""}>{s.denials}</span> ·{" "}
        <span className={s.errors > 0 ? "bad" : ""}>{s.errors}</span>
      </td>
      <td className="small">{formatCount(s.input_tokens + s.output_tokens)}</td>
    </tr>
  );
}
