import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { Event, SessionHandle } from "../generated/protocol";
import { Script, testHandle } from "./fixtures/build";
import { BYPASS_DISABLED_REASON } from "./ModeMenu";
import { foldEvents } from "./model";
import { SessionScreen, type SessionScreenProps } from "./SessionScreen";
import { installTranscriptLayout } from "./testLayout";

installTranscriptLayout(600);
afterEach(cleanup);

const handle = (over: Partial<SessionHandle> = {}) => testHandle({ session_id: "ses_t", bypass_disabled: false, ...over });

function setup(events: Event[], over: Partial<SessionScreenProps> = {}) {
  const props: SessionScreenProps = {
    handle: handle(),
    events,
    running: false,
    onPrompt: vi.fn(),
    onInterrupt: vi.fn(),
    onModeChange: vi.fn(),
    onAnswer: vi.fn(),
    onStopTask: vi.fn(),
    onOpenTaskOutput: vi.fn(),
    ...over,
  };
  render(<SessionScreen {...props} />);
  return props;
}

/** A session with one background task started by a Bash call. */
function withTask() {
  return new Script("ses_t")
    .request(1)
    .queue("b1", "Bash", { command: "./build.sh", run_in_background: true })
    .allow("b1")
    .add({
      type: "task_started",
      task_id: "bash_1",
      kind: "process",
      tool_use_id: "b1",
      command: "./build.sh",
      description: "build",
      output_path: "/data/sessions/ses_t/tasks/bash_1.log",
    })
    .complete("b1", "started");
}

function task(id: string) {
  const row = screen.getAllByTestId("task").find((t) => t.getAttribute("data-task-id") === id);
  if (!row) throw new Error(`no task ${id}`);
  return row;
}

