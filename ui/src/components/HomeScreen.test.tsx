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
});
