import { describe, expect, it } from "vitest";

import { plural, sessionLabels, sessionLabelText, sessionStateLabel, startedLabel, timeAgo } from "./format";

describe("timeAgo", () => {
  const now = Date.UTC(2026, 10, 30, 12, 0, 0);
  it("says just now under a minute", () => {
    expect(timeAgo(now - 59_000, now)).toBe("just now");
  });
  it("uses the largest whole unit", () => {
    expect(timeAgo(now - 5 * 60_000, now)).toBe("5 minutes ago");
    expect(timeAgo(now - 3 * 3600_000, now)).toBe("3 hours ago");
    expect(timeAgo(now - 24 * 3600_000, now)).toBe("yesterday");
    expect(timeAgo(now - 14 * 24 * 3600_000, now)).toBe("2 weeks ago");
  });
});

describe("plural", () => {
  it("is singular for exactly one only", () => {
    expect(plural(1, "line")).toBe("1 line");
    expect(plural(0, "line")).toBe("0 lines");
    expect(plural(2, "event")).toBe("2 events");
    expect(plural(1, "call replayed", "calls replayed")).toBe("1 call replayed");
    expect(plural(1200, "call")).toBe("1,200 calls");
  });
});

describe("sessionStateLabel", () => {
  it("says why a session ended", () => {
    expect(sessionStateLabel({ status: "ended", end_reason: "app_closed" })).toBe("ended: app closed");
    expect(sessionStateLabel({ status: "running", end_reason: null })).toBe("running");
    expect(sessionStateLabel({ status: "completed", end_reason: "closed" })).toBe("completed");
    expect(sessionStateLabel({ status: "turn_limit", end_reason: null })).toBe("stopped at the turn limit");
  });
});

describe("sessionLabels", () => {
  const at = Date.UTC(2026, 11, 1, 23, 10, 0);
  it("gives each session its first prompt and start, an ordinal only when both are equal", () => {
    const labels = sessionLabels([
      { id: "late", title: "do it", created_at_ms: at + 30_000 },
      { id: "early", title: "do it", created_at_ms: at },
      { id: "other", title: "do it", created_at_ms: at + 3600_000 },
      { id: "none", title: null, created_at_ms: at },
    ]);
    expect(labels.get("early")).toEqual({ title: "do it", started: startedLabel(at), ordinal: 1 });
    expect(labels.get("late")?.ordinal).toBe(2);
    expect(labels.get("other")?.ordinal).toBeNull();
    expect(labels.get("none")).toEqual({ title: "(no prompt yet)", started: startedLabel(at), ordinal: null });
    const text = sessionLabelText({ title: "do it", started: "Dec 1, 2026, 11:10 PM", ordinal: 2 });
    expect(text).toBe("do it · Dec 1, 2026, 11:10 PM (2)");
  });
});
