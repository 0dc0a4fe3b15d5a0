// Display formatting shared by components.

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600_000],
  ["month", 30 * 24 * 3600_000],
  ["week", 7 * 24 * 3600_000],
  ["day", 24 * 3600_000],
  ["hour", 3600_000],
  ["minute", 60_000],
];

/** "just now", "5 minutes ago", "yesterday", … for a past epoch-ms time. */
export function timeAgo(thenMs: number, nowMs: number = Date.now()): string {
  const elapsed = nowMs - thenMs;
  for (const [unit, size] of UNITS) {
    if (Math.abs(elapsed) >= size) {
      return relative.format(-Math.round(elapsed / size), unit);
    }
  }
  return "just now";
}

/**
 * "1 line", "2 lines", "0 calls": a count with its noun, singular only for
 * exactly one. `many` defaults to `one` + "s". The one place plurals are
 * made, so no screen says "1 events".
 */
export function plural(n: number, one: string, many: string = `${one}s`): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}

/** The noun alone, for counts shown elsewhere ("3 <calls>"). */
export function pluralNoun(n: number, one: string, many: string = `${one}s`): string {
  return n === 1 ? one : many;
}

/** The human words of a stored session's state (see `SessionSummary.status`). */
export function sessionStateLabel(session: {
  status: string;
  end_reason: "closed" | "app_closed" | null;
}): string {
  const base: Record<string, string> = {
    running: "running",
    completed: "completed",
    interrupted: "interrupted",
    turn_limit: "stopped at the turn limit",
    failed: "failed",
    imported: "imported",
    ended: "ended",
  };
  const text = base[session.status] ?? session.status;
  if (session.status === "ended" || session.status === "running") {
    if (session.end_reason === "app_closed") return "ended: app closed";
    if (session.end_reason === "closed") return "ended";
  }
  return text;
}
