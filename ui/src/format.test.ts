import { describe, expect, it } from "vitest";

import { timeAgo } from "./format";

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
