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

const startFormat = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

/** A session's start time as lists show it ("Dec 1, 2026, 11:10 PM"). */
export function startedLabel(ms: number): string {
  return startFormat.format(new Date(ms));
}

/** What a list shows for a stored session: its first prompt and start time, an ordinal only if those are equal. */
export interface SessionLabel {
  title: string;
  started: string;
  /** 1, 2, … by start among sessions with the same title and start label; null when it alone has them. */
  ordinal: number | null;
}

/**
 * Labels that tell a list's sessions apart: four sessions whose first
 * prompt was "do it" differ by start time, and those started in the same
 * minute by an ordinal in start order.
 */
export function sessionLabels(
  sessions: readonly { id: string; title: string | null; created_at_ms: number }[],
  untitled = "(no prompt yet)",
): Map<string, SessionLabel> {
  const labels = new Map<string, SessionLabel>();
  const same = new Map<string, { id: string; at: number }[]>();
  for (const s of sessions) {
    const label = { title: s.title ?? untitled, started: startedLabel(s.created_at_ms), ordinal: null };
    labels.set(s.id, label);
    const key = `${label.title}\u0000${label.started}`;
    same.set(key, [...(same.get(key) ?? []), { id: s.id, at: s.created_at_ms }]);
  }
  for (const group of same.values()) {
    if (group.length < 2) continue;
    [...group]
      .sort((a, b) => a.at - b.at || a.id.localeCompare(b.id))
      .forEach(({ id }, i) => {
        const label = labels.get(id);
        if (label) labels.set(id, { ...label, ordinal: i + 1 });
      });
  }
  return labels;
}

/** A label as one line of text: "do it · Dec 1, 2026, 11:10 PM (2)". */
export function sessionLabelText(label: SessionLabel): string {
  return `${label.title} · ${label.started}${label.ordinal !== null ? ` (${label.ordinal})` : ""}`;
}
