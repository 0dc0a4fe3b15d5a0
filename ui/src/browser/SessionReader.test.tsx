import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { setTransport } from "../client";
import { startedLabel } from "../format";
import type { SessionStats, SessionSummary } from "../generated/protocol";
import { Script, SUBAGENT_ID, sampleDiff, subagentSession } from "../session/fixtures/build";
import { installTranscriptLayout } from "../session/testLayout";
import { SessionReader } from "./SessionReader";
import { READER_HEAD_EVENTS } from "./state";

installTranscriptLayout();

let restore: (() => void) | null = null;
/** The summary's `source_path`: set for an imported transcript. */
let sourcePath: string | null = null;
afterEach(() => {
  cleanup();
  restore?.();
  sourcePath = null;
});

function events() {
  return new Script("ses_r")
    .add({ type: "session_started", provider: "replay", model: "m", project: "/p", resumed: false })
    .prompt("fix the greeter")
    .request(1)
    .queue("r1", "Read", { file_path: "/p/a.py" })
    .queue("r2", "Read", { file_path: "/p/b.py" })
    .allow("r1")
    .allow("r2")
    .complete("r1", "a")
    .complete("r2", "b")
    .queue("e1", "Edit", { file_path: "/p/src/greeter.py", old_string: "a", new_string: "b" })
    .allow("e1")
    .progress("e1", { kind: "file_diff", diff: sampleDiff() })
    .complete("e1", "edited")
    .queue("b1", "Bash", { command: "pytest" })
    .allow("b1")
    .complete("b1", "1 failed", "error")
    .turnDone(1, 4)
    .done().events;
}

const STATS: SessionStats = {
  session_id: "ses_r",
  tools: [
    { name: "Read", calls: 2, errors: 0, denials: 0, total_ms: 20, max_ms: 10 },
    { name: "Bash", calls: 1, errors: 1, denials: 0, total_ms: 900, max_ms: 900 },
  ],
  decisions: { allowed: 4, asked: 0, denied: 0, user_allowed: 0, user_denied: 0, undecided: 0 },
  turns: [{ turn: 1, input_tokens: 100, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0, latency_ms: 250, duration_ms: 1000, tool_calls: 4 }],
};

function summary(origin: SessionSummary["origin"]): SessionSummary {
  return {
    id: "ses_r",
    project_path: "/p",
    provider: "replay",
    model: "m",
    mode: "default",
    status: "completed",
    title: "fix the greeter",
    created_at_ms: 1_700_000_000_000,
    updated_at_ms: 1_700_000_000_500,
    event_count: 20,
    origin,
    duration_ms: 500,
    tool_calls: 4,
    asks: 0,
    denials: 0,
    errors: 1,
    input_tokens: 100,
    output_tokens: 20,
    parent_session_id: null,
    source_path: sourcePath,
    end_reason: null,
  };
}

/** `events()` followed by `extra` more turns of one Bash call each. */
function longEvents(extra: number) {
  const script = new Script("ses_r")
    .add({ type: "session_started", provider: "replay", model: "m", project: "/p", resumed: false })
    .prompt("fix the greeter");
  for (let t = 1; t <= extra; t++) {
    script.request(t).queue(`b${t}`, "Bash", { command: `echo ${t}` }).allow(`b${t}`).complete(`b${t}`, `${t}`).turnDone(t, 1);
  }
  return script.done().events;
}

/** What the store returns for stored positions 1..n of `list` when this build cannot read the positions in `unreadable`. */
function stored(list: ReturnType<typeof events>, unreadable: readonly number[]) {
  return {
    events: list.filter((_, i) => !unreadable.includes(i + 1)),
    unreadable_seqs: unreadable.filter((u) => u <= list.length),
    unreadable: unreadable.filter((u) => u <= list.length).length,
  };
}

function fake(
  origin: SessionSummary["origin"],
  all: () => ReturnType<typeof events> = events,
  gate: Promise<void> | null = null,
  unreadable: readonly number[] = [],
) {
  const calls: [string, Record<string, unknown>][] = [];
  restore = setTransport({
    invoke: async (command, payload) => {
      const args = payload["args"] as Record<string, unknown>;
      calls.push([command, args]);
      switch (command) {
        case "session_summary":
          return all === events ? summary(origin) : { ...summary(origin), event_count: all().length };
        case "session_events":
          if (gate) await gate;
          return stored(all(), unreadable);
        case "session_events_before":
          return stored(all().slice(0, Number(args["count"])), unreadable);
        case "session_stats":
          return STATS;
        case "export_session":
          return { path: `/out/ses_r.${String(args["format"])}`, bytes: 1234 };
      }
      throw { message: `no fake for ${command}` };
    },
  });
  return calls;
}

