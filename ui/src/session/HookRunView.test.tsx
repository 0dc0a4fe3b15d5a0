import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import type { HookRun } from "../generated/protocol";
import { Script, must } from "./fixtures/build";
import { foldEvents } from "./model";
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
