import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { HomeScreen } from "./HomeScreen";
import { storedSession } from "./fixtures";

afterEach(cleanup);

describe("HomeScreen's recent sessions", () => {
  it("opens a session to look at it, and resumes it only from its Resume button", () => {
    const onOpenStored = vi.fn();
    const onResume = vi.fn();
    render(
      <HomeScreen
        projects={[]}
        onOpenFolder={vi.fn()}
        onOpen={vi.fn()}
        sessions={[storedSession({ event_count: 2, status: "completed", end_reason: "closed" })]}
        onOpenStored={onOpenStored}
        onResume={onResume}
      />,
    );
    const item = screen.getByTestId("session-item");
    expect(item.textContent).toContain("completed · 2 events");
    fireEvent.click(item);
    expect(onOpenStored).toHaveBeenCalledWith("ses_old");
    expect(onResume).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("session-item-resume"));
    expect(onResume).toHaveBeenCalledWith(expect.objectContaining({ id: "ses_old" }));
  });

  it("tells four sessions whose first prompt was \"do it\" apart: start time, then an ordinal", () => {
    const at = 1_700_000_000_000;
    render(
      <HomeScreen
        projects={[]}
        onOpenFolder={vi.fn()}
        onOpen={vi.fn()}
        sessions={[
          storedSession({ id: "a", created_at_ms: at }),
          storedSession({ id: "b", created_at_ms: at + 86_400_000 }),
          storedSession({ id: "c", created_at_ms: at + 2 * 86_400_000 }),
          storedSession({ id: "d", created_at_ms: at + 2 * 86_400_000 + 1_000 }),
        ]}
        onOpenStored={vi.fn()}
        onResume={vi.fn()}
      />,
    );
    const titles = screen.getAllByTestId("session-label").map((l) => l.textContent ?? "");
    expect(titles.every((t) => t.startsWith("do it · "))).toBe(true);
    expect(new Set(titles).size).toBe(4);
    expect(titles[2]).toMatch(/\(1\)$/);
    expect(titles[3]).toMatch(/\(2\)$/);
    expect(titles[0]).not.toMatch(/\(\d\)$/);
  });
});
