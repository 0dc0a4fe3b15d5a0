import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { setTransport } from "../client";
import { StoredCallPicker } from "./StoredCallPicker";

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

describe("StoredCallPicker", () => {
  it("lists the project's sessions, then a session's calls, and hands the picked call on", async () => {
    const asked: [string, unknown][] = [];
    restore = setTransport({
      invoke: async (command, payload) => {
        asked.push([command, payload["args"]]);
        if (command === "list_sessions") return [{ id: "s1", title: "Fix the tests" }];
        if (command === "session_events") {
          return {
            events: [
              { session_id: "s1", ts_ms: 0, type: "user_prompt", text: "hi" },
              { session_id: "s1", ts_ms: 1, type: "tool_queued", tool_use_id: "t1", name: "Bash", input: { command: "ls" } },
            ],
            unreadable_seqs: [],
            unreadable: 0,
          };
        }
        throw { message: `unexpected ${command}` };
      },
    });
    const onPick = vi.fn();
    render(<StoredCallPicker projectPath="/p" onPick={onPick} />);
    await waitFor(() => expect(screen.getByTestId("tester-stored-session")).toBeTruthy());
    expect(asked[0]).toEqual(["list_sessions", { project_path: "/p", limit: 50 }]);
    fireEvent.change(screen.getByTestId("tester-stored-session"), { target: { value: "s1" } });
    await waitFor(() => expect(screen.getByTestId("tester-stored-call")).toBeTruthy());
    fireEvent.change(screen.getByTestId("tester-stored-call"), { target: { value: "0" } });
    expect(onPick).toHaveBeenCalledWith({ toolUseId: "t1", name: "Bash", input: { command: "ls" } });
  });
});
