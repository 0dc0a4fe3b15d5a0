import { useVirtualizer } from "@tanstack/react-virtual";
import { ArrowDown, CircleAlert, CircleCheck, CircleStop, Info, MessageSquare, TriangleAlert } from "lucide-react";
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

import { BatchTimeline } from "./BatchTimeline";
import { measureShownElement, observeShownRect } from "./hiddenTranscript";
import { SessionHookRow } from "./HookRunView";
import { Markdown } from "./Markdown";
import type { ContextSource } from "../generated/protocol";
import type { SessionModel, ToolCall, TranscriptItem } from "./model";
import { ToolCallView, ToolGroupView } from "./ToolCallView";

/** Estimated heights (px) before an item is measured. */
const ESTIMATES: Record<TranscriptItem["kind"], number> = {
  user: 56,
  assistant: 72,
  thinking: 36,
  tool: 88,
  group: 44,
  timeline: 64,
  error: 56,
  notice: 28,
  context: 28,
  hook: 28,
  end: 36,
};

/** Within this many pixels of the bottom counts as following the live end. */
const FOLLOW_SLACK = 48;

const END_LABEL = {
  completed: "Completed",
  interrupted: "Interrupted",
  turn_limit: "Stopped at the turn limit",
  failed: "Failed",
} as const;

const CONTEXT_LABEL: Record<ContextSource, string> = {
  task_notification: "Told the model: a background task ended",
  agent_message: "Message from the agent that started this one",
  stop_hook_feedback: "Stop hook feedback sent to the model",
};

/** Text the loop added to the conversation: one line, the text on demand. */
function ContextRow({ source, text }: { source: ContextSource; text: string }) {
  return (
    <details className="context-added" data-testid="context-added" data-source={source}>
      <summary>
        <Info size={14} aria-hidden="true" /> {CONTEXT_LABEL[source]}
      </summary>
      <pre className="context-text">{text}</pre>
    </details>
  );
}

interface RowProps {
  item: TranscriptItem;
  /** The calls the row shows: the call, the group's calls, the turn's calls. */
  calls: readonly ToolCall[];
  project: string | null;
  expanded: boolean;
  onToggleGroup(key: string): void;
  /** The call to mark as the target, if it is in this row. */
  targetCallId: string | null;
}

function Row({ item, calls, project, expanded, onToggleGroup, targetCallId }: RowProps) {
  switch (item.kind) {
    case "user":
      return (
        <div className="user-prompt" data-testid="user-prompt">
          <MessageSquare size={16} aria-hidden="true" />
          <div className="user-text">{item.text}</div>
        </div>
      );
    case "assistant":
      return (
        <div className={`assistant-text ${item.streaming ? "streaming" : ""}`} data-testid="assistant-text">
          <Markdown text={item.text} />
        </div>
      );
    case "thinking":
      return (
        <details className="thinking">
          <summary>Thinking</summary>
          <div className="thinking-text">{item.text}</div>
        </details>
      );
    case "tool":
      return calls[0] ? <ToolCallView call={calls[0]} project={project} target={targetCallId === calls[0].id} /> : null;
    case "group":
      return (
        <ToolGroupView calls={calls} project={project} expanded={expanded} onToggle={() => onToggleGroup(item.key)} targetCallId={targetCallId} />
      );
    case "timeline":
      return calls.length > 0 ? <BatchTimeline calls={calls} project={project} /> : null;
    case "error":
      return (
        <div className="session-error" role="alert" data-testid="session-error">
          <CircleAlert size={16} aria-hidden="true" />
          <div>
            <strong>{item.errorKind.replace(/_/g, " ")}</strong>: {item.message}
            <div className="muted small">{item.recoverable ? "You can send another prompt." : "The session cannot continue."}</div>
          </div>
        </div>
      );
    case "notice":
      return (
        <div className={`notice notice-${item.tone}`}>
          {item.tone === "warn" ? <TriangleAlert size={14} aria-hidden="true" /> : <Info size={14} aria-hidden="true" />} {item.text}
        </div>
      );
    case "context":
      return <ContextRow source={item.source} text={item.text} />;
    case "hook":
      return <SessionHookRow hook={item.hook} />;
    case "end":
      return (
        <div className={`exchange-end end-${item.status}`} data-testid="exchange-end" data-status={item.status}>
          {item.status === "completed" ? <CircleCheck size={14} aria-hidden="true" /> : <CircleStop size={14} aria-hidden="true" />}
          {END_LABEL[item.status]} · {item.turns} turn{item.turns === 1 ? "" : "s"}
        </div>
      );
  }
}

/** Rows re-render when their item, their calls (replaced on change) or their expansion change. */
const MemoRow = memo(
  Row,
  (a, b) =>
    a.item === b.item &&
    a.expanded === b.expanded &&
    a.targetCallId === b.targetCallId &&
    a.project === b.project &&
    a.onToggleGroup === b.onToggleGroup &&
    a.calls.length === b.calls.length &&
    a.calls.every((c, i) => c === b.calls[i]),
);

/** One transcript row (also a sub-agent's nested transcript's, `renderers/AgentCall.tsx`). */
export const TranscriptRow = MemoRow;

const NO_CALLS: readonly ToolCall[] = [];

