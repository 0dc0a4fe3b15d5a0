import { act, cleanup, fireEvent, render, renderHook, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { App } from "../App";
import { setClaudeCodeAskSource, setEventSource, setTransport, setWindowRequestSource } from "../client";
import { NAVIGATION, useHome } from "../state/home";
import { startupState } from "../onboarding/fixtures";

const restores: (() => void)[] = [];
afterEach(() => {
  cleanup();
  while (restores.length > 0) restores.pop()?.();
});

/** A backend with no projects and no sessions (the real one needs Tauri). */
function emptyBackend() {
  restores.push(setEventSource({ listen: async () => () => undefined }));
  restores.push(setWindowRequestSource({ listen: async () => () => undefined }));
  restores.push(setClaudeCodeAskSource({ listen: async () => () => undefined }));
  restores.push(
    setTransport({
      invoke: async (command) => {
        switch (command) {
          case "app_info":
            return { version: "0.1.0", data_dir: "/d", database_path: "/d/g.sqlite3", smoke: false, database_error: null, launch_folder: null };
          case "list_projects":
          case "list_sessions":
          case "browse_sessions":
            return [];
          case "session_facets":
            return { projects: [], models: [] };
          case "startup_state":
            return startupState();
        }
        throw { message: `unexpected command ${command}` };
      },
    }),
  );
}

describe("the Sessions screen in the app", () => {
  it("has one navigation entry that opens the session browser", async () => {
    expect(NAVIGATION.filter((n) => n.screen === "sessions")).toEqual([{ screen: "sessions", label: "Sessions", testId: "open-sessions" }]);
    emptyBackend();
    render(<App />);
    fireEvent.click(await screen.findByTestId("open-sessions"));
    // The screen is a lazy chunk: its first import is transformed on demand.
    expect(await screen.findByTestId("sessions-empty", {}, { timeout: 10_000 })).toBeTruthy();
    // The test's own limit is above the 10 s wait (Vitest's default 5 s cut
    // it short on a loaded 2-core machine).
  }, 15_000);

  it("openStoredSession opens the reader at an event, again on every call", async () => {
    emptyBackend();
    const { result } = renderHook(() => useHome());
    await waitFor(() => expect(result.current[0].projects).toEqual([]));
    act(() => result.current[1].openStoredSession("ses_1", 7));
    expect(result.current[0].screen).toBe("sessions");
    expect(result.current[0].storedSession).toEqual({ sessionId: "ses_1", seq: 7, nonce: 1 });
    act(() => result.current[1].openStoredSession("ses_1", 7));
    expect(result.current[0].storedSession?.nonce).toBe(2);
    act(() => result.current[1].openStoredSession("ses_2"));
    expect(result.current[0].storedSession).toMatchObject({ sessionId: "ses_2", seq: null });
    act(() => result.current[1].openScreen("sessions"));
    expect(result.current[0].storedSession).toBeNull();
  });
});
