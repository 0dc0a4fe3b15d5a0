import { ArrowLeft, Download, Play } from "lucide-react";
import { useCallback, useMemo, useState } from "react";

import type { SessionSummary } from "../generated/protocol";
import { foldTree } from "../session/agents";
import { AgentsContext, type AgentsView } from "../session/agentsContext";
import { TodoPanel } from "../session/renderers/TodoPanel";
import { currentTodos, TalkbackStore } from "../session/talkback";
import { Transcript } from "../session/Transcript";
import "../session/session.css";
import { formatCount, formatMs } from "./plots";
import {
  eventIndexOfSeq,
  filterModel,
  isFiltering,
  NO_FILTER,
  rowForSeq,
  toolNames,
  type CallFilter,
  type DecisionFilter,
} from "./readerModel";
import { DeleteButton } from "./SessionList";
import { useReader } from "./state";
import { StatsPanel } from "./StatsPanel";
import { plural, startedLabel } from "../format";

/** The session as a deletion confirmation names it: its first prompt and start. */
function readerLabel(summary: SessionSummary): string {
  return `${summary.title ?? summary.id} · ${startedLabel(summary.created_at_ms)}`;
}

/** A filter as a key: the transcript restarts (at its top) when it changes. */
function filterKey(filter: CallFilter): string {
  return `${filter.tool ?? ""}|${filter.decision}|${filter.errorsOnly}`;
}

