import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { Script, must, sampleDiff } from "./fixtures/build";
import { Markdown } from "./Markdown";
import { foldEvents, type Task, type ToolCall } from "./model";
import { BashView, MAX_DOM_LINES, bashExit } from "./renderers/BashView";
import { DiffView, capHunks, splitRows } from "./renderers/DiffView";
import { McpView, maybeJson } from "./renderers/McpView";
import { ReadView, lineRange, stripReminders } from "./renderers/ReadView";
import { RefusalView } from "./renderers/RefusalView";
import { SearchView, searchListing } from "./renderers/SearchView";
import { TaskPanel } from "./renderers/TaskPanel";
import { ToolCallView, ToolGroupView } from "./ToolCallView";

afterEach(cleanup);

/** Folds a script and returns one call. */
function callFrom(s: Script, id: string): ToolCall {
  return must(foldEvents(s.events).calls.get(id), id);
}

describe("ReadView", () => {
  const s = new Script().request(1).queue("r", "Read", { file_path: "/p/src/a.py", offset: 10, limit: 3 }).start("r").allow("r");
  s.complete("r", "    10\tx = 1\n    11\ty = 2\n    12\tz = 3\n\n<system-reminder>more lines</system-reminder>");
  const call = callFrom(s, "r");

  it("shows the path and range; the content only when expanded, without reminders", () => {
    render(<ReadView call={call} />);
    expect(screen.getByText("/p/src/a.py")).toBeTruthy();
    expect(screen.getByText(/lines 10–12/)).toBeTruthy();
    expect(screen.queryByTestId("read-content")).toBeNull();
    fireEvent.click(screen.getByTestId("read-toggle"));
    const content = screen.getByTestId("read-content").textContent ?? "";
    expect(content).toContain("z = 3");
    expect(content).not.toContain("system-reminder");
    expect(screen.getByTestId("read-toggle").textContent).toBe("Hide");
  });

  it("computes ranges and strips reminders", () => {
    expect(lineRange({ ...call, input: { file_path: "/a" } })).toBe("whole file");
    expect(lineRange({ ...call, input: { file_path: "/a", offset: 5 } })).toBe("from line 5");
    expect(stripReminders("a\n<system-reminder>x\ny</system-reminder>\nb")).toBe("a\nb");
  });
});

describe("SearchView", () => {
  it("counts and lists Grep's typed results, not its text's header or totals sentence", () => {
    const s = new Script().request(1).queue("g", "Grep", { pattern: "TODO", path: "src", output_mode: "count" }).start("g");
    s.progress("g", { kind: "search_results", unit: "lines", count: 3, entries: ["/p/src/a.py:2", "/p/src/b.py:1"], more_entries: 0, truncated: false });
    s.complete("g", "/p/src/a.py:2\n/p/src/b.py:1\n\nFound 3 matching lines across 2 files.");
    render(<SearchView call={callFrom(s, "g")} />);
    expect(screen.getByTestId("search-count").textContent).toBe("3 matching lines");
    fireEvent.click(screen.getByTestId("search-toggle"));
    expect(within(screen.getByTestId("search-results")).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["/p/src/a.py:2", "/p/src/b.py:1"]);
  });

  it("says when Glob's limit cut the files, and caps the list at 20 with a 'show all'", () => {
    const files = Array.from({ length: 25 }, (_, i) => `/p/f${i}.ts`);
    const s = new Script().request(1).queue("g", "Glob", { pattern: "**/*.ts" }).start("g");
    s.progress("g", { kind: "search_results", unit: "files", count: 40, entries: files, more_entries: 0, truncated: true });
    s.complete("g", `${files.join("\n")}\n(Results are truncated: 25 of 40 files shown. Use a more specific path or pattern.)`);
    render(<SearchView call={callFrom(s, "g")} />);
    expect(screen.getByTestId("search-count").textContent).toBe("40 files, cut at the limit");
    fireEvent.click(screen.getByTestId("search-toggle"));
    expect(screen.getAllByRole("listitem")).toHaveLength(21);
    fireEvent.click(screen.getByText("Show all 25"));
    expect(screen.getAllByRole("listitem")).toHaveLength(25);
  });

  it("lists a stored call's text without counting it when it has no typed results", () => {
    const s = new Script().request(1).queue("g", "Grep", { pattern: "x" }).start("g").complete("g", "Found 2 files\n/p/a\n/p/b");
    expect(searchListing(callFrom(s, "g"))).toEqual({ lines: ["Found 2 files", "/p/a", "/p/b"], count: null, more: 0 });
  });
});

