import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { BatchTimeline, timelineGeometry, withinBar } from "./BatchTimeline";
import { Script, must } from "./fixtures/build";
import { foldEvents, type ToolCall } from "./model";

afterEach(cleanup);

/** Calls at exact times: [id, queued, started, ended, waits]. */
function calls(spec: [string, number, number | null, number | null, [number, number | null][]?][]): ToolCall[] {
  const s = new Script("s", 0).request(1);
  const base = must(foldEvents(s.queue("x", "Read", { file_path: "/a" }).events).calls.get("x"));
  return spec.map(([id, q, st, en, waits]) => ({
    ...base,
    id,
    queuedMs: q,
    startedMs: st,
    endedMs: en,
    status: en === null ? (st === null ? "queued" : "running") : "completed",
    waits: (waits ?? []).map(([fromMs, toMs]) => ({ fromMs, toMs })),
  }));
}

const round = (n: number) => Math.round(n * 100) / 100;

describe("timelineGeometry", () => {
  it("puts sequential calls in one lane and concurrent ones in separate lanes", () => {
    const sequential = timelineGeometry(calls([["a", 0, 0, 100], ["b", 100, 100, 200]]), 200);
    expect(sequential.lanes).toBe(1);
    const concurrent = timelineGeometry(calls([["a", 0, 0, 100], ["b", 0, 10, 150], ["c", 0, 20, 50], ["d", 120, 120, 200]]), 200);
    expect(concurrent.lanes).toBe(3);
    expect(concurrent.bars.map((b) => b.lane)).toEqual([0, 1, 2, 0]);
  });

  it("splits a bar into queued, running and waiting segments in percent of the span", () => {
    const g = timelineGeometry(calls([["a", 0, 100, 1000, [[200, 700]]]]), 1000);
    expect(g.startMs).toBe(0);
    expect(g.endMs).toBe(1000);
    const segs = must(g.bars[0]).segments.map((s) => [s.kind, round(s.left), round(s.width)]);
    expect(segs).toEqual([
      ["queued", 0, 10],
      ["running", 10, 10],
      ["waiting", 20, 50],
      ["running", 70, 30],
    ]);
  });

  it("draws open calls up to now and still-open waits to the end", () => {
    const g = timelineGeometry(calls([["a", 0, 0, null, [[500, null]]], ["q", 0, null, null]]), 1000);
    const a = must(g.bars[0]).segments.map((s) => [s.kind, round(s.left), round(s.width)]);
    expect(a).toEqual([
      ["running", 0, 50],
      ["waiting", 50, 50],
    ]);
    expect(must(g.bars[1]).segments.map((s) => s.kind)).toEqual(["queued"]);
  });

  it("gives each bar only its call's extent, so calls after one another in a lane never cover each other", () => {
    const g = timelineGeometry(calls([["a", 0, 100, 400], ["b", 500, 500, 1000]]), 1000);
    expect(g.lanes).toBe(1);
    expect(g.bars.map((b) => [round(b.left), round(b.width)])).toEqual([
      [0, 40],
      [50, 50],
    ]);
    const a = must(g.bars[0]);
    expect(a.segments.map((s) => withinBar(a, s)).map((p) => [round(p.left), round(p.width)])).toEqual([
      [0, 25],
      [25, 75],
    ]);
  });

  it("is empty for no calls", () => {
    expect(timelineGeometry([], 5)).toMatchObject({ lanes: 0, bars: [] });
  });
});

describe("BatchTimeline", () => {
  it("renders one bar per call, lanes for concurrency, and the call on hover", () => {
    const cs = calls([["a", 0, 0, 400], ["b", 0, 10, 300, [[20, 200]]], ["c", 500, 500, 1000]]).map((c, i) =>
      i === 1 ? { ...c, name: "Bash", kind: "bash" as const, input: { command: "npm test" } } : c,
    );
    render(<BatchTimeline calls={cs} />);
    const root = screen.getByTestId("batch-timeline");
    expect(root.getAttribute("data-lanes")).toBe("2");
    const bars = screen.getAllByTestId("timeline-bar");
    expect(bars).toHaveLength(3);
    // Lane 0 holds a (0–400 ms) and c (500–1000 ms): their boxes are apart.
    expect([bars[0], bars[2]].map((b) => [b?.style.left, b?.style.width])).toEqual([
      ["0%", "40%"],
      ["50%", "50%"],
    ]);
    expect(bars[1]?.querySelector('[data-kind="waiting"]')).toBeTruthy();
    expect(root.textContent).toContain("up to 2 at once");
    expect(root.textContent).toContain("1.0 s");
    fireEvent.mouseEnter(must(bars[1]));
    const hover = screen.getByTestId("timeline-hover").textContent ?? "";
    expect(hover).toContain("Bash");
    expect(hover).toContain("npm test");
    expect(hover).toContain("waited for permission 180 ms");
    fireEvent.mouseLeave(must(bars[1]));
    expect(screen.getByTestId("timeline-hover").textContent).toContain("Point at a bar, or Tab to it");
    // The keyboard reaches the same card.
    expect(bars[2]?.tabIndex).toBe(0);
    fireEvent.focus(must(bars[2]));
    expect(screen.getByTestId("timeline-hover").textContent).not.toContain("Point at a bar");
    fireEvent.blur(must(bars[2]));
    expect(screen.getByTestId("timeline-hover").textContent).toContain("Point at a bar");
  });
});
