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
