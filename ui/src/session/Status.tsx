import { Ban, Check, CircleStop, CircleX, Clock, LoaderCircle, ShieldAlert, TimerOff } from "lucide-react";

import { useNow } from "../state/clock";
import { formatDuration, formatElapsed } from "./format";
import type { ToolCall, ToolStatus } from "./model";

const LABELS: Record<ToolStatus, string> = {
  queued: "Queued",
  running: "Running",
  waiting_permission: "Needs permission",
  completed: "Done",
  error: "Error",
  denied: "Denied",
  interrupted: "Interrupted",
  cancelled: "Cancelled",
  timed_out: "Timed out",
};

/** A spinning circle for work in progress. */
export function Spinner({ size = 14 }: { size?: number }) {
  return <LoaderCircle size={size} className="spinner" aria-hidden="true" />;
}

/** The status icon and word; fixed width so changes never shift the row. */
export function StatusBadge({ status }: { status: ToolStatus }) {
  const icon = {
    queued: <Clock size={14} aria-hidden="true" />,
    running: <Spinner />,
    waiting_permission: <ShieldAlert size={14} aria-hidden="true" />,
    completed: <Check size={14} aria-hidden="true" />,
    error: <CircleX size={14} aria-hidden="true" />,
    denied: <Ban size={14} aria-hidden="true" />,
    interrupted: <CircleStop size={14} aria-hidden="true" />,
    cancelled: <CircleStop size={14} aria-hidden="true" />,
    timed_out: <TimerOff size={14} aria-hidden="true" />,
  }[status];
  return (
    <span className={`status status-${status}`} title={LABELS[status]}>
      {icon}
      <span className="status-label">{LABELS[status]}</span>
    </span>
  );
}

/** A clock counting up from `since` (epoch ms), ticking every 250 ms. */
export function Elapsed({ since }: { since: number }) {
  const now = useNow(250);
  return <span className="elapsed">{formatElapsed(now - since)}</span>;
}

/** Elapsed time for a running call, its duration once done; nothing while queued. */
export function CallTiming({ call }: { call: ToolCall }) {
  if (call.result) return <span className="elapsed">{formatDuration(call.result.durationMs)}</span>;
  if (call.endedMs !== null && call.startedMs !== null) {
    return <span className="elapsed">{formatDuration(call.endedMs - call.startedMs)}</span>;
  }
  if (call.startedMs !== null) return <Elapsed since={call.startedMs} />;
  return <span className="elapsed" />;
}