describe("background tasks panel", () => {
  it("shows live output with colours, stops a running task and opens its output file", () => {
    const events = withTask()
      .add({ type: "task_output", task_id: "bash_1", text: "compiling\n\u001b[32mok\u001b[0m\n", skipped_bytes: 0, total_bytes: 22 })
      .done().events;
    const props = setup(events);
    const row = task("bash_1");
    expect(row.getAttribute("data-status")).toBe("running");
    const out = within(row).getByTestId("task-output");
    expect(out.textContent).toBe("compilingok");
    // The colour is a class, the text escaped.
    expect(out.querySelector(".ansi-green-fg")?.textContent).toBe("ok");
    expect(within(row).queryByTestId("task-exit")).toBeNull();
    fireEvent.click(within(row).getByTestId("task-stop"));
    expect(props.onStopTask).toHaveBeenCalledWith("bash_1");
    // Pressed once: it says so until the end arrives.
    expect((within(row).getByTestId("task-stop") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(row).getByTestId("task-open-output"));
    expect(props.onOpenTaskOutput).toHaveBeenCalledWith("bash_1");
  });

  it("counts output the backend left out as earlier output", () => {
    const events = withTask()
      .add({ type: "task_output", task_id: "bash_1", text: "last line\n", skipped_bytes: 5000, total_bytes: 5010 })
      .done().events;
    setup(events);
    const row = task("bash_1");
    expect(within(row).getByTestId("earlier-output").textContent).toContain("earlier output");
    expect(within(row).getByTestId("task-output").textContent).toBe("last line");
  });

  it("rebuilds a task that ended while the window was closed from the stored events, with its exit status", () => {
    const stored = withTask()
      .add({ type: "task_output", task_id: "bash_1", text: "boom\n", skipped_bytes: 0, total_bytes: 5 })
      .add({
        type: "task_completed",
        task_id: "bash_1",
        kind: "process",
        status: "failed",
        exit_code: 3,
        output_path: "/data/sessions/ses_t/tasks/bash_1.log",
        message: "exited with code 3",
      })
      .done().events;
    // Resumed: the stored events come in the handle, before any live one.
    setup(stored, { handle: handle({ events: stored }) });
    const row = task("bash_1");
    expect(row.getAttribute("data-status")).toBe("failed");
    expect(within(row).getByTestId("task-exit").textContent).toBe("exit 3 · exited with code 3");
    expect(within(row).getByTestId("task-output").textContent).toBe("boom");
    expect(within(row).queryByTestId("task-stop")).toBeNull();
    expect(within(row).getByTestId("task-open-output")).toBeTruthy();
  });

  it("keeps a task's output bounded in the model", () => {
    const script = withTask();
    for (let i = 0; i < 40; i++) script.add({ type: "task_output", task_id: "bash_1", text: `${"x".repeat(4000)}\n`, skipped_bytes: 0, total_bytes: (i + 1) * 4001 });
    const model = foldEvents(script.done().events);
    const output = model.tasks.get("bash_1")?.output;
    expect(output?.totalBytes).toBe(40 * 4001);
    expect(output?.keptChars).toBeLessThanOrEqual(64 * 1024);
    expect((output?.keptChars ?? 0) + (output?.earlierBytes ?? 0)).toBe(40 * 4001);
  });
});

describe("mode menu", () => {
  it("reaches every mode; bypassPermissions only after a confirmation that says what it does", () => {
    const props = setup([]);
    fireEvent.click(screen.getByTestId("mode-menu-toggle"));
    const options = screen.getAllByTestId("mode-option");
    expect(options.map((o) => o.getAttribute("data-mode"))).toEqual(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]);
    expect(options.find((o) => o.getAttribute("data-mode") === "default")?.getAttribute("aria-checked")).toBe("true");
    fireEvent.click(options.find((o) => o.getAttribute("data-mode") === "dontAsk") as HTMLElement);
    expect(props.onModeChange).toHaveBeenLastCalledWith("dontAsk");
    expect(screen.getByTestId("mode-indicator").getAttribute("data-mode")).toBe("dontAsk");
    expect(screen.queryByTestId("mode-menu")).toBeNull();

    fireEvent.click(screen.getByTestId("mode-menu-toggle"));
    fireEvent.click(screen.getAllByTestId("mode-option").find((o) => o.getAttribute("data-mode") === "bypassPermissions") as HTMLElement);
    const confirm = screen.getByTestId("bypass-confirm");
    expect(confirm.textContent).toContain("every tool without asking");
    expect(props.onModeChange).toHaveBeenCalledTimes(1);
    // Cancel (focused first) changes nothing.
    expect(document.activeElement).toBe(screen.getByTestId("bypass-confirm-cancel"));
    fireEvent.click(screen.getByTestId("bypass-confirm-cancel"));
    expect(props.onModeChange).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByTestId("mode-menu-toggle"));
    fireEvent.click(screen.getAllByTestId("mode-option").find((o) => o.getAttribute("data-mode") === "bypassPermissions") as HTMLElement);
    fireEvent.click(screen.getByTestId("bypass-confirm-yes"));
    expect(props.onModeChange).toHaveBeenLastCalledWith("bypassPermissions");
    expect(screen.getByTestId("mode-indicator").getAttribute("data-mode")).toBe("bypassPermissions");
  });

  it("disables bypassPermissions with the reason when policy disables it", () => {
    const props = setup([], { handle: handle({ bypass_disabled: true }) });
    fireEvent.click(screen.getByTestId("mode-menu-toggle"));
    const bypass = screen.getAllByTestId("mode-option").find((o) => o.getAttribute("data-mode") === "bypassPermissions") as HTMLButtonElement;
    expect(bypass.disabled).toBe(true);
    expect(screen.getByTestId("mode-bypass-disabled").textContent).toBe(BYPASS_DISABLED_REASON);
    fireEvent.click(bypass);
    expect(screen.queryByTestId("bypass-confirm")).toBeNull();
    expect(props.onModeChange).not.toHaveBeenCalled();
  });

  it("still cycles with a click on the indicator", () => {
    const props = setup([]);
    fireEvent.click(screen.getByTestId("mode-indicator"));
    expect(props.onModeChange).toHaveBeenLastCalledWith("acceptEdits");
  });
});
