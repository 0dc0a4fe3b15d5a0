import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { Event, SessionHandle } from "../generated/protocol";
import { Script, SUBAGENT_ID, subagentSession } from "./fixtures/build";
import { SubagentsPanel } from "./renderers/SubagentsPanel";
import { SessionScreen, type SessionScreenProps } from "./SessionScreen";
import { installTranscriptLayout } from "./testLayout";
import { foldTree, listSubagents } from "./agents";

installTranscriptLayout(600);
afterEach(cleanup);

const handle: SessionHandle = {
  session_id: "ses_test",
  project_path: "/p",
  mode: "default",
  events: [],
  earlier_events: 0,
  session_rules: [],
  rule_files: [{ source: "local", path: "/p/.claude/settings.local.json" }],
};

function setup(events: Event[], over: Partial<SessionScreenProps> = {}) {
  const props: SessionScreenProps = {
    handle,
    events,
    running: true,
    onPrompt: vi.fn(),
    onInterrupt: vi.fn(),
    onModeChange: vi.fn(),
    onAnswer: vi.fn(),
    onStopTask: vi.fn(),
    ...over,
  };
  const utils = render(<SessionScreen {...props} />);
  return { ...utils, props, update: (next: Event[]) => utils.rerender(<SessionScreen {...props} events={next} />) };
}

function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error("missing");
  return value;
}

describe("sub-agents in the session screen", () => {
  it("shows the Agent call with live progress and a collapsed nested transcript that expands", () => {
    setup(subagentSession());
    const agentCall = screen.getByTestId("agent-call");
    expect(agentCall.getAttribute("data-agent-session-id")).toBe(SUBAGENT_ID);
    expect(agentCall.getAttribute("data-agent-status")).toBe("running");
    const progress = within(agentCall).getByTestId("agent-progress");
    expect(progress.textContent).toContain("running Write");
    expect(within(progress).getByTestId("agent-calls").getAttribute("data-count")).toBe("2");
    expect(progress.textContent).toContain("40 tokens out");
    // Collapsed: the sub-agent's calls are not in the parent's transcript.
    expect(screen.queryByTestId("agent-transcript")).toBeNull();
    expect(screen.getAllByTestId("tool-call").map((c) => c.getAttribute("data-tool-use-id"))).toEqual(["ag1"]);
    const toggle = within(agentCall).getByTestId("agent-transcript-toggle");
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    const nested = within(agentCall).getByTestId("agent-transcript");
    const calls = within(nested).getAllByTestId("tool-call");
    expect(calls.map((c) => [c.getAttribute("data-tool-name"), c.getAttribute("data-status")])).toEqual([
      ["Read", "completed"],
      ["Write", "waiting_permission"],
    ]);
    expect(within(nested).getByTestId("assistant-text").textContent).toContain("Reading first.");
  });

  it("the nested transcript follows the sub-agent's new events while open", () => {
    const all = subagentSession(true);
    const cut = subagentSession().length;
    const { update } = setup(all.slice(0, cut));
    fireEvent.click(screen.getByTestId("agent-transcript-toggle"));
    update(all);
    const nested = screen.getByTestId("agent-transcript");
    expect(within(nested).getAllByTestId("tool-call").map((c) => c.getAttribute("data-status"))).toEqual(["completed", "completed"]);
    expect(within(nested).getAllByTestId("assistant-text").map((t) => t.textContent)).toContain("Wrote notes.txt.");
    expect(screen.getByTestId("agent-call").getAttribute("data-agent-status")).toBe("completed");
  });

  it("asks in the modal naming the sub-agent, and the answer goes to its call", () => {
    const { props } = setup(subagentSession());
    const modal = screen.getByTestId("permission-modal");
    expect(modal.getAttribute("data-tool-use-id")).toBe("w1");
    const agent = within(modal).getByTestId("permission-agent");
    expect(agent.getAttribute("data-subagent-type")).toBe("general-purpose");
    expect(agent.textContent).toContain("write notes");
    fireEvent.click(within(modal).getByTestId("permission-allow-once"));
    expect(props.onAnswer).toHaveBeenCalledWith("w1", { kind: "allow_once" });
  });

  it("lists the session's agents in the sub-agents panel", () => {
    setup(subagentSession(true), { running: false });
    const panel = screen.getByTestId("subagents-panel");
    const rows = within(panel).getAllByTestId("subagent");
    expect(rows.map((r) => [r.getAttribute("data-session-id"), r.getAttribute("data-status"), r.getAttribute("data-subagent-type")])).toEqual([
      [SUBAGENT_ID, "completed", "general-purpose"],
    ]);
    expect(within(must(rows[0])).getByTestId("subagent-calls").textContent).toBe("2 calls");
    expect(within(panel).queryByTestId("subagent-stop")).toBeNull();
  });
});

describe("SubagentsPanel", () => {
  it("offers Stop for a running background agent only, with its task id", () => {
    const s = new Script();
    s.prompt("go").request(1);
    s.queue("bg", "Agent", { description: "watch the logs", prompt: "p", run_in_background: true }).start("bg");
    s.subagent("bg", "ses_test-agent-bg", "running", { current_tool: "Bash", tool_calls: 3 });
    s.queue("fg", "Agent", { description: "look", prompt: "p" }).start("fg");
    s.subagent("fg", "ses_test-agent-fg", "started");
    const tree = foldTree(s.events);
    const onStop = vi.fn();
    const rows = listSubagents(tree).map((agent) => ({ agent, taskId: agent.background ? "t1" : null }));
    render(<SubagentsPanel rows={rows} onStop={onStop} />);
    const stops = screen.getAllByTestId("subagent-stop");
    expect(stops).toHaveLength(1);
    fireEvent.click(must(stops[0]));
    expect(onStop).toHaveBeenCalledWith("t1");
    expect(screen.getAllByTestId("subagent")[0]?.textContent).toContain("watch the logs");
  });

  it("says so when there are none", () => {
    render(<SubagentsPanel rows={[]} />);
    expect(screen.getByTestId("subagents-panel").textContent).toContain("None yet");
  });
});
