import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import type { HookRun } from "../generated/protocol";
import { BatchTimeline, timelineGeometry } from "./BatchTimeline";
import { Script, must } from "./fixtures/build";
import { SessionHookRow } from "./HookRunView";
import { foldEvents } from "./model";
import { SessionHooks } from "./SessionHooks";
import { ToolCallView } from "./ToolCallView";

afterEach(cleanup);

const guard: HookRun = {
  handler: "command",
  command: "./guard.sh",
  matcher: "Bash",
  source: "project",
  file: "/p/.claude/settings.json",
  duration_ms: 12,
  exit_code: 2,
  signal: null,
  timed_out: false,
  stdout: "",
  stderr: "no rm here\n",
  output_truncated: false,
};

describe("hook runs inside their call", () => {
  it("shows each settings-file hook with its typed fields, output folded", () => {
    const s = new Script().request(1).queue("b", "Bash", { command: "rm -rf x" }).start("b");
    s.add({ type: "hook_ran", tool_use_id: "b", hook_event: "PreToolUse", hook: "`./guard.sh` (project settings)", decision: "deny", blocked: true, input_updated: false, message: "[./guard.sh]: no rm here", error: null, run: guard });
    s.add({ type: "hook_ran", tool_use_id: "b", hook_event: "PreToolUse", hook: "`http://127.0.0.1:9/h` (user settings)", decision: null, blocked: false, input_updated: false, message: null, error: "hook did not answer", run: { ...guard, handler: "http", command: "http://127.0.0.1:9/h", source: "user", exit_code: null, timed_out: true, stderr: "" } });
    // An in-process hook has no run: not listed here.
    s.add({ type: "hook_ran", tool_use_id: "b", hook_event: "PreToolUse", hook: "builtin", decision: "allow", blocked: false, input_updated: false, message: null, error: null });
    const call = must(foldEvents(s.events).calls.get("b"), "b");
    render(<ToolCallView call={call} project="/p" />);
    const list = screen.getByTestId("call-hook-runs");
    const runs = within(list).getAllByTestId("hook-run");
    expect(runs.map((r) => r.getAttribute("data-kind"))).toEqual(["command", "http"]);
    const [command, http] = [must(runs[0], "command run"), must(runs[1], "http run")];
    expect(command.getAttribute("data-decision")).toBe("deny");
    expect(command.textContent).toContain("./guard.sh");
    expect(command.textContent).toContain("exit 2, 12 ms");
    expect(http.textContent).toContain("did not answer in time");
    expect(screen.queryByTestId("hook-output")).toBeNull();
    fireEvent.click(within(command).getByTestId("hook-output-toggle"));
    expect(screen.getByTestId("hook-output").textContent).toContain("no rm here");
  });
});

describe("hooks in the session", () => {
  it("draws a call's hook runs in the batch timeline and names them in the hover", () => {
    const s = new Script("s", 0).request(1).queue("b", "Bash", { command: "ls" }, 0).start("b", 1, false, 100);
    // The hook ran 0.1 s up to its event, 50 ms after the call started (at 110 ms).
    s.add({ type: "hook_ran", tool_use_id: "b", hook_event: "PreToolUse", hook: "`./guard.sh` (project settings)", decision: null, blocked: false, input_updated: false, message: null, error: null, run: { ...guard, exit_code: 0, duration_ms: 100 } }, 150);
    s.complete("b", "done", "ok", 250);
    const model = foldEvents(s.events);
    const call = must(model.calls.get("b"), "b");
    expect(call.hooks[0]?.endedMs).toBe(260);
    const g = timelineGeometry([call], 500);
    const hook = must(g.bars[0]).segments.find((seg) => seg.kind === "hook");
    // The span is 10..510 ms: the hook 160..260 ms.
    expect(hook && [Math.round(hook.left), Math.round(hook.width)]).toEqual([30, 20]);
    render(<BatchTimeline calls={[call]} />);
    expect(screen.getAllByTestId("timeline-bar")[0]?.querySelector("[data-kind=hook]")).toBeTruthy();
    fireEvent.mouseEnter(must(screen.getAllByTestId("timeline-bar")[0], "bar"));
    expect(screen.getByTestId("timeline-hover").textContent).toContain("1 hook 100 ms");
  });

  it("puts session-level hook runs in the transcript and the loaded hooks beside it", () => {
    const s = new Script();
    s.add({ type: "hooks_loaded", active: 2, not_run: [{ event: "PreToolUse", command: "./guard.sh", file: "/p/.claude/settings.local.json", line: 3, column: 9, why: "the project is not trusted: its hooks are listed, not run", reason: "untrusted" }], problems: [{ file: "/p/.claude/settings.json", line: 7, column: 5, message: "bad hook", loses_restrictions: false }], trigger: null });
    s.add({ type: "hook_ran", tool_use_id: "", hook_event: "SessionStart", hook: "`./start.sh` (user settings)", decision: null, blocked: false, input_updated: false, message: "context: main branch", error: null, run: { ...guard, command: "./start.sh", source: "user", exit_code: 0, stderr: "" } });
    s.prompt("hi");
    s.add({ type: "hook_ran", tool_use_id: "", hook_event: "UserPromptSubmit", hook: "`./p.sh` (user settings)", decision: null, blocked: true, input_updated: false, message: "no secrets in prompts", error: null, run: { ...guard, command: "./p.sh", source: "user" } });
    const model = foldEvents(s.events);
    const rows = model.transcript.filter((i) => i.kind === "hook");
    expect(rows.map((r) => (r.kind === "hook" ? r.hook.hookEvent : ""))).toEqual(["SessionStart", "UserPromptSubmit"]);
    const blocked = rows[1];
    if (blocked?.kind !== "hook") throw new Error("no hook row");
    render(<SessionHookRow hook={blocked.hook} />);
    const row = screen.getByTestId("session-hook");
    expect(row.dataset.hookEvent).toBe("UserPromptSubmit");
    expect(row.dataset.blocked).toBe("true");
    expect(row.textContent).toContain("./p.sh");
    expect(row.textContent).toContain("exit 2, 12 ms");
    expect(row.textContent).toContain("no secrets in prompts");
    cleanup();

    render(<SessionHooks hooks={model.hooksLoaded} />);
    expect(screen.getByTestId("session-hooks-summary").textContent).toBe("2 hooks run, 1 listed but not run, 1 problem");
    expect(screen.getByTestId("session-hook-not-run").dataset.reason).toBe("untrusted");
    expect(screen.getByTestId("session-hook-problem").textContent).toBe("/p/.claude/settings.json:7:5: bad hook");
  });

  it("shows nothing about hooks in a session that has none", () => {
    const model = foldEvents(new Script().prompt("hi").events);
    render(<SessionHooks hooks={model.hooksLoaded} />);
    expect(screen.queryByTestId("session-hooks")).toBeNull();
  });
});
