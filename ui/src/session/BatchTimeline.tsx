import { memo, useState } from "react";

import { useNow } from "../state/clock";
import { callSummary, formatDuration } from "./format";
import { isFinished, type ToolCall, type ToolStatus } from "./model";
import { plural } from "../format";

/** A drawn span of one call, in percent of the strip's width. */
export interface TimelineSegment {
  /** `hook`: a settings-file hook's run, drawn over the running span. */
  kind: "queued" | "running" | "waiting" | "hook";
  left: number;
  width: number;
}

/** One call's bar: its lane (row), its extent and segments. */
export interface TimelineBar {
  callId: string;
  name: string;
  status: ToolStatus;
  lane: number;
  /** Where the call's box starts and how wide it is, in percent of the strip:
   * only its own span, so calls after one another in a lane never cover
   * each other (hover and focus find the call under the pointer). */
  left: number;
  width: number;
  segments: TimelineSegment[];
}

/** A segment's place inside its bar, in percent of the bar (not the strip). */
export function withinBar(bar: Pick<TimelineBar, "left" | "width">, seg: TimelineSegment): { left: number; width: number } {
  if (bar.width <= 0) return { left: 0, width: 100 };
  return { left: ((seg.left - bar.left) / bar.width) * 100, width: (seg.width / bar.width) * 100 };
}

/** The strip's geometry for a turn's calls. */
export interface TimelineGeometry {
  startMs: number;
  endMs: number;
  lanes: number;
  bars: TimelineBar[];
}

/**
 * Lays out a turn's calls: time runs left to right from the first queue to
 * the last end (or `nowMs` for calls still open); each call is a bar made of
 * queued (queued→started), running (started→ended) and waiting-for-permission
 * segments, with its settings-file hooks' runs drawn over them. Calls go to the first lane free at their queue time, so calls
 * that overlapped in time — concurrency — sit in different lanes.
 */
export function timelineGeometry(calls: readonly ToolCall[], nowMs: number): TimelineGeometry {
  if (calls.length === 0) return { startMs: nowMs, endMs: nowMs, lanes: 0, bars: [] };
  const endOf = (c: ToolCall) => c.endedMs ?? Math.max(nowMs, c.startedMs ?? c.queuedMs);
  const startMs = Math.min(...calls.map((c) => c.queuedMs));
  const endMs = Math.max(startMs + 1, ...calls.map(endOf));
  const span = endMs - startMs;
  const pct = (ms: number) => ((ms - startMs) / span) * 100;
  const laneEnds: number[] = [];
  const bars: TimelineBar[] = [];
  const ordered = [...calls].sort((a, b) => a.queuedMs - b.queuedMs);
  for (const call of ordered) {
    const end = endOf(call);
    let lane = laneEnds.findIndex((laneEnd) => laneEnd <= call.queuedMs);
    if (lane < 0) {
      lane = laneEnds.length;
      laneEnds.push(end);
    } else {
      laneEnds[lane] = end;
    }
    const segments: TimelineSegment[] = [];
    const add = (kind: TimelineSegment["kind"], from: number, to: number) => {
      if (to > from) segments.push({ kind, left: pct(from), width: pct(to) - pct(from) });
    };
    const started = call.startedMs ?? end;
    add("queued", call.queuedMs, started);
    // The running span with the waits carved out of it.
    let cursor = started;
    const waits = [...call.waits].sort((a, b) => a.fromMs - b.fromMs);
    for (const wait of waits) {
      const from = Math.max(wait.fromMs, cursor);
      const to = Math.min(wait.toMs ?? end, end);
      if (to <= from) continue;
      add("running", cursor, from);
      add("waiting", from, to);
      cursor = to;
    }
    add("running", cursor, end);
    // Hook runs (PreToolUse before the decision, PostToolUse after the
    // call) end at their event's time and lasted their duration.
    for (const hook of call.hooks) {
      if (hook.run === null) continue;
      const to = Math.min(hook.endedMs, end);
      const from = Math.max(hook.endedMs - hook.run.duration_ms, call.queuedMs);
      if (to > from) segments.push({ kind: "hook", left: pct(from), width: pct(to) - pct(from) });
    }
    if (segments.length === 0) segments.push({ kind: "queued", left: pct(call.queuedMs), width: 0 });
    const left = Math.min(...segments.map((s) => s.left));
    const right = Math.max(...segments.map((s) => s.left + s.width));
    bars.push({ callId: call.id, name: call.name, status: call.status, lane, left, width: right - left, segments });
  }
  return { startMs, endMs, lanes: laneEnds.length, bars };
}