/** The calls a transcript row shows. */
export function rowCalls(item: TranscriptItem, model: SessionModel): readonly ToolCall[] {
  let ids: readonly string[];
  if (item.kind === "tool") ids = [item.callId];
  else if (item.kind === "group") ids = item.callIds;
  else if (item.kind === "timeline") ids = model.turns.get(item.turnKey)?.callIds ?? [];
  else return NO_CALLS;
  return ids.map((id) => model.calls.get(id)).filter((c): c is ToolCall => c !== undefined);
}

/**
 * The transcript, virtualised: only the rows in view (plus a margin) are in
 * the DOM, each measured once rendered, so 10,000 tool calls scroll as
 * smoothly as ten. It follows the live end (newest rows rendered and in
 * view) until the user scrolls up; "Jump to latest" resumes following.
 */
export function Transcript({
  model,
  version,
  expandedGroups,
  onToggleGroup,
  readOnly = false,
  scrollTo = null,
}: {
  model: SessionModel;
  /** Changes whenever the model did (it is updated in place). */
  version: number;
  expandedGroups: ReadonlySet<string>;
  onToggleGroup(key: string): void;
  /**
   * A stored session (the session browser's reader): it opens at the top
   * rather than following the end, and its empty state invites no prompt.
   */
  readOnly?: boolean;
  /**
   * A row to bring into view and mark (`data-target`); a new object scrolls
   * again, even to the same row. With `callId`, the call of that id inside
   * the row (an expanded group) is brought into view and marked instead.
   */
  scrollTo?: { index: number; callId?: string | null } | null;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [following, setFollowing] = useState(!readOnly && scrollTo === null);
  const items = model.transcript;
  const count = items.length;
  const getItemKey = useCallback((i: number) => items[i]?.key ?? i, [items]);
  const estimateSize = useCallback((i: number) => ESTIMATES[items[i]?.kind ?? "tool"], [items]);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual returns functions that must not be memoised; this component does not memoise them.
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize,
    getItemKey,
    overscan: 6,
    initialRect: { width: 800, height: 600 },
    // Hidden under an overlay is not "no room": see hiddenTranscript.ts.
    observeElementRect: observeShownRect,
    measureElement: measureShownElement,
  });
  // jsdom has no layout (nor ResizeObserver): rows keep their estimates there.
  const measure = typeof ResizeObserver === "undefined" ? undefined : virtualizer.measureElement;

  useLayoutEffect(() => {
    if (following && count > 0) virtualizer.scrollToIndex(count - 1, { align: "end" });
  }, [following, count, version, virtualizer]);

  useLayoutEffect(() => {
    if (scrollTo === null || scrollTo.index >= count) return;
    setFollowing(false);
    const callId = scrollTo.callId ?? null;
    // A call inside a group: the group's top first, so its calls render.
    virtualizer.scrollToIndex(scrollTo.index, { align: callId === null ? "center" : "start" });
    // Rows above may grow once measured: settle on the row (or the call
    // inside it) again after.
    const settle = () => {
      const call = callId === null ? null : scroller.current?.querySelector(`[data-tool-use-id="${callId.replace(/["\\]/g, "\\$&")}"]`);
      if (call && typeof call.scrollIntoView === "function") call.scrollIntoView({ block: "center" });
      else virtualizer.scrollToIndex(scrollTo.index, { align: "center" });
    };
    let again = requestAnimationFrame(() => {
      virtualizer.scrollToIndex(scrollTo.index, { align: callId === null ? "center" : "start" });
      again = requestAnimationFrame(settle);
    });
    return () => cancelAnimationFrame(again);
    // Only a new request scrolls; the rows changing does not.
  }, [scrollTo]); // eslint-disable-line react-hooks/exhaustive-deps

  // The scroller exists only once there are rows (the empty state has none).
  const hasRows = count > 0;
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - FOLLOW_SLACK;
      setFollowing(atEnd);
    };
    const onWheel = (e: WheelEvent) => {
      if (e.deltaY < 0) setFollowing(false);
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    el.addEventListener("wheel", onWheel, { passive: true });
    return () => {
      el.removeEventListener("scroll", onScroll);
      el.removeEventListener("wheel", onWheel);
    };
  }, [hasRows]);

  if (count === 0) {
    return (
      <div className="transcript transcript-empty" data-testid="transcript">
        <div className="empty-state">
          <MessageSquare size={28} aria-hidden="true" />
          <p>{readOnly ? "Nothing to show." : "No messages yet."}</p>
          {!readOnly && <p className="muted small">Type a prompt below to start. Enter sends, Shift+Enter adds a line.</p>}
        </div>
      </div>
    );
  }

  return (
    <div className="transcript" ref={scroller} data-testid="transcript" data-following={following}>
      <div className="transcript-inner" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index];
          if (!item) return null;
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={measure}
              className="transcript-row"
              data-target={scrollTo?.index === row.index && !scrollTo.callId ? true : undefined}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <MemoRow
                item={item}
                calls={rowCalls(item, model)}
                project={model.project}
                expanded={expandedGroups.has(item.key)}
                onToggleGroup={onToggleGroup}
                targetCallId={scrollTo?.index === row.index ? (scrollTo.callId ?? null) : null}
              />
            </div>
          );
        })}
      </div>
      {!following && (
        <button type="button" className="jump-latest" data-testid="jump-latest" onClick={() => setFollowing(true)}>
          <ArrowDown size={14} aria-hidden="true" /> Jump to latest
        </button>
      )}
    </div>
  );
}
