// Geometry and labels of the stats panel's small SVG bar charts. Plain
// functions so the arithmetic is tested without rendering.

/** One bar of a chart. */
export interface Bar {
  label: string;
  value: number;
  /** Shown on hover. */
  title?: string;
}

/** A bar laid out: its length as a fraction of the longest (0–1). */
export interface PlacedBar extends Bar {
  fraction: number;
}

/** Lengths relative to the largest value; all zero when every value is 0 or less. */
export function placeBars(bars: readonly Bar[]): PlacedBar[] {
  const max = bars.reduce((m, b) => Math.max(m, b.value), 0);
  return bars.map((b) => ({ ...b, fraction: max > 0 ? Math.max(0, b.value) / max : 0 }));
}

/** "1.2 s", "340 ms", "2 min 5 s". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

/** "950", "12.3k", "4.1M". */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