function renderReader(origin: SessionSummary["origin"], seq: number | null = null) {
  const onResume = vi.fn();
  const calls = fake(origin);
  render(<SessionReader sessionId="ses_r" seq={seq} nonce={1} onBack={vi.fn()} onResume={onResume} onDeleted={vi.fn()} />);
  return { onResume, calls };
}

describe("SessionReader", () => {
  it("renders a stored session read-only with the live components, stats and resume", async () => {
    const { onResume } = renderReader("gatehouse");
    // The title shows the session's id until its summary is read.
    await waitFor(() => expect(screen.getByTestId("reader-title").textContent).toBe("fix the greeter"));
    // The start in the lists' format (the same words as the list row it came from).
    expect(screen.getByTestId("stored-session").querySelector(".session-title")?.textContent).toContain(` · ${startedLabel(1_700_000_000_000)} · `);
    await screen.findByTestId("tool-group");
    expect(screen.getByTestId("tool-group").textContent).toContain("Read 2 files");
    expect(screen.getByTestId("diff")).toBeTruthy();
    expect(screen.queryByTestId("prompt-input")).toBeNull();
    expect(screen.queryByTestId("interrupt-button")).toBeNull();
    const bars = (await screen.findByTestId("chart-calls")).querySelectorAll("[data-testid=chart-bar]");
    expect([...bars].map((b) => [b.getAttribute("data-label"), b.getAttribute("data-value")])).toEqual([
      ["Read", "2"],
      ["Bash", "1"],
    ]);
    expect([...bars].map((b) => b.querySelector("title")?.textContent)).toEqual(["Read: 2 calls, 0 errors, 0 denied", "Bash: 1 call, 1 error, 0 denied"]);
    expect(screen.getByTestId("chart-latency").textContent).toContain("250 ms");
    fireEvent.click(screen.getByTestId("reader-resume"));
    expect(onResume).toHaveBeenCalledWith(expect.objectContaining({ id: "ses_r" }));
  });

  it("deletes from the reader after a confirmation naming the session", async () => {
    const onDeleted = vi.fn();
    fake("gatehouse");
    render(<SessionReader sessionId="ses_r" seq={null} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={onDeleted} />);
    await screen.findByTestId("reader-title");
    fireEvent.click(await screen.findByTestId("reader-delete"));
    expect(onDeleted).not.toHaveBeenCalled();
    expect(screen.getByTestId("reader-delete-what").textContent).toMatch(/^Delete “fix the greeter · .+” and its files\?$/);
    fireEvent.click(screen.getByTestId("reader-delete-confirm"));
    expect(onDeleted).toHaveBeenCalledTimes(1);
  });

  it("offers no resume for imported sessions, filters calls and exports", async () => {
    const { calls } = renderReader("claude_code");
    await screen.findByTestId("tool-group");
    expect(screen.queryByTestId("reader-resume")).toBeNull();
    fireEvent.change(screen.getByTestId("filter-tool"), { target: { value: "Bash" } });
    await waitFor(() => expect(screen.getAllByTestId("tool-call").map((c) => c.dataset["toolName"])).toEqual(["Bash"]));
    fireEvent.click(screen.getByTestId("filter-clear"));
    fireEvent.click(screen.getByTestId("filter-errors-only"));
    await waitFor(() => expect(screen.getAllByTestId("tool-call").map((c) => c.dataset["status"])).toEqual(["error"]));
    fireEvent.click(screen.getByTestId("export-html"));
    expect((await screen.findByTestId("export-result")).dataset["path"]).toBe("/out/ses_r.html");
    expect(calls.find(([c]) => c === "export_session")?.[1]).toEqual({ session_id: "ses_r", format: "html" });
  });

  it("says whether a Claude Code session was imported from its transcript or recorded live by the guard", async () => {
    renderReader("claude_code");
    await waitFor(() =>
      expect(screen.getByTestId("stored-session").textContent).toContain("recorded live from a guarded Claude Code"),
    );
    cleanup();
    sourcePath = "/home/me/.claude/projects/p/ses_r.jsonl";
    renderReader("claude_code");
    await waitFor(() => expect(screen.getByTestId("stored-session").textContent).toContain("imported from Claude Code"));
    expect(screen.getByTestId("stored-session").textContent).not.toContain("recorded live");
  });

  it("opens at a stored event: the call's group is expanded and marked", async () => {
    const seq = events().findIndex((e) => e.type === "tool_completed" && e.tool_use_id === "r2") + 1;
    renderReader("gatehouse", seq);
    await waitFor(() => expect(screen.getAllByTestId("tool-call").map((c) => c.dataset["toolUseId"])).toContain("r2"));
    // The call itself is marked, not its whole group (centring a long
    // group showed another of its calls).
    const marked = Array.from(document.querySelectorAll("[data-target]"));
    expect(marked.map((el) => el.getAttribute("data-tool-use-id"))).toEqual(["r2"]);
    expect(marked[0]?.closest("[data-testid=tool-group]")).toBeTruthy();
    fireEvent.change(screen.getByTestId("filter-tool"), { target: { value: "Bash" } });
    await waitFor(() => expect(screen.getAllByTestId("tool-call").map((c) => c.dataset["toolName"])).toEqual(["Bash"]));
    expect(document.querySelector("[data-target]")).toBeNull();
  });

  it("lands on a hit's call even when earlier events cannot be read, and says so", async () => {
    const all = events();
    const seq = all.findIndex((e) => e.type === "tool_completed" && e.tool_use_id === "r2") + 1;
    // Three positions before the hit were written by a newer version.
    fake("gatehouse", events, null, [2, 3, 4]);
    render(<SessionReader sessionId="ses_r" seq={seq} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={vi.fn()} />);
    await waitFor(() => expect(document.querySelector("[data-target]")?.getAttribute("data-tool-use-id")).toBe("r2"));
    const notice = await screen.findByTestId("reader-unreadable");
    expect(notice.dataset["count"]).toBe("3");
    expect(notice.textContent).toContain("3 events of this session were written by a newer version of Gatehouse");
    expect(screen.queryByTestId("reader-jump-problem")).toBeNull();
  });

  it.each([
    ["unreadable", (n: number) => [n], (n: number) => n],
    ["missing", () => [], (n: number) => n + 50],
  ])("says in place when a hit's event is %s, and changes nothing", async (problem, unreadable, at) => {
    const n = events().length;
    const calls = fake("gatehouse", events, null, unreadable(n - 1));
    render(<SessionReader sessionId="ses_r" seq={at(n - 1)} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={vi.fn()} />);
    const shown = await screen.findByTestId("reader-jump-problem");
    expect(shown.dataset["problem"]).toBe(problem);
    expect(document.querySelector("[data-target]")).toBeNull();
    // Looking wrote nothing.
    expect(calls.map(([c]) => c).filter((c) => !["session_summary", "session_events", "session_events_before", "session_stats"].includes(c))).toEqual([]);
  });

  it("shows a filter's first match at the top and its empty state in view", async () => {
    // A Read, then many Bash calls; the reader is scrolled far down.
    const script = new Script("ses_r").prompt("look").request(1).queue("r1", "Read", { file_path: "/p/a.py" }).allow("r1").complete("r1", "a");
    for (let i = 0; i < 60; i++) script.queue(`b${i}`, "Bash", { command: `echo ${i}` }).allow(`b${i}`).complete(`b${i}`, `${i}`);
    const all = script.turnDone(1, 61).done().events;
    fake("gatehouse", () => all);
    render(<SessionReader sessionId="ses_r" seq={null} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={vi.fn()} />);
    await screen.findAllByTestId("tool-call");
    const scroller = screen.getByTestId("transcript");
    scroller.scrollTop = 4000;
    fireEvent.scroll(scroller);
    fireEvent.change(screen.getByTestId("filter-tool"), { target: { value: "Read" } });
    await waitFor(() => expect(screen.getAllByTestId("tool-call").map((c) => c.dataset["toolName"])).toEqual(["Read"]));
    expect(screen.getByTestId("transcript").scrollTop).toBe(0);
    // Errors only, and there are none: the empty state says so, under the filters.
    fireEvent.click(screen.getByTestId("filter-errors-only"));
    expect((await screen.findByTestId("reader-empty")).textContent).toContain("No calls match these filters.");
    expect(screen.queryByTestId("transcript")).toBeNull();
  });

  it("shows a long session's first events at once, then the whole session", async () => {
    const long = longEvents(500);
    expect(long.length).toBeGreaterThan(READER_HEAD_EVENTS);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The whole session is held back until the first page is on screen.
    const calls = fake("gatehouse", () => long, gate);
    render(<SessionReader sessionId="ses_r" seq={null} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={vi.fn()} />);
    const note = await screen.findByTestId("reader-partial");
    expect(note.textContent).toContain(`first ${READER_HEAD_EVENTS.toLocaleString("en")} of ${long.length.toLocaleString("en")} events`);
    expect(calls.find(([c]) => c === "session_events_before")?.[1]).toEqual({ session_id: "ses_r", count: READER_HEAD_EVENTS });
    await screen.findAllByTestId("tool-call");
    release();
    await waitFor(() => expect(screen.queryByTestId("reader-partial")).toBeNull());
    expect(calls.some(([c]) => c === "session_events")).toBe(true);
  });
});