const LANE_PX = 8;

function Strip({ calls, nowMs, project }: { calls: readonly ToolCall[]; nowMs: number; project: string | null }) {
  const [hovered, setHovered] = useState<string | null>(null);
  const geometry = timelineGeometry(calls, nowMs);
  const hoveredCall = hovered ? calls.find((c) => c.id === hovered) : undefined;
  const concurrent = geometry.lanes > 1;
  return (
    <div className="batch-timeline" data-testid="batch-timeline" data-lanes={geometry.lanes}>
      <div className="timeline-head muted small">
        <span>
          {plural(calls.length, "call")}
          {concurrent ? ` · up to ${geometry.lanes} at once` : ""}
        </span>
        <span className="elapsed">{formatDuration(geometry.endMs - geometry.startMs)}</span>
      </div>
      <div className="timeline-track" style={{ height: Math.max(1, geometry.lanes) * LANE_PX + 4 }}>
        {geometry.bars.map((bar) => (
          <div
            key={bar.callId}
            className={`timeline-bar bar-${bar.status} ${hovered === bar.callId ? "hovered" : ""}`}
            data-testid="timeline-bar"
            data-tool-use-id={bar.callId}
            data-lane={bar.lane}
            style={{ top: bar.lane * LANE_PX + 2, left: `${bar.left}%`, width: `${bar.width}%` }}
            // Reachable by keyboard: Tab to a bar shows its call, as hovering does.
            tabIndex={0}
            role="button"
            aria-label={`${bar.name}, ${bar.status.replace("_", " ")}`}
            onMouseEnter={() => setHovered(bar.callId)}
            onMouseLeave={() => setHovered((h) => (h === bar.callId ? null : h))}
            onFocus={() => setHovered(bar.callId)}
            onBlur={() => setHovered((h) => (h === bar.callId ? null : h))}
          >
            {bar.segments.map((seg, i) => {
              const place = withinBar(bar, seg);
              return (
                <span
                  key={i}
                  className={`seg seg-${seg.kind}`}
                  data-kind={seg.kind}
                  style={{ left: `${place.left}%`, width: `${place.width}%` }}
                />
              );
            })}
          </div>
        ))}
      </div>
      <div className="timeline-hover small" data-testid="timeline-hover">
        {hoveredCall ? <HoverCard call={hoveredCall} nowMs={nowMs} project={project} /> : <span className="muted">Point at a bar, or Tab to it, for its call</span>}
      </div>
    </div>
  );
}

function HoverCard({ call, nowMs, project }: { call: ToolCall; nowMs: number; project: string | null }) {
  const started = call.startedMs;
  const end = call.endedMs ?? nowMs;
  const waited = call.waits.reduce((sum, w) => sum + ((w.toMs ?? nowMs) - w.fromMs), 0);
  const hookMs = call.hooks.reduce((sum, h) => sum + (h.run?.duration_ms ?? 0), 0);
  const hookCount = call.hooks.filter((h) => h.run !== null).length;
  return (
    <span>
      <strong>{call.name}</strong> <span className="mono">{callSummary(call, project)}</span> · {call.status.replace("_", " ")}
      {started !== null && ` · queued ${formatDuration(started - call.queuedMs)}, ran ${formatDuration(end - started - waited)}`}
      {waited > 0 && `, waited for permission ${formatDuration(waited)}`}
      {hookCount > 0 && ` · ${plural(hookCount, "hook")} ${formatDuration(hookMs)}`}
      {call.batch !== null && ` · batch ${call.batch}${call.concurrent ? " (concurrent)" : ""}`}
    </span>
  );
}

function LiveStrip(props: { calls: readonly ToolCall[]; project: string | null }) {
  const now = useNow(250);
  return <Strip {...props} nowMs={now} />;
}

/**
 * A Gantt-style strip of one turn's tool calls from their event timestamps:
 * queued, running and waiting-for-permission segments, one lane per call
 * running at the same time; hovering a bar shows the call. Ticks while any
 * call is open.
 */
export const BatchTimeline = memo(function BatchTimeline({ calls, project = null }: { calls: readonly ToolCall[]; project?: string | null }) {
  const live = calls.some((c) => !isFinished(c.status));
  if (live) return <LiveStrip calls={calls} project={project} />;
  const last = Math.max(...calls.map((c) => c.endedMs ?? c.queuedMs));
  return <Strip calls={calls} nowMs={last} project={project} />;
});