/** The in-session filters: tool, decision, errors only. */
export function CallFilters({ filter, tools, onChange }: { filter: CallFilter; tools: readonly string[]; onChange(next: CallFilter): void }) {
  return (
    <div className="call-filters" data-testid="call-filters">
      <label>
        Tool{" "}
        <select data-testid="filter-tool" value={filter.tool ?? ""} onChange={(e) => onChange({ ...filter, tool: e.target.value || null })}>
          <option value="">All</option>
          {tools.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label>
        Decision{" "}
        <select data-testid="filter-decision" value={filter.decision} onChange={(e) => onChange({ ...filter, decision: e.target.value as DecisionFilter })}>
          <option value="all">All</option>
          <option value="allowed">Allowed</option>
          <option value="asked">Asked</option>
          <option value="denied">Denied</option>
        </select>
      </label>
      <label>
        <input type="checkbox" data-testid="filter-errors-only" checked={filter.errorsOnly} onChange={(e) => onChange({ ...filter, errorsOnly: e.target.checked })} /> Errors only
      </label>
      {isFiltering(filter) && (
        <button type="button" className="link" data-testid="filter-clear" onClick={() => onChange(NO_FILTER)}>
          Clear
        </button>
      )}
    </div>
  );
}

/**
 * A stored session, read-only, rendered with the live session's components
 * (transcript rows, grouped calls, diffs, traces, batch timelines), with
 * in-session filters, statistics, exports, resume (Gatehouse sessions) and
 * delete.
 */
export function SessionReader({
  sessionId,
  seq,
  nonce,
  onBack,
  onResume,
  onDeleted,
  onOpenSession,
}: {
  sessionId: string;
  /** The event (from 1) to scroll to, if any. */
  seq: number | null;
  /** Changes on every open request (the same place again scrolls again). */
  nonce: number;
  onBack(): void;
  onResume(session: SessionSummary): void;
  onDeleted(): void;
  /** Opens another stored session: a sub-agent's (from its Agent call) or the parent. */
  onOpenSession?: ((sessionId: string) => void) | undefined;
}) {
  const [state, actions] = useReader(sessionId, seq);
  const [filter, setFilter] = useState<CallFilter>(NO_FILTER);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [scrollTo, setScrollTo] = useState<{ index: number; callId: string | null } | null>(null);
  const { model, events, summary } = state;

  const toggleGroup = useCallback((key: string) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  }, []);

  // Jump to the requested event once the session is loaded, and again on
  // every new request (`nonce`): state adjusted while rendering, React's
  // pattern for state that follows a prop.
  const [jumped, setJumped] = useState<number | null>(null);
  // Why the requested event cannot be shown, said in place of the jump.
  const [jumpProblem, setJumpProblem] = useState<"unreadable" | "missing" | null>(null);
  const at = seq === null || !events ? null : eventIndexOfSeq(seq, events.length, state.unreadableSeqs);
  // Past the first page while the rest is still loading: wait for it.
  const ready = at !== null && !(at === "missing" && state.partial);
  if (model && events && seq !== null && jumped !== nonce && ready) {
    setJumped(nonce);
    const target = rowForSeq(events, model, seq, state.unreadableSeqs);
    setJumpProblem(typeof at === "number" ? null : at);
    if (target) {
      setFilter(NO_FILTER);
      if (target.groupKey !== null) setExpanded(new Set(expanded).add(target.groupKey));
      setScrollTo({ index: target.index, callId: target.callId });
    }
  }

  const shown = useMemo(() => (model ? filterModel(model, filter) : null), [model, filter]);
  // The agent's last todo list, rebuilt from the stored events as a resumed session's is.
  const todos = useMemo(() => (events ? currentTodos(new TalkbackStore().sync(events)) : null), [events]);
  const tools = useMemo(() => (model ? toolNames(model) : []), [model]);
  // The Agent calls' links to their sub-agents' sessions (stored on their own).
  const tree = useMemo(() => (events ? foldTree(events, sessionId) : null), [events, sessionId]);
  const agentsView = useMemo<AgentsView | null>(
    () => (tree ? { tree, version: tree.version, expanded, onToggle: toggleGroup, onOpenSession } : null),
    [tree, expanded, toggleGroup, onOpenSession],
  );

  if (state.error !== null && !model) {
    return (
      <div className="reader-error" role="alert" data-testid="reader-error">
        <button type="button" onClick={onBack}>
          ← Back
        </button>{" "}
        {state.error}
      </div>
    );
  }

  return (
    <div className="session-screen stored-session" data-testid="stored-session" data-session-id={sessionId}>
      <header className="session-bar">
        <button type="button" data-testid="reader-back" onClick={onBack} title="Back to the list">
          <ArrowLeft size={14} aria-hidden="true" /> Sessions
        </button>
        <div className="session-title">
          <strong className="reader-title" data-testid="reader-title">
            {summary?.title ?? sessionId}
          </strong>
          <span className="muted small">
            <span className="mono">{summary?.project_path}</span>
            {summary && (
              <>
                {" "}
                {summary.model !== "" && `· ${summary.model} `}· {startedLabel(summary.created_at_ms)} · {formatMs(summary.duration_ms)} active · {plural(summary.tool_calls, "call")} ·{" "}
                {formatCount(summary.input_tokens + summary.output_tokens)} tokens
                {summary.origin === "claude_code" &&
                  (summary.source_path === null
                    ? " · recorded live from a guarded Claude Code"
                    : " · imported from Claude Code")}
              </>
            )}
          </span>
          {summary?.parent_session_id != null && (
            <button
              type="button"
              className="link small"
              data-testid="reader-parent"
              data-session-id={summary.parent_session_id}
              onClick={() => onOpenSession?.(summary.parent_session_id ?? "")}
            >
              A sub-agent of another session: open that session
            </button>
          )}
        </div>
        <div className="session-status">
          {summary?.origin === "gatehouse" && (
            <button type="button" className="primary" data-testid="reader-resume" onClick={() => onResume(summary)}>
              <Play size={14} aria-hidden="true" /> Resume
            </button>
          )}
          <button type="button" data-testid="export-jsonl" onClick={() => void actions.exportAs("jsonl")} title="Gatehouse JSONL, re-importable">
            <Download size={14} aria-hidden="true" /> JSONL
          </button>
          <button type="button" data-testid="export-html" onClick={() => void actions.exportAs("html")} title="One HTML file that opens offline">
            <Download size={14} aria-hidden="true" /> HTML
          </button>
          <DeleteButton testId="reader-delete" what={summary ? readerLabel(summary) : sessionId} onDelete={onDeleted} />
        </div>
      </header>
      <div className="session-body">
        <div className="reader-main">
          <CallFilters
            filter={filter}
            tools={tools}
            onChange={(next) => {
              // Row indexes change with the filter: the marked row would be another one.
              setScrollTo(null);
              setFilter(next);
            }}
          />
          {state.exported && (
            <p className="notice notice-info" data-testid="export-result" data-path={state.exported.path}>
              Exported to <span className="mono">{state.exported.path}</span> ({state.exported.bytes} bytes)
            </p>
          )}
          {state.error !== null && (
            <p className="notice notice-warn" role="alert">
              {state.error}
            </p>
          )}
          {jumpProblem !== null && (
            <p className="notice notice-warn" role="status" data-testid="reader-jump-problem" data-problem={jumpProblem}>
              {jumpProblem === "unreadable"
                ? "The event this link points to was written by a newer version of Gatehouse (or is damaged) and cannot be shown here."
                : "The event this link points to is no longer stored (the session has fewer events now)."}
            </p>
          )}
          {state.unreadable > 0 && (
            <p className="notice notice-warn" role="status" data-testid="reader-unreadable" data-count={state.unreadable}>
              {plural(state.unreadable, "event")} of this session {state.unreadable === 1 ? "was" : "were"} written by a
              newer version of Gatehouse (or {state.unreadable === 1 ? "is" : "are"} damaged) and {state.unreadable === 1 ? "is" : "are"} not
              shown; nothing was changed.
            </p>
          )}
          {state.partial && summary && (
            <p className="muted" data-testid="reader-partial">
              Showing the first {(state.events?.length ?? 0).toLocaleString("en")} of {plural(summary.event_count, "event")}; loading the rest…
            </p>
          )}
          {shown && shown.transcript.length === 0 && isFiltering(filter) ? (
            // In view under the filters, whatever the transcript's scroll was.
            <p className="reader-empty muted" data-testid="reader-empty">
              No calls match these filters.{" "}
              <button type="button" className="link" onClick={() => setFilter(NO_FILTER)}>
                Show all
              </button>
            </p>
          ) : shown ? (
            // A new filter opens a new transcript at its top: the first
            // match, not the old scroll position in a shorter list.
            <AgentsContext.Provider value={agentsView}>
              <Transcript
                key={filterKey(filter)}
                model={shown}
                version={shown.version}
                expandedGroups={expanded}
                onToggleGroup={toggleGroup}
                readOnly
                scrollTo={scrollTo}
              />
            </AgentsContext.Provider>
          ) : (
            <p className="muted" data-testid="reader-loading">
              Loading…
            </p>
          )}
        </div>
        <aside className="session-side">
          <TodoPanel todos={todos} />
          {state.stats && <StatsPanel stats={state.stats} />}
        </aside>
      </div>
    </div>
  );
}
