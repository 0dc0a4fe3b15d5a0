import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { setEventSource, setTransport } from "../client";
import type { Event, SessionSummary } from "../generated/protocol";
import { BrowserScreen } from "./BrowserScreen";

const restores: (() => void)[] = [];
afterEach(() => {
  cleanup();
  while (restores.length > 0) restores.pop()?.();
});

function summary(id: string, change: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    project_path: "/p/one",
    provider: "replay",
    model: "opus",
    mode: "default",
    status: "completed",
    title: `title of ${id}`,
    created_at_ms: 1_700_000_000_000,
    updated_at_ms: 1_700_000_100_000,
    event_count: 10,
    origin: "gatehouse",
    duration_ms: 65_000,
    tool_calls: 4,
    asks: 1,
    denials: 2,
    errors: 0,
    input_tokens: 1200,
    output_tokens: 300,
    parent_session_id: null,
    source_path: null,
    end_reason: null,
    ...change,
  };
}

type Handler = (args: Record<string, unknown>) => unknown;

/** A fake backend answering `handlers`, recording every call (the real one needs Tauri). */
function backend(handlers: Record<string, Handler>) {
  const calls: [string, Record<string, unknown>][] = [];
  restores.push(
    setTransport({
      invoke: async (command, payload) => {
        const args = payload["args"] as Record<string, unknown>;
        calls.push([command, args]);
        const handler = handlers[command];
        if (!handler) throw { message: `no fake for ${command}` };
        return handler(args);
      },
    }),
  );
  return calls;
}

const LIST: Record<string, Handler> = {
  browse_sessions: () => [
    summary("s1", { status: "ended", end_reason: "app_closed" }),
    summary("cc-x", { origin: "claude_code", title: "imported one", status: "imported" }),
  ],
  session_facets: () => ({ projects: ["/p/one", "/p/two"], models: ["opus"] }),
};

function renderScreen(onOpen = vi.fn()) {
  render(<BrowserScreen target={null} onOpen={onOpen} onClose={vi.fn()} onResume={vi.fn()} onBack={vi.fn()} />);
  return onOpen;
}