describe("SessionReader and sub-agents", () => {
  function fakeStored(id: string, list: ReturnType<typeof events>, parent: string | null) {
    restore = setTransport({
      invoke: async (command) => {
        switch (command) {
          case "session_summary":
            return { ...summary("gatehouse"), id, event_count: list.length, parent_session_id: parent };
          case "session_events":
          case "session_events_before":
            return stored(list, []);
          case "session_stats":
            return { ...STATS, session_id: id };
        }
        throw { message: `no fake for ${command}` };
      },
    });
  }

  it("opens an Agent call's sub-agent session, and a sub-agent's session links back to its parent", async () => {
    // What the parent's session stores: its own events (the sub-agent's are its own session's).
    const parentEvents = subagentSession(true).filter((e) => e.session_id === "ses_test");
    fakeStored("ses_test", parentEvents, null);
    const onOpenSession = vi.fn();
    render(<SessionReader sessionId="ses_test" seq={null} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={vi.fn()} onOpenSession={onOpenSession} />);
    fireEvent.click(await screen.findByTestId("agent-open-session"));
    expect(onOpenSession).toHaveBeenCalledWith(SUBAGENT_ID);
    expect(screen.queryByTestId("reader-parent")).toBeNull();
    cleanup();
    restore?.();

    const childEvents = subagentSession(true).filter((e) => e.session_id === SUBAGENT_ID);
    fakeStored(SUBAGENT_ID, childEvents, "ses_test");
    render(<SessionReader sessionId={SUBAGENT_ID} seq={null} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={vi.fn()} onOpenSession={onOpenSession} />);
    fireEvent.click(await screen.findByTestId("reader-parent"));
    expect(onOpenSession).toHaveBeenLastCalledWith("ses_test");
  });
});