describe("DiffView", () => {
  it("renders unified rows with line numbers and highlighted Python", () => {
    const { container } = render(<DiffView diff={sampleDiff()} />);
    const diff = screen.getByTestId("diff");
    expect(diff.getAttribute("data-layout")).toBe("unified");
    expect(container.querySelectorAll("tr.diff-removed")).toHaveLength(2);
    expect(container.querySelectorAll("tr.diff-added")).toHaveLength(1);
    expect(container.querySelector(".diff-hunk-head")?.textContent).toBe("@@ -3,4 +3,3 @@");
    // `def` is a Python keyword: highlighted by highlight.js.
    expect(container.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(screen.getByText("+1")).toBeTruthy();
  });

  it("switches to side by side, pairing removed and added lines", () => {
    const { container } = render(<DiffView diff={sampleDiff()} />);
    fireEvent.click(screen.getByTestId("diff-split"));
    expect(screen.getByTestId("diff").getAttribute("data-layout")).toBe("split");
    // 2 context rows + max(2 removed, 1 added) = 4 rows.
    expect(container.querySelectorAll("tbody tr.diff-line")).toHaveLength(4);
    expect(container.querySelectorAll("td.diff-empty")).toHaveLength(1);
    const rows = splitRows(must(sampleDiff().hunks[0]));
    expect(rows.map((r) => [r.left?.kind ?? null, r.right?.kind ?? null])).toEqual([
      ["context", "context"],
      ["context", "context"],
      ["removed", "added"],
      ["removed", null],
    ]);
  });

  it("escapes the file's text", () => {
    const diff = sampleDiff("/p/index.html");
    const hunk = must(diff.hunks[0]);
    const lines = [...hunk.lines, { kind: "added" as const, old_line: null, new_line: 6, text: "<img src=x onerror=alert(1)>" }];
    const { container } = render(<DiffView diff={{ ...diff, hunks: [{ ...hunk, lines }] }} />);
    expect(container.querySelector("img")).toBeNull();
    expect(container.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  it("caps very long diffs", () => {
    const hunk = must(sampleDiff().hunks[0]);
    const { hunks, hidden } = capHunks([hunk, hunk, hunk], 12);
    expect(hunks.map((h) => h.lines.length)).toEqual([5, 5, 2]);
    expect(hidden).toBe(3);
  });

  it("says how many lines the cap hid, in the singular for one", () => {
    const diff = sampleDiff();
    const hunk = must(diff.hunks[0]);
    const lines = Array.from({ length: 21 }, (_, i) => ({ kind: "context" as const, old_line: i + 1, new_line: i + 1, text: "x" }));
    const { container } = render(<DiffView diff={{ ...diff, hunks: [{ ...hunk, lines }] }} maxLines={20} />);
    expect(container.textContent).toContain("… 1 more line not shown");
  });
});

describe("BashView", () => {
  it("renders ANSI colours as classes, escapes HTML, shows exit 0 and duration", () => {
    const s = new Script().request(1).queue("b", "Bash", { command: "ls --color", description: "List" }).start("b", 0, false).allow("b");
    s.progress("b", { kind: "started", pid: 42, cwd: "/p", description: "List", output_path: "/d/b.log" });
    s.progress("b", { kind: "output", text: "\u001b[32mgreen\u001b[0m <b>bold?</b>\n", skipped_bytes: 0, total_bytes: 30, stream: null });
    s.complete("b", "green <b>bold?</b>", "ok", 1234);
    const { container } = render(<BashView call={callFrom(s, "b")} />);
    const out = screen.getByTestId("bash-output");
    expect(out.querySelector(".ansi-green-fg")?.textContent).toBe("green");
    expect(out.querySelector("b")).toBeNull();
    expect(out.textContent).toContain("<b>bold?</b>");
    expect(screen.getByTestId("bash-exit").textContent).toBe("exit 0 · 1.2 s");
    expect(container.querySelector(".bash-command")?.textContent).toContain("ls --color");
  });

  it("shows the exit code of a failed command and the interrupted state", () => {
    const s = new Script().request(1).queue("b", "Bash", { command: "false" }).start("b");
    s.progress("b", { kind: "exited", exit_code: 2, signal: null }).complete("b", "Error: oops\nExit code 2", "error");
    expect(bashExit(callFrom(s, "b"))).toEqual({ label: "exit 2", ok: false });
    // From the typed exit, never the text: output that reads like the note changes nothing.
    s.queue("k", "Bash", { command: "echo 'Exit code 7'; kill -9 $$" }).start("k");
    s.progress("k", { kind: "exited", exit_code: null, signal: 9 }).complete("k", "Exit code 7\nThe shell was killed by signal 9", "error");
    expect(bashExit(callFrom(s, "k"))).toEqual({ label: "signal 9", ok: false });
    s.queue("c", "Bash", { command: "sleep 9" }).start("c").progress("c", { kind: "interrupted", message: "SIGTERM", output_path: null });
    s.complete("c", "Interrupted by the user: the call was stopped.", "interrupted");
    render(<BashView call={callFrom(s, "c")} />);
    expect(screen.getByTestId("bash-exit").textContent).toContain("interrupted");
    expect(screen.getByTestId("bash-exit").textContent).toContain("SIGTERM");
    cleanup();
    // Said once, in the exit line: not again as output, not again below.
    const { container } = render(<ToolCallView call={callFrom(s, "c")} project="/p" />);
    const text = container.textContent ?? "";
    expect(text.split("SIGTERM").length - 1).toBe(1);
    expect(text).not.toContain("Interrupted by the user");
  });

  it("reads a timeout from the status, not from the text", () => {
    const s = new Script().request(1).queue("t", "Bash", { command: "sleep 9" }).start("t");
    s.complete("t", "Error: partial\nCommand timed out after 100 ms: SIGTERM.", "timed_out");
    expect(bashExit(callFrom(s, "t"))).toEqual({ label: "timed out", ok: false });
    // A failure whose output merely mentions a timeout is a failure.
    s.queue("f", "Bash", { command: "make" }).start("f").progress("f", { kind: "exited", exit_code: 1, signal: null });
    s.complete("f", "Error: the test timed out\nExit code 1", "error");
    expect(bashExit(callFrom(s, "f"))).toEqual({ label: "exit 1", ok: false });
    s.queue("g", "Bash", { command: "make" }).start("g").complete("g", "Error: the test timed out", "error");
    expect(bashExit(callFrom(s, "g"))).toEqual({ label: "failed", ok: false });
  });

  it("reserves the output pane and the status row while running, so finishing moves nothing", () => {
    const s = new Script().request(1).queue("b", "Bash", { command: "sleep 1" }).start("b", 0, false).allow("b");
    s.progress("b", { kind: "started", pid: 77, cwd: "/p", description: null, output_path: "/d/b.log" });
    const { container, rerender } = render(<BashView call={callFrom(s, "b")} />);
    expect(screen.getByTestId("bash-output").getAttribute("data-placeholder")).toBe("waiting for output…");
    expect(container.querySelector(".bash-exit")?.textContent).toBe("pid 77 · /p");
    s.complete("b", "(no output)");
    rerender(<BashView call={callFrom(s, "b")} />);
    expect(screen.getByTestId("bash-output").textContent).toBe("(no output)");
    expect(container.querySelectorAll(".bash-exit")).toHaveLength(1);
  });

  it("marks how much earlier output was dropped from a 100 MB stream", () => {
    const s = new Script().request(1).queue("b", "Bash", { command: "yes" }).start("b");
    s.progress("b", { kind: "started", pid: 1, cwd: "/p", description: null, output_path: "/d/yes.log" });
    s.progress("b", { kind: "output", text: "y\n".repeat(1000), skipped_bytes: 99_998_000, total_bytes: 100_000_000, stream: null });
    render(<BashView call={callFrom(s, "b")} />);
    expect(screen.getByTestId("earlier-output").textContent).toBe("… 100.0 MB earlier output (all of it in /d/yes.log)");
    // Only the newest lines are in the DOM.
    expect(screen.getByTestId("bash-output").querySelectorAll(".out-line")).toHaveLength(MAX_DOM_LINES);
    expect(screen.queryByTestId("bash-exit")).toBeNull();
  });
});

describe("McpView", () => {
  it("shows server and tool, pretty JSON output and images", () => {
    const s = new Script().request(1).queue("m", "mcp__github__get_issue", { number: 7 }).start("m");
    s.add({
      type: "tool_completed",
      tool_use_id: "m",
      status: "ok",
      is_error: false,
      content: [
        { type: "text", text: '{"title":"Bug","state":"open"}' },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      ],
      duration_ms: 5,
      persisted_path: null,
    });
    const { container } = render(<McpView call={callFrom(s, "m")} />);
    expect(screen.getByText("github")).toBeTruthy();
    expect(screen.getByText("get_issue")).toBeTruthy();
    expect(container.querySelector(".mcp-output")?.textContent).toBe('{\n  "title": "Bug",\n  "state": "open"\n}');
    expect(container.querySelector("img")?.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
    expect(maybeJson("not json {")).toBe("not json {");
  });

  it("shows progress notifications while running", () => {
    const s = new Script().request(1).queue("m", "mcp__build__run", {}).start("m").progress("m", { kind: "mcp_progress", progress: 3, total: 10, message: "compiling" });
    render(<McpView call={callFrom(s, "m")} />);
    const bar = screen.getByTestId("mcp-progress");
    expect(bar.querySelector("progress")?.getAttribute("value")).toBe("3");
    expect(bar.textContent).toContain("compiling");
  });
});

describe("RefusalView and ToolCallView", () => {
  it("explains a denial: feedback, reason and trace", () => {
    const s = new Script().request(1).queue("b", "Bash", { command: "rm -rf /" }).start("b").ask("b", "Bash", {});
    s.answer("b", { kind: "deny", feedback: "never" }).complete("b", "The user denied permission", "denied");
    render(<RefusalView call={callFrom(s, "b")} />);
    const refusal = screen.getByTestId("refusal");
    expect(refusal.textContent).toContain("never");
    // The feedback is said once.
    expect(refusal.textContent?.split("never").length).toBe(2);
    expect(refusal.textContent).toContain("You answered: deny");
    expect(within(refusal).getByTestId("decision-trace").querySelectorAll("li")).toHaveLength(3);
    expect(refusal.textContent).toContain("Decision trace (3 steps)");
  });

  it("counts a one-layer trace in the singular", () => {
    const s = new Script().request(1).queue("d", "Bash", { command: "echo hi" }).start("d");
    s.add({
      type: "permission_decided",
      tool_use_id: "d",
      decision: "deny",
      reason: { kind: "default", message: "denied by rule Bash(echo:*)" },
      trace: [{ layer: "deny_rules", stage: "deny_rules", outcome: "deny", detail: "Bash(echo:*)" }],
    }).complete("d", "Permission to use Bash was denied", "denied");
    render(<RefusalView call={callFrom(s, "d")} />);
    expect(screen.getByTestId("refusal").textContent).toContain("Decision trace (1 step)");
  });

  it("explains an input rejection by its stage", () => {
    const s = new Script().request(1).queue("r", "Read", {}).add({ type: "tool_input_rejected", tool_use_id: "r", stage: "schema", message: "file_path is required" });
    s.complete("r", "file_path is required", "error");
    render(<RefusalView call={callFrom(s, "r")} />);
    expect(screen.getByTestId("refusal").textContent).toBe("Rejected (schema): file_path is required");
  });

  it("renders the header with the test-id contract and the 'why' trace on demand", () => {
    const s = new Script().request(1).queue("e", "Edit", { file_path: "/p/src/greeter.py", old_string: "a", new_string: "b" }).start("e").allow("e");
    s.progress("e", { kind: "file_diff", diff: sampleDiff() }).complete("e", "updated");
    render(<ToolCallView call={callFrom(s, "e")} project="/p" />);
    const el = screen.getByTestId("tool-call");
    expect(el.getAttribute("data-tool-name")).toBe("Edit");
    expect(el.getAttribute("data-tool-use-id")).toBe("e");
    expect(el.getAttribute("data-status")).toBe("completed");
    expect(screen.getByText("src/greeter.py")).toBeTruthy();
    expect(screen.getByTestId("diff")).toBeTruthy();
    expect(screen.queryByTestId("decision-trace")).toBeNull();
    fireEvent.click(screen.getByTestId("why-button"));
    expect(screen.getByTestId("decision-trace")).toBeTruthy();
  });

  it("lists the hooks that ran in the 'why' panel", () => {
    const s = new Script().request(1).queue("b", "Bash", { command: "ls" }).start("b");
    s.add({ type: "hook_ran", tool_use_id: "b", hook_event: "PreToolUse", hook: "./check.sh", decision: "allow", blocked: false, input_updated: false, message: "fine", error: null });
    s.allow("b").complete("b", "a\nb");
    render(<ToolCallView call={callFrom(s, "b")} project="/p" />);
    fireEvent.click(screen.getByTestId("why-button"));
    expect(screen.getByTestId("hook-runs").textContent).toBe("PreToolUse hook ./check.sh: allow — fine");
  });

  it("shows the preview diff of an edit waiting for permission, and a running call's clock", () => {
    const s = new Script().request(1).queue("e", "Write", { file_path: "/p/n.md", content: "x" }).start("e").ask("e", "Write", {}, [], sampleDiff("/p/n.md"));
    render(<ToolCallView call={callFrom(s, "e")} project="/p" />);
    expect(screen.getByTestId("tool-call").getAttribute("data-status")).toBe("waiting_permission");
    expect(screen.getByTestId("diff")).toBeTruthy();
    expect(screen.getByText("Needs permission")).toBeTruthy();
    expect(document.querySelector(".elapsed")?.textContent).toMatch(/^\d+:\d\d/);
  });

  it("groups: collapsed by default with a summary, calls visible when expanded", () => {
    const s = new Script().request(1);
    s.queue("r1", "Read", { file_path: "/p/a" }).queue("r2", "Read", { file_path: "/p/b" }).queue("g", "Grep", { pattern: "x" });
    const model = foldEvents(s.events);
    const calls = ["r1", "r2", "g"].map((id) => must(model.calls.get(id)));
    const { rerender } = render(<ToolGroupView calls={calls} project="/p" expanded={false} onToggle={() => {}} />);
    expect(screen.getByTestId("tool-group-summary").textContent).toBe("Read 2 files, searched 1 pattern");
    expect(screen.queryAllByTestId("tool-call")).toHaveLength(0);
    expect(screen.getByTestId("tool-group").getAttribute("data-status")).toBe("queued");
    rerender(<ToolGroupView calls={calls} project="/p" expanded onToggle={() => {}} />);
    expect(screen.getAllByTestId("tool-call").map((e) => e.getAttribute("data-tool-use-id"))).toEqual(["r1", "r2", "g"]);
  });
});

describe("TaskPanel", () => {
  it("has an empty state", () => {
    render(<TaskPanel tasks={[]} />);
    expect(screen.getByText("No background tasks.")).toBeTruthy();
  });

  it("lists running tasks first with their status and message", () => {
    const base: Task = { id: "bash_1", toolUseId: "t", command: "npm run dev", description: "dev server", outputPath: "/d/1.log", status: "completed", exitCode: 0, message: "exited with code 0", startedMs: 1, endedMs: 2001, kind: "process", output: null };
    render(<TaskPanel tasks={[base, { ...base, id: "bash_2", status: "running", exitCode: null, message: null, endedMs: null, startedMs: Date.now() }]} />);
    const tasks = screen.getAllByTestId("task");
    expect(tasks.map((t) => t.getAttribute("data-status"))).toEqual(["running", "completed"]);
    expect(tasks[1]?.textContent).toContain("exited with code 0");
    expect(tasks[1]?.textContent).toContain("2.0 s");
  });
});

describe("Markdown", () => {
  it("highlights fenced code and renders GFM tables", () => {
    const { container } = render(<Markdown text={"Hi **there**\n\n```ts\nconst x: number = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"} />);
    expect(container.querySelector("strong")?.textContent).toBe("there");
    expect(container.querySelector("code.hljs .hljs-keyword")?.textContent).toBe("const");
    expect(container.querySelectorAll("td")).toHaveLength(2);
  });

  it("never renders raw HTML or script links", () => {
    const { container } = render(<Markdown text={'<b>bold</b> <script>alert(1)</script> [x](javascript:alert(1))'} />);
    expect(container.querySelector("b")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("a")?.getAttribute("href")).toBeNull();
  });
});
