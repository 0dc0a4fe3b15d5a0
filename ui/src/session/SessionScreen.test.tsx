import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { Event, PermissionMode } from "../generated/protocol";
import demoJsonl from "./fixtures/demo.jsonl?raw";
import { Script, bigSession, parseJsonLines, testHandle } from "./fixtures/build";
import { SessionScreen, nextMode, providerLine, type SessionScreenProps } from "./SessionScreen";
import { installTranscriptLayout } from "./testLayout";

const VIEWPORT = 600;
installTranscriptLayout(VIEWPORT);
afterEach(cleanup);

const handle = testHandle;

function setup(events: Event[], over: Partial<SessionScreenProps> = {}) {
  const props: SessionScreenProps = {
    handle: handle(),
    events,
    running: false,
    onPrompt: vi.fn(),
    onInterrupt: vi.fn(),
    onModeChange: vi.fn(),
    onAnswer: vi.fn(),
    ...over,
  };
  const utils = render(<SessionScreen {...props} />);
  const update = (more: Partial<SessionScreenProps>) => {
    Object.assign(props, more);
    utils.rerender(<SessionScreen {...props} />);
  };
  return { ...utils, props, update };
}

describe("SessionScreen", () => {
  it("shows an empty state, the prompt box and the mode before any event", () => {
    setup([]);
    expect(screen.getByTestId("session-screen")).toBeTruthy();
    expect(screen.getByText("No messages yet.")).toBeTruthy();
    expect(screen.getByTestId("mode-indicator").getAttribute("data-mode")).toBe("default");
    expect((screen.getByTestId("interrupt-button") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("session-rules").textContent).toContain("None yet");
  });

  it("renders the captured demo: texts, a collapsed group that expands, the diff and Bash output", () => {
    setup(parseJsonLines(demoJsonl));
    expect(screen.getAllByTestId("assistant-text")).toHaveLength(5);
    const groups = screen.getAllByTestId("tool-group");
    expect(groups).toHaveLength(2);
    expect(within(must(groups[0])).queryAllByTestId("tool-call")).toHaveLength(0);
    expect(within(must(groups[0])).getByTestId("tool-group-summary").textContent).toBe("Read 1 file, listed 1 glob");
    fireEvent.click(within(must(groups[0])).getByTestId("tool-group-toggle"));
    const inGroup = within(must(screen.getAllByTestId("tool-group")[0])).getAllByTestId("tool-call");
    expect(inGroup.map((e) => e.getAttribute("data-tool-name"))).toEqual(["Glob", "Read"]);
    const edit = screen.getAllByTestId("tool-call").find((e) => e.getAttribute("data-tool-name") === "Edit");
    expect(edit && within(edit).getByTestId("diff")).toBeTruthy();
    expect(screen.getByTestId("bash-output").textContent).toBe("Hello, Ada!");
    expect(screen.getAllByTestId("batch-timeline")).toHaveLength(4);
    expect(screen.getAllByTestId("timeline-bar").length).toBeGreaterThanOrEqual(4);
    expect(screen.getByTestId("exchange-end").getAttribute("data-status")).toBe("completed");
  });

  it("sends the prompt on Enter, not on Shift+Enter, and clears it", () => {
    const { props } = setup([]);
    const input = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
    fireEvent.change(input, { target: { value: "fix the bug" } });
    fireEvent.keyDown(input, { key: "Enter", shiftKey: true });
    expect(props.onPrompt).not.toHaveBeenCalled();
    fireEvent.keyDown(input, { key: "Enter" });
    expect(props.onPrompt).toHaveBeenCalledWith("fix the bug");
    expect(input.value).toBe("");
    fireEvent.change(input, { target: { value: "again" } });
    fireEvent.click(screen.getByTestId("prompt-send"));
    expect(props.onPrompt).toHaveBeenLastCalledWith("again");
  });

  it("interrupts with the button and with Esc while running, not when idle", () => {
    const { props, update } = setup([], { running: true });
    fireEvent.click(screen.getByTestId("interrupt-button"));
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(props.onInterrupt).toHaveBeenCalledTimes(2);
    update({ running: false });
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(props.onInterrupt).toHaveBeenCalledTimes(2);
  });

  it("cycles the mode with Shift+Tab (default → acceptEdits → plan → default), confirmed by mode_changed", () => {
    expect(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"].map((m) => nextMode(m as PermissionMode))).toEqual([
      "acceptEdits",
      "plan",
      "default",
      "default",
      "default",
    ]);
    const s = new Script();
    const { props, update } = setup([]);
    const indicator = () => screen.getByTestId("mode-indicator").getAttribute("data-mode");
    const input = screen.getByTestId("prompt-input");
    fireEvent.keyDown(input, { key: "Tab", shiftKey: true });
    expect(props.onModeChange).toHaveBeenLastCalledWith("acceptEdits");
    expect(indicator()).toBe("acceptEdits");
    update({ events: s.add({ type: "mode_changed", mode: "acceptEdits" }).events.slice() });
    expect(indicator()).toBe("acceptEdits");
    fireEvent.keyDown(input, { key: "Tab", shiftKey: true });
    expect(props.onModeChange).toHaveBeenLastCalledWith("plan");
    // The backend may settle on another mode (e.g. a policy): it wins.
    update({ events: s.add({ type: "mode_changed", mode: "default" }).events.slice() });
    expect(indicator()).toBe("default");
  });

  it("takes Shift+Tab by its physical key when the keymap has no keysym for it", () => {
    // What WebKitGTK reports for a real Shift+Tab under Xvfb's keymap
    // (found by the end-to-end test's real X key chord).
    const { props } = setup([]);
    fireEvent.keyDown(screen.getByTestId("prompt-input"), { key: "Unidentified", code: "Tab", shiftKey: true });
    expect(props.onModeChange).toHaveBeenLastCalledWith("acceptEdits");
  });

  it("names the provider once and leaves the project path to the view's header", () => {
    setup(new Script().add({ type: "session_started", provider: "replay", model: "replay", project: "/tmp/uikit-proj", resumed: false }).events);
    expect(screen.getByTestId("session-provider").textContent).toBe("replay");
    expect(screen.getByTestId("session-screen").textContent).not.toContain("/tmp/uikit-proj");
    expect(providerLine("anthropic", "claude-sonnet-4-5")).toBe("anthropic · claude-sonnet-4-5");
  });

  it("leaves Shift+Tab its usual meaning outside the prompt box, and names the mode in words", () => {
    const { props } = setup([]);
    fireEvent.keyDown(document.body, { key: "Tab", shiftKey: true });
    fireEvent.keyDown(screen.getByTestId("interrupt-button"), { key: "Tab", shiftKey: true });
    expect(props.onModeChange).not.toHaveBeenCalled();
    expect(screen.getByTestId("mode-indicator").textContent).toBe("Ask before edits Shift+Tab");
  });

  it("takes the handle's mode over older mode changes in a resumed history", () => {
    const history = new Script().add({ type: "mode_changed", mode: "plan" }).events;
    setup(history, { handle: handle({ mode: "acceptEdits", events: history }) });
    expect(screen.getByTestId("mode-indicator").getAttribute("data-mode")).toBe("acceptEdits");
  });

  it("opens the permission modal for a request, sends the answer, hides it, and lists new session rules", () => {
    const s = new Script().prompt("run tests").request(1).queue("b", "Bash", { command: "npm test" }).start("b", 0, false);
    s.ask("b", "Bash", { command: "npm test" }, ["Bash(npm test)"]);
    const { props, update } = setup(s.events.slice(), { running: true, handle: handle({ session_rules: ["Read(//etc/**)"] }) });
    expect(screen.getByTestId("permission-modal")).toBeTruthy();
    expect(screen.getByTestId("tool-call").getAttribute("data-status")).toBe("waiting_permission");
    // Nothing typed while the prompt is open lands in the prompt box.
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).disabled).toBe(true);
    // Shift+Tab inside the modal does not change the mode.
    fireEvent.keyDown(screen.getByTestId("permission-modal"), { key: "Tab", shiftKey: true });
    expect(props.onModeChange).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("permission-allow-session"));
    expect(props.onAnswer).toHaveBeenCalledWith("b", { kind: "allow_for_session" });
    expect(screen.queryByTestId("permission-modal")).toBeNull();
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).disabled).toBe(false);
    s.answer("b", { kind: "allow_for_session" }).add({ type: "session_rules_added", rules: ["Bash(npm test)"] });
    s.progress("b", { kind: "output", text: "ok\n", skipped_bytes: 0, total_bytes: 3, stream: null });
    update({ events: s.events.slice() });
    expect(screen.getByTestId("tool-call").getAttribute("data-status")).toBe("running");
    expect(screen.getByTestId("bash-output").textContent).toBe("ok");
    expect(screen.getAllByTestId("session-rule").map((r) => r.textContent)).toEqual(["Read(//etc/**)", "Bash(npm test)"]);
  });

  it("updates a running call in place as events arrive (same element)", () => {
    const s = new Script().prompt("x").request(1).queue("b", "Bash", { command: "make" });
    const { update } = setup(s.events.slice(), { running: true });
    const el = screen.getByTestId("tool-call");
    expect(el.getAttribute("data-status")).toBe("queued");
    update({ events: s.start("b", 0, false).allow("b").events.slice() });
    expect(el.getAttribute("data-status")).toBe("running");
    expect(el.querySelector(".spinner")).toBeTruthy();
    update({ events: s.complete("b", "built").events.slice() });
    expect(screen.getByTestId("tool-call")).toBe(el);
    expect(el.getAttribute("data-status")).toBe("completed");
  });

  it("shows session errors and background tasks", () => {
    const s = new Script().prompt("x").request(1).queue("b", "Bash", { command: "npm run dev", run_in_background: true }).start("b");
    s.add({ type: "task_started", task_id: "bash_1", tool_use_id: "b", command: "npm run dev", description: "dev server", output_path: "/d/1.log" });
    s.complete("b", "Command running in the background with task id bash_1.");
    s.add({ type: "session_error", kind: "overloaded", message: "try later", recoverable: true });
    setup(s.events);
    expect(screen.getByTestId("session-error").textContent).toContain("try later");
    expect(within(screen.getByTestId("task-panel")).getByTestId("task").getAttribute("data-status")).toBe("running");
  });
});