describe("BrowserScreen", () => {
  it("lists sessions with counts and sends the filters and sort the user picks", async () => {
    const calls = backend(LIST);
    const onOpen = renderScreen();
    const rows = await screen.findAllByTestId("session-row");
    expect(rows.map((r) => r.dataset["origin"])).toEqual(["gatehouse", "claude_code"]);
    expect(within(must(rows[0])).getByTestId("session-counts").textContent).toBe("4 · 1 · 2 · 0");
    expect(rows[1]?.textContent).toContain("Claude Code");
    // The state is true and says why it ended.
    expect(within(must(rows[0])).getByTestId("session-state").textContent).toBe(" · ended: app closed");

    fireEvent.change(screen.getByTestId("filter-project"), { target: { value: "/p/two" } });
    fireEvent.click(screen.getByTestId("filter-errors"));
    fireEvent.change(screen.getByTestId("list-sort"), { target: { value: "tokens" } });
    await waitFor(() => {
      const last = calls.filter(([c]) => c === "browse_sessions").pop()?.[1];
      expect(last).toMatchObject({ project_path: "/p/two", had_errors: true, sort: "tokens" });
    });

    fireEvent.click(must(within(must(rows[1])).getByTestId("session-open")));
    expect(onOpen).toHaveBeenCalledWith("cc-x");
  });

  it("searches with plain words and opens a hit at its event", async () => {
    const calls = backend({
      ...LIST,
      search_sessions: () => [
        { session_id: "s1", seq: 42, type: "tool_completed", snippet: "Found 30 total [occurrences] across", session_title: "grep it", project_path: "/p/one", tool_name: "Grep" },
      ],
    });
    const onOpen = renderScreen();
    await screen.findAllByTestId("session-row");
    fireEvent.change(screen.getByTestId("session-search-input"), { target: { value: "occurrences" } });
    fireEvent.click(screen.getByTestId("session-search-go"));
    const hit = await screen.findByTestId("search-hit");
    expect(calls.find(([c]) => c === "search_sessions")?.[1]).toEqual({ query: "occurrences", literal: true, limit: 100 });
    expect(hit.textContent).toContain("Grep result");
    expect([...hit.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["occurrences"]);
    fireEvent.click(hit);
    expect(onOpen).toHaveBeenCalledWith("s1", 42);
    fireEvent.click(screen.getByTestId("session-search-clear"));
    expect(await screen.findAllByTestId("session-row")).toHaveLength(2);
  });

  it("shows search results on the page: a hit count and the hits grouped by session under its title and start", async () => {
    const hit = (session_id: string, seq: number, session_title: string) => ({
      session_id,
      seq,
      type: "user_prompt",
      snippet: `the [ocelot] ${seq}`,
      session_title,
      project_path: "/p/one",
      tool_name: null,
    });
    backend({ ...LIST, search_sessions: () => [hit("s1", 3, "title of s1"), hit("s2", 7, "other"), hit("s1", 9, "title of s1")] });
    renderScreen();
    await screen.findAllByTestId("session-row");
    fireEvent.change(screen.getByTestId("session-search-input"), { target: { value: "ocelot" } });
    fireEvent.click(screen.getByTestId("session-search-go"));
    expect((await screen.findByTestId("search-count")).textContent).toBe("3 hits in 2 sessions");
    const groups = screen.getAllByTestId("search-group");
    expect(groups.map((g) => g.dataset["sessionId"])).toEqual(["s1", "s2"]);
    expect(within(must(groups[0])).getAllByTestId("search-hit").map((h) => h.dataset["seq"])).toEqual(["3", "9"]);
    const head = must(groups[0]).querySelector("h3")?.textContent ?? "";
    expect(head).toContain("title of s1");
    // The start time comes from the listed session (hits carry none).
    expect(head).toMatch(/2023/);
    expect(must(groups[1]).querySelector("h3")?.textContent).not.toMatch(/2023/);
  });

  it("deletes ticked sessions from one selection action, after a confirmation naming them", async () => {
    const calls = backend({ ...LIST, delete_sessions: (a) => a["session_ids"] });
    renderScreen();
    const rows = await screen.findAllByTestId("session-row");
    // No delete button on every row: the list has one selection action.
    expect(screen.queryAllByRole("button", { name: /delete/i })).toHaveLength(0);
    expect(screen.queryByTestId("selection-bar")).toBeNull();
    fireEvent.click(within(must(rows[0])).getByTestId("session-select"));
    fireEvent.click(within(must(rows[1])).getByTestId("session-select"));
    expect(screen.getByTestId("delete-selected").textContent).toBe(" Delete selected (2)");
    fireEvent.click(screen.getByTestId("delete-selected"));
    const what = screen.getByTestId("delete-selected-what").textContent ?? "";
    expect(what).toContain("Delete 2 sessions and their files:");
    expect(what).toContain("“title of s1 · ");
    expect(what).toContain("“imported one · ");
    // Said in full: not cut to one ellipsised line like the reader's short confirmation.
    expect(getComputedStyle(screen.getByTestId("delete-selected-what")).whiteSpace).toBe("normal");
    expect(calls.some(([c]) => c === "delete_sessions")).toBe(false);
    fireEvent.click(screen.getByTestId("delete-selected-keep"));
    expect(calls.some(([c]) => c === "delete_sessions")).toBe(false);
    // Untick one; the header box ticks all and unticks all.
    fireEvent.click(within(must(rows[1])).getByTestId("session-select"));
    fireEvent.click(screen.getByTestId("delete-selected"));
    expect(screen.getByTestId("delete-selected-what").textContent).toContain("Delete 1 session and their files");
    fireEvent.click(screen.getByTestId("delete-selected-confirm"));
    await waitFor(() => expect(calls.find(([c]) => c === "delete_sessions")?.[1]).toEqual({ session_ids: ["s1"] }));
    fireEvent.click(screen.getByTestId("session-select-all"));
    expect(screen.getByTestId("delete-selected").textContent).toBe(" Delete selected (2)");
    fireEvent.click(screen.getByTestId("session-select-all"));
    expect(screen.queryByTestId("selection-bar")).toBeNull();
  });

  it("tells sessions with the same first prompt apart by start time, then by an ordinal", async () => {
    backend({
      ...LIST,
      browse_sessions: () => [
        summary("a", { title: "do it", created_at_ms: 1_700_000_000_000 }),
        summary("b", { title: "do it", created_at_ms: 1_700_000_000_000 + 3600_000 }),
        summary("c", { title: "do it", created_at_ms: 1_700_000_000_000 + 3600_000 + 5_000 }),
        summary("d", { title: "fix the bug", created_at_ms: 1_700_000_000_000 + 3600_000 }),
      ],
    });
    renderScreen();
    const rows = await screen.findAllByTestId("session-row");
    const shown = rows.map((r) => `${within(r).getByTestId("session-open").textContent} @ ${r.querySelectorAll("td")[3]?.textContent}`);
    expect(new Set(shown).size).toBe(4);
    expect(shown[1]).toMatch(/^do it \(1\) @ /);
    expect(shown[2]).toMatch(/^do it \(2\) @ /);
    expect(shown[0]).toMatch(/^do it @ /);
    expect(shown[3]).toMatch(/^fix the bug @ /);
  });

  it("keeps the sort's label, order and direction together on one line", async () => {
    backend(LIST);
    renderScreen();
    await screen.findAllByTestId("session-row");
    const group = screen.getByTestId("list-sort-group");
    const select = screen.getByTestId("list-sort") as HTMLSelectElement;
    expect(group.contains(select) && group.contains(screen.getByTestId("list-direction"))).toBe(true);
    expect(select.labels[0]?.textContent).toBe("Sort by");
    expect(getComputedStyle(group).whiteSpace).toBe("nowrap");
    expect(getComputedStyle(group).flexWrap).toBe("nowrap");
    // The direction is an icon with its words for assistive tech, not a wide text button.
    expect(screen.getByTestId("list-direction").textContent).toBe("");
    expect(screen.getByTestId("list-direction").getAttribute("aria-label")).toContain("Descending");
  });

  it("imports selected transcripts with a progress bar and lists skipped lines by file and line", async () => {
    const listeners: ((e: Event) => void)[] = [];
    restores.push(
      setEventSource({
        listen: async (handler) => {
          listeners.push(handler);
          return () => undefined;
        },
      }),
    );
    const emit = (e: Event) => listeners.forEach((l) => l(e));
    let finish: (value: unknown) => void = () => undefined;
    const calls = backend({
      ...LIST,
      discover_claude_transcripts: () => ({
        root: "/home/u/.claude/projects",
        transcripts: [
          { path: "/home/u/.claude/projects/p/a.jsonl", project_dir: "p", session_id: "cc-a", parent_session_id: null, size_bytes: 2000, imported_bytes: null },
          { path: "/home/u/.claude/projects/p/b.jsonl", project_dir: "p", session_id: "cc-b", parent_session_id: null, size_bytes: 500, imported_bytes: 500 },
        ],
      }),
      import_claude_transcripts: () => new Promise((resolve) => (finish = resolve)),
    });
    renderScreen();
    fireEvent.click(screen.getByTestId("browser-tab-import"));
    const rows = await screen.findAllByTestId("import-row");
    expect(rows.map((r) => within(r).getByTestId("import-status").textContent)).toEqual(["not imported", "imported"]);
    fireEvent.click(within(must(rows[0])).getByTestId("import-select"));
    fireEvent.click(screen.getByTestId("import-selected"));
    await waitFor(() => expect(calls.find(([c]) => c === "import_claude_transcripts")?.[1]).toEqual({ paths: ["/home/u/.claude/projects/p/a.jsonl"] }));
    emit({
      session_id: "cc-a",
      ts_ms: 1,
      type: "import_progress",
      progress: { path: "/home/u/.claude/projects/p/a.jsonl", files_done: 0, files_total: 1, bytes_done: 500, bytes_total: 2000 },
    });
    const bar = (await screen.findByTestId("import-progress")).querySelector("progress");
    await waitFor(() => expect(bar?.value).toBe(0.25));
    finish([
      {
        path: "/home/u/.claude/projects/p/a.jsonl",
        report: {
          path: "/home/u/.claude/projects/p/a.jsonl",
          session_id: "cc-a",
          outcome: "imported",
          lines: 40,
          events: 90,
          skipped_lines: 1,
          problems: [{ path: "/home/u/.claude/projects/p/a.jsonl", line: 17, message: "not JSON" }],
        },
        error: null,
      },
      { path: "/gone.jsonl", report: null, error: "/gone.jsonl: No such file" },
    ]);
    expect((await screen.findByTestId("import-problem")).textContent).toBe("/home/u/.claude/projects/p/a.jsonl:17: not JSON");
    expect(screen.getByTestId("import-error").textContent).toContain("No such file");
    expect(screen.getByTestId("import-progress").dataset["done"]).toBe("true");
  });

  it("shows the database size, saves retention and vacuums", async () => {
    const usage = { database_bytes: 4_000_000, wal_bytes: 0, reclaimable_bytes: 1_000_000, session_files_bytes: 10, sessions: 3, events: 99 };
    const calls = backend({
      ...LIST,
      storage_info: () => ({ usage, retention_days: 30 }),
      set_retention: (a) => ({ retention_days: a["days"], deleted: ["old"] }),
      vacuum_database: () => ({
        ...usage,
        database_bytes: 3_000_000,
        reclaimable_bytes: 0,
        compaction: { steps: 2, freed_bytes: 0, wal_truncated: true, cancelled: false, full_rewrite: { status: "waiting_for_open_sessions", open_sessions: 1 } },
      }),
    });
    renderScreen();
    fireEvent.click(screen.getByTestId("browser-tab-housekeeping"));
    expect((await screen.findByTestId("db-size")).textContent).toBe("4.0 MB");
    const input = screen.getByTestId("retention-input") as HTMLInputElement;
    expect(input.value).toBe("30");
    fireEvent.change(input, { target: { value: "zero" } });
    fireEvent.click(screen.getByTestId("retention-save"));
    expect((await screen.findByTestId("housekeeping-error")).textContent).toContain("not a number of days");
    fireEvent.change(input, { target: { value: "" } });
    expect(screen.getByTestId("retention-meaning").textContent).toBe("Empty: sessions are kept forever.");
    expect(input.placeholder).toBe("never");
    fireEvent.change(input, { target: { value: "7" } });
    expect(screen.getByTestId("retention-meaning").textContent).toBe("Sessions idle for more than 7 days are deleted.");
    fireEvent.click(screen.getByTestId("retention-apply"));
    await waitFor(() => expect(calls.find(([c]) => c === "set_retention")?.[1]).toEqual({ days: 7, apply: true }));
    expect((await screen.findByTestId("housekeeping-note")).textContent).toContain("1 session deleted");
    fireEvent.click(screen.getByTestId("vacuum"));
    await waitFor(() => expect(screen.getByTestId("db-size").textContent).toBe("3.0 MB"));
    // A full rewrite put off for an open session is said, not hidden
    // behind "compacted".
    const note = (await screen.findByTestId("housekeeping-note")).textContent ?? "";
    expect(note).toContain("Search index compacted: 4.0 MB → 3.0 MB");
    expect(note).toContain("waits while 1 session is open");
  });
});

function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error("missing value");
  return value;
}
