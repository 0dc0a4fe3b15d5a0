import { describe, expect, it } from "vitest";

import { foldTree, listSubagents, subagentTask, treePendingRequests } from "./agents";
import { Script, SUBAGENT_ID, subagentSession } from "./fixtures/build";
import { pendingRequests } from "./model";
import { ModelStore } from "./store";

describe("a session with sub-agents", () => {
  it("folds each sub-agent's events into its own model, linked from its Agent call", () => {
    const tree = foldTree(subagentSession(), "ses_test");
    // The parent has only its own call; the sub-agent's calls are its own.
    expect([...tree.root.calls.keys()]).toEqual(["ag1"]);
    const child = tree.children.get(SUBAGENT_ID);
    expect(child && [...child.calls.keys()]).toEqual(["r1", "w1"]);
    expect(tree.byCall.get("ag1")).toBe(SUBAGENT_ID);
    expect(child?.transcript.map((i) => i.kind)).toEqual(["user", "assistant", "timeline", "tool", "timeline", "tool"]);
    // Live progress: the tool it calls now, its calls and tokens so far.
    const agent = tree.agents.get(SUBAGENT_ID);
    expect(agent).toMatchObject({
      toolUseId: "ag1",
      parentSessionId: "ses_test",
      subagentType: "general-purpose",
      description: "write notes",
      phase: "running",
      currentTool: "Write",
      toolCalls: 2,
      outputTokens: 40,
      status: null,
      endedMs: null,
    });
  });

  it("routes the parent's permission prompt to the sub-agent's call and names the agent", () => {
    const tree = foldTree(subagentSession(), "ses_test");
    expect(pendingRequests(tree.root)).toEqual([]);
    const pending = treePendingRequests(tree);
    expect(pending.map((r) => [r.toolUseId, r.toolName, r.agent?.subagent_type, r.agent?.description])).toEqual([
      ["w1", "Write", "general-purpose", "write notes"],
    ]);
    expect(tree.children.get(SUBAGENT_ID)?.calls.get("w1")?.status).toBe("waiting_permission");
  });

  it("names the agent from the tree when the prompt event carries no agent (older builds)", () => {
    const events = subagentSession().map((e) => {
      if (e.type !== "permission_requested") return e;
      const copy = { ...e };
      delete copy.agent;
      return copy;
    });
    const pending = treePendingRequests(foldTree(events, "ses_test"));
    expect(pending[0]?.agent).toEqual({
      agent_session_id: SUBAGENT_ID,
      tool_use_id: "ag1",
      subagent_type: "general-purpose",
      description: "write notes",
    });
  });

  it("closes the prompt on its answer and ends the agent with its session", () => {
    const tree = foldTree(subagentSession(true), "ses_test");
    expect(treePendingRequests(tree)).toEqual([]);
    const child = tree.children.get(SUBAGENT_ID);
    expect(child?.calls.get("w1")?.status).toBe("completed");
    const agent = tree.agents.get(SUBAGENT_ID);
    expect(agent?.status).toBe("completed");
    expect(agent?.endedMs).not.toBeNull();
    expect(tree.root.calls.get("ag1")?.status).toBe("completed");
    // The sub-agent's end is not the parent's.
    expect(tree.root.transcript.filter((i) => i.kind === "end")).toHaveLength(1);
  });

  it("lists running agents first and links a background agent to its task", () => {
    const s = new Script();
    s.prompt("go").request(1);
    s.queue("bg", "Agent", { description: "watch", prompt: "p", run_in_background: true }).start("bg").allow("bg");
    s.subagent("bg", "ses_test-agent-bg", "started");
    s.add({ type: "task_started", task_id: "t7", tool_use_id: "bg", command: "agent", description: "watch", output_path: "/tmp/o" });
    s.queue("fg", "Agent", { description: "look", prompt: "p", subagent_type: "Explore" }).start("fg").allow("fg");
    s.subagent("fg", "ses_test-agent-fg", "started", { subagent_type: "Explore" });
    s.within("ses_test-agent-fg", (c) => c.prompt("p").done("completed", 1));
    const tree = foldTree(s.events);
    const rows = listSubagents(tree);
    expect(rows.map((a) => [a.sessionId, a.status, a.background])).toEqual([
      ["ses_test-agent-bg", null, true],
      ["ses_test-agent-fg", "completed", false],
    ]);
    expect(rows.map((a) => subagentTask(tree, a))).toEqual(["t7", null]);
  });

  it("keeps a grandchild under the sub-agent that started it", () => {
    const s = new Script();
    s.prompt("go").request(1).queue("a1", "Agent", { description: "outer", prompt: "p" }).start("a1");
    s.subagent("a1", "ses_test-agent-a1", "started");
    s.within("ses_test-agent-a1", (c) => {
      c.prompt("p").request(1).queue("a2", "Agent", { description: "inner", prompt: "q" }).start("a2");
      c.subagent("a2", "ses_test-agent-a1-agent-a2", "started");
    });
    s.within("ses_test-agent-a1-agent-a2", (c) => c.prompt("q").request(1).queue("x", "Read", { file_path: "/p/x" }));
    const tree = foldTree(s.events);
    expect(tree.agents.get("ses_test-agent-a1-agent-a2")?.parentSessionId).toBe("ses_test-agent-a1");
    expect([...(tree.children.get("ses_test-agent-a1-agent-a2")?.calls.keys() ?? [])]).toEqual(["x"]);
    expect(tree.root.calls.has("x")).toBe(false);
  });

  it("the store applies only new events and counts the sub-agents' in its tree version", () => {
    const events = subagentSession(true);
    const store = new ModelStore("ses_test");
    const half = events.slice(0, 20);
    store.sync(half);
    const v = store.tree.version;
    const root = store.sync(events);
    expect(store.tree.version).toBe(v + events.length - 20);
    expect(root).toBe(store.tree.root);
    expect(root.version).toBeLessThan(store.tree.version);
  });
});
