import { placeBars, type Bar } from "./plots";

/** Height of one bar row, in SVG units (the SVG scales to its box). */
const ROW = 18;
const LABEL_WIDTH = 96;
const WIDTH = 260;

/**
 * A small horizontal bar chart in SVG: one row per bar, label on the left,
 * the value printed after the bar. `format` prints values.
 */
export function BarChart({
  title,
  bars,
  format = String,
  testId,
}: {
  title: string;
  bars: readonly Bar[];
  format?: (value: number) => string;
  testId?: string;
}) {
  const placed = placeBars(bars);
  const barSpace = WIDTH - LABEL_WIDTH - 48;
  return (
    <figure className="bar-chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      {placed.length === 0 ? (
        <p className="muted small">None.</p>
      ) : (
        <svg viewBox={`0 0 ${WIDTH} ${placed.length * ROW}`} role="img" aria-label={title}>
          {placed.map((bar, i) => (
            <g key={bar.label} transform={`translate(0 ${i * ROW})`} data-testid="chart-bar" data-label={bar.label} data-value={bar.value}>
              <title>{bar.title ?? `${bar.label}: ${format(bar.value)}`}</title>
              <text x={LABEL_WIDTH - 4} y={ROW / 2 + 4} textAnchor="end" className="chart-label">
                {bar.label.length > 14 ? `${bar.label.slice(0, 13)}…` : bar.label}
              </text>
              <rect x={LABEL_WIDTH} y={3} height={ROW - 6} width={Math.max(bar.fraction * barSpace, bar.value > 0 ? 1 : 0)} rx={2} className="chart-bar" />
              <text x={LABEL_WIDTH + bar.fraction * barSpace + 4} y={ROW / 2 + 4} className="chart-value">
                {format(bar.value)}
              </text>
            </g>
          ))}
        </svg>
      )}
    </figure>
  );
}