describe("SessionReader and the todo list", () => {
  const todo = (content: string, status: "pending" | "in_progress" | "completed") => ({ content, activeForm: `${content}ing`, status });

  it("shows the last todo list whose TodoWrite did not fail, rebuilt from the stored events", async () => {
    const script = new Script("ses_r")
      .add({ type: "session_started", provider: "replay", model: "m", project: "/p", resumed: false })
      .prompt("plan it")
      .request(1);
    script.queue("t1", "TodoWrite", {}).allow("t1").progress("t1", { kind: "todos_updated", todos: [todo("Read", "in_progress"), todo("Fix", "pending")] }).complete("t1", "ok");
    script.queue("t2", "TodoWrite", {}).allow("t2").progress("t2", { kind: "todos_updated", todos: [todo("Read", "completed"), todo("Fix", "in_progress")] }).complete("t2", "ok");
    // Refused (two in progress): the list before it stays.
    script.queue("t3", "TodoWrite", {}).allow("t3").complete("t3", "todos[1].status: …", "error");
    const list = script.turnDone(1, 3).done().events;
    fake("gatehouse", () => list);
    render(<SessionReader sessionId="ses_r" seq={null} nonce={1} onBack={vi.fn()} onResume={vi.fn()} onDeleted={vi.fn()} />);
    const panel = await screen.findByTestId("todo-panel");
    expect(panel.getAttribute("data-count")).toBe("2");
    const items = [...panel.querySelectorAll("[data-testid=todo-item]")];
    expect(items.map((i) => [i.getAttribute("data-status"), i.textContent])).toEqual([
      ["completed", "Read"],
      ["in_progress", "Fixing"],
    ]);
  });

  it("shows no todo panel for a session without TodoWrite", async () => {
    renderReader("gatehouse");
    await screen.findByTestId("tool-group");
    expect(screen.queryByTestId("todo-panel")).toBeNull();
  });
});