describe("virtualised transcript", () => {
  it("opens 10,000 tool calls with only a screenful in the DOM, the newest rendered", () => {
    const events = bigSession(10_000);
    setup(events);
    const rendered = screen.getAllByTestId("tool-call");
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(40);
    const ids = rendered.map((e) => e.getAttribute("data-tool-use-id"));
    expect(ids).toContain("call_9999");
    expect(screen.getByTestId("transcript").getAttribute("data-following")).toBe("true");
  });

  it("renders older calls after scrolling up, and keeps following new ones at the bottom", () => {
    const events = bigSession(200);
    // Opened empty, as a new session is: the scroller appears with the first rows.
    const { update } = setup([]);
    update({ events });
    const scroller = screen.getByTestId("transcript");
    act(() => {
      scroller.scrollTop = 0;
      fireEvent.scroll(scroller);
    });
    const ids = screen.getAllByTestId("tool-call").map((e) => e.getAttribute("data-tool-use-id"));
    expect(ids).toContain("call_0");
    expect(ids).not.toContain("call_199");
    expect(scroller.getAttribute("data-following")).toBe("false");
    fireEvent.click(screen.getByTestId("jump-latest"));
    const s = new Script("ses_test", 2_000_000_000_000).queue("new_call", "Bash", { command: "echo new" });
    update({ events: [...events, ...s.events] });
    expect(screen.getAllByTestId("tool-call").map((e) => e.getAttribute("data-tool-use-id"))).toContain("new_call");
  });
});

function must<T>(v: T | undefined): T {
  if (v === undefined) throw new Error("missing");
  return v;
}
