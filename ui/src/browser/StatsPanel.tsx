import type { SessionStats } from "../generated/protocol";
import { plural } from "../format";
import { BarChart } from "./BarChart";
import { formatCount, formatMs } from "./plots";

/** The reader's statistics: calls and time per tool, decisions, tokens and latency per turn. */
export function StatsPanel({ stats }: { stats: SessionStats }) {
  const d = stats.decisions;
  const turns = stats.turns;
  return (
    <section className="panel stats-panel" data-testid="stats-panel" aria-label="Statistics">
      <h3>Statistics</h3>
      <BarChart testId="chart-calls" title="Calls per tool" bars={stats.tools.map((t) => ({ label: t.name, value: t.calls, title: `${t.name}: ${plural(t.calls, "call")}, ${plural(t.errors, "error")}, ${t.denials} denied` }))} />
      <BarChart testId="chart-time" title="Time per tool" format={formatMs} bars={stats.tools.map((t) => ({ label: t.name, value: t.total_ms, title: `${t.name}: ${formatMs(t.total_ms)} in all, longest ${formatMs(t.max_ms)}` }))} />
      <BarChart
        testId="chart-decisions"
        title="Decisions"
        bars={[
          { label: "allowed", value: d.allowed },
          { label: "asked", value: d.asked },
          { label: "denied", value: d.denied },
          { label: "user allowed", value: d.user_allowed },
          { label: "user denied", value: d.user_denied },
          { label: "no decision", value: d.undecided },
        ]}
      />
      <BarChart
        testId="chart-tokens"
        title="Tokens per turn"
        format={formatCount}
        bars={turns.map((t) => ({
          label: `turn ${t.turn}`,
          value: t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens,
          title: `turn ${t.turn}: ${t.input_tokens} in, ${t.output_tokens} out, ${t.cache_read_tokens} cache read, ${t.cache_write_tokens} cache write`,
        }))}
      />
      <BarChart
        testId="chart-latency"
        title="Latency per turn"
        format={formatMs}
        bars={turns.filter((t) => t.latency_ms !== null).map((t) => ({ label: `turn ${t.turn}`, value: t.latency_ms ?? 0 }))}
      />
    </section>
  );
}
