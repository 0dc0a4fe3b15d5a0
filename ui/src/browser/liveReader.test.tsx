import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setStoredSessionsSource, setTransport } from "../client";
import type { Event, SessionSummary, StoredSessionsChanged } from "../generated/protocol";
import { Script } from "../session/fixtures/build";
import { useReader } from "./state";

const restores: (() => void)[] = [];
afterEach(() => {
  cleanup();
  while (restores.length > 0) restores.pop()?.();
});

/** A guarded Claude Code's session as its hooks write it: a Bash call, then `more` (no end: it is still running). */
function written(more: number): Event[] {
  const script = new Script("cc_live").add({
    type: "session_started",
    provider: "claude_code",
    model: "claude",
    project: "/p",
    resumed: false,
  });
  for (let i = 0; i <= more; i++) {
    script.queue(`t${i}`, "Bash", { command: `echo ${i}` }).allow(`t${i}`).complete(`t${i}`, `${i}`);
  }
  return script.events;
}

/** The backend: the session as stored now (`stored()`), and the stored-sessions channel the test sends on. */
function fakeBackend(stored: () => Event[]) {
  const calls: [string, Record<string, unknown>][] = [];
  restores.push(
    setTransport({
      invoke: async (command, payload) => {
        const args = payload["args"] as Record<string, unknown>;
        calls.push([command, args]);
        const all = stored();
        const read = (events: Event[]) => ({ events, unreadable_seqs: [], unreadable: 0 });
        switch (command) {
          case "session_summary":
            return { id: "cc_live", event_count: all.length, origin: "claude_code" } as unknown as SessionSummary;
          case "session_events_before":
            return read(all.slice(0, Number(args["count"])));
          case "session_events_after":
            return read(all.slice(Number(args["after_seq"])));
          case "session_stats":
            return null;
        }
        throw { message: `no fake for ${command}` };
      },
    }),
  );
  let send: ((message: StoredSessionsChanged) => void) | null = null;
  restores.push(
    setStoredSessionsSource({
      listen: async (handler) => {
        send = handler;
        return () => {
          send = null;
        };
      },
    }),
  );
  const changed = (ids: string[]) =>
    act(() => {
      send?.({ session_ids: ids });
    });
  return { calls, changed };
}

describe("a stored session still being written", () => {
  it("grows in the reader when the backend names it, reading only the new events", async () => {
    // The whole session as it will be; the store holds its first part.
    const full = written(2);
    const firstPart = written(0).length;
    let storedCount = firstPart;
    const { calls, changed } = fakeBackend(() => full.slice(0, storedCount));
    const { result } = renderHook(() => useReader("cc_live"));
    await waitFor(() => expect(result.current[0].events?.length).toBe(firstPart));
    expect(result.current[0].model?.calls.size).toBe(1);

    // Another session's change reads nothing.
    await changed(["other"]);
    expect(calls.filter(([c]) => c === "session_events_after")).toEqual([]);

    storedCount = full.length;
    await changed(["other", "cc_live"]);
    await waitFor(() => expect(result.current[0].events?.length).toBe(full.length));
    expect(calls.filter(([c]) => c === "session_events_after").map(([, a]) => a["after_seq"])).toEqual([firstPart]);
    // The same events, in order, as reading the session whole.
    expect(result.current[0].events).toEqual(full);
    expect(result.current[0].model?.calls.size).toBe(3);
  });
});
