import { describe, expect, it } from "vitest";

import demoJsonl from "./fixtures/demo.jsonl?raw";
import richJsonl from "./fixtures/rich.jsonl?raw";
import { Script, bigSession, must, parseJsonLines, sampleDiff } from "./fixtures/build";
import {
  KEPT_OUTPUT_CHARS,
  appendOutput,
  applyEvent,
  emptyModel,
  foldEvents,
  groupSummary,
  isGroupable,
  mcpParts,
  outputText,
  pendingRequests,
  toolKind,
  type TranscriptItem,
} from "./model";

const kinds = (items: TranscriptItem[]) => items.map((i) => i.kind);

describe("captured demo session", () => {
  const model = foldEvents(parseJsonLines(demoJsonl));

  it("has the prompt, five assistant texts joined from deltas, and an end", () => {
    const user = model.transcript.filter((i) => i.kind === "user");
    expect(user).toHaveLength(1);
    const texts = model.transcript.flatMap((i) => (i.kind === "assistant" ? [i.text] : []));
    expect(texts).toHaveLength(5);
    expect(texts[0]).toBe("I'll start by looking at the project layout and the README.");
    expect(texts[4]).toBe('The greeting now reads "Hello, Ada!" and the TODO is gone. Done.');
    expect(model.transcript.every((i) => i.kind !== "assistant" || !i.streaming)).toBe(true);
    expect(model.transcript.at(-1)).toMatchObject({ kind: "end", status: "completed", turns: 5 });
    expect(model.active).toBe(false);
  });

  it("groups Glob+Read of turn 1 and Grep+Read of turn 2, leaves Edit and Bash alone", () => {
    const groups = model.transcript.filter((i) => i.kind === "group");
    expect(groups).toHaveLength(2);
    expect(groups[0]).toMatchObject({ callIds: ["toolu_replay_1_2", "toolu_replay_1_3"] });
    const calls = groups.map((g) => (g.kind === "group" ? g.callIds.map((id) => must(model.calls.get(id))) : []));
    expect(groupSummary(must(calls[0]))).toBe("Read 1 file, listed 1 glob");
    expect(groupSummary(must(calls[1]))).toBe("Read 1 file, searched 1 pattern");
    const tools = model.transcript.flatMap((i) => (i.kind === "tool" ? [must(model.calls.get(i.callId)).name] : []));
    expect(tools).toEqual(["Edit", "Bash"]);
  });

  it("records the Edit's diff and the Bash output, all calls completed", () => {
    const edit = must(model.calls.get("toolu_replay_3_2"));
    expect(edit.diff?.additions).toBe(1);
    expect(edit.diff?.deletions).toBe(2);
    const bash = must(model.calls.get("toolu_replay_4_2"));
    expect(outputText(bash.output)).toBe("Hello, Ada!\n");
    expect(bash.bash?.description).toBe("Run greet()");
    expect([...model.calls.values()].map((c) => c.status)).toEqual(Array(6).fill("completed"));
    expect(bash.decision?.reason).toEqual({ kind: "user_answer", answer: "allow once" });
  });

  it("puts one timeline per turn with tool calls, before the calls", () => {
    const timelines = model.transcript.filter((i) => i.kind === "timeline");
    expect(timelines).toHaveLength(4);
    const first = model.transcript.findIndex((i) => i.kind === "timeline");
    expect(model.transcript[first + 1]?.kind).toBe("group");
    expect(model.turns.get(1)?.callIds).toEqual(["toolu_replay_1_2", "toolu_replay_1_3"]);
    expect(model.turns.get(5)?.stopReason).toBe("end_turn");
  });
});

describe("captured rich session", () => {
  const model = foldEvents(parseJsonLines(richJsonl));

  it("groups 3 reads, a grep and a glob into one line", () => {
    const group = model.transcript.find((i) => i.kind === "group");
    expect(group?.kind === "group" && group.callIds).toHaveLength(5);
    const calls = group?.kind === "group" ? group.callIds.map((id) => must(model.calls.get(id))) : [];
    expect(groupSummary(calls)).toBe("Read 3 files, searched 1 pattern, listed 1 glob");
  });

  it("marks the refused calls denied, with the user's answer as the reason", () => {
    const denied = [...model.calls.values()].filter((c) => c.status === "denied");
    expect(denied.map((c) => c.id)).toEqual(["toolu_replay_3_2", "toolu_replay_3_3"]);
    expect(denied[1]?.decision?.reason.kind).toBe("user_answer");
  });

  it("keeps ANSI colours in the Bash output and tracks the background task", () => {
    const bash = must(model.calls.get("toolu_replay_2_3"));
    expect(outputText(bash.output)).toBe("\u001b[32mline 1\u001b[0m\n\u001b[32mline 2\u001b[0m\n\u001b[32mline 3\u001b[0m\n");
    expect(bash.output?.totalBytes).toBe(48);
    expect(model.calls.get("toolu_replay_2_2")?.diff?.created).toBe(true);
    const task = model.tasks.get("bash_1");
    expect(task).toMatchObject({ status: "completed", exitCode: 0, toolUseId: "toolu_replay_4_2" });
    expect(model.calls.get("toolu_replay_4_2")?.taskId).toBe("bash_1");
  });
});

describe("statuses and timestamps", () => {
  it("moves queued → running → waiting_permission → running → completed with the wait recorded", () => {
    const s = new Script().prompt("go").request(1);
    const model = emptyModel();
    const step = () => {
      for (const e of s.events.splice(0)) applyEvent(model, e);
      return model.calls.get("t1");
    };
    step();
    s.queue("t1", "Bash", { command: "npm test" });
    expect(step()?.status).toBe("queued");
    s.start("t1", 0, false);
    const started = s.ts;
    expect(step()?.status).toBe("running");
    s.ask("t1", "Bash", { command: "npm test" }, ["Bash(npm test)"]);
    const asked = s.ts;
    expect(step()?.status).toBe("waiting_permission");
    expect(pendingRequests(model).map((r) => r.toolUseId)).toEqual(["t1"]);
    s.answer("t1", { kind: "allow_once" }, 500);
    expect(step()?.status).toBe("running");
    expect(model.pending).toEqual([]);
    s.complete("t1", "ok", "ok", 50);
    const call = must(step());
    expect(call.status).toBe("completed");
    expect(call.startedMs).toBe(started);
    expect(call.waits).toEqual([{ fromMs: asked, toMs: asked + 500 }]);
    expect(call.endedMs).toBe(s.ts);
  });

  it("marks a failed call error, a rejected one error with its stage", () => {
    const s = new Script().request(1);
    s.queue("a", "Bash", { command: "false" }).start("a").allow("a").complete("a", "Exit code 1", "error");
    s.queue("b", "Read", {}).add({ type: "tool_input_rejected", tool_use_id: "b", stage: "schema", message: "file_path is required" });
    s.complete("b", "file_path is required", "error");
    const model = foldEvents(s.events);
    expect(model.calls.get("a")?.status).toBe("error");
    expect(model.calls.get("b")).toMatchObject({ status: "error", rejection: { stage: "schema" } });
  });

  it("marks interrupted calls: by their status (with Bash's notice), and calls left open at the end", () => {
    const s = new Script().prompt("x").request(1);
    s.queue("bash", "Bash", { command: "sleep 100" }).start("bash", 0, false);
    s.queue("read", "Read", { file_path: "/a" }).queue("never", "Bash", { command: "ls" });
    s.start("read").progress("bash", { kind: "interrupted", message: "SIGTERM sent", output_path: null });
    s.complete("bash", "Interrupted by the user: the call was stopped.\n\npartial", "interrupted");
    s.complete("read", "Interrupted by the user: the call was stopped.", "interrupted");
    s.done("interrupted");
    const model = foldEvents(s.events);
    expect(model.calls.get("bash")).toMatchObject({ status: "interrupted", interruptMessage: "SIGTERM sent" });
    expect(model.calls.get("read")?.status).toBe("interrupted");
    expect(model.calls.get("never")).toMatchObject({ status: "interrupted", endedMs: s.ts });
  });

  it("denies with feedback and keeps asks queued in order", () => {
    const s = new Script().request(1);
    s.queue("e1", "Edit", { file_path: "/p/a" }).queue("e2", "Write", { file_path: "/p/b" }).queue("e3", "Bash", { command: "rm x" });
    s.start("e1", 0, false).ask("e1", "Edit", {}, [], sampleDiff());
    s.start("e2", 1, false).ask("e2", "Write", {});
    s.start("e3", 2, false).ask("e3", "Bash", {}, ["Bash(rm x)"]);
    let model = foldEvents(s.events);
    expect(pendingRequests(model).map((r) => r.toolUseId)).toEqual(["e1", "e2", "e3"]);
    expect(pendingRequests(model)[0]?.preview?.path).toBe("/p/src/greeter.py");
    s.answer("e2", { kind: "deny", feedback: "not that file" }).complete("e2", "The user denied permission", "denied");
    model = foldEvents(s.events);
    expect(pendingRequests(model).map((r) => r.toolUseId)).toEqual(["e1", "e3"]);
    expect(model.calls.get("e2")).toMatchObject({ status: "denied", answer: { kind: "deny", feedback: "not that file" } });
  });

  it("collects session rules (deduplicated), the latest mode, usage", () => {
    const s = new Script();
    s.add({ type: "session_rules_added", rules: ["Bash(npm test)"] });
    s.add({ type: "session_rules_added", rules: ["Bash(npm test)", "Read(//tmp/**)"] });
    s.add({ type: "mode_changed", mode: "acceptEdits" }).add({ type: "mode_changed", mode: "plan" });
    s.add({ type: "usage", turn: 1, input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 1, cache_read_input_tokens: 2 });
    s.add({ type: "usage", turn: 2, input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 1, cache_read_input_tokens: 2 });
    const model = foldEvents(s.events);
    expect(model.sessionRules).toEqual(["Bash(npm test)", "Read(//tmp/**)"]);
    expect(model.mode).toBe("plan");
    expect(model.modeEventIndex).toBe(3);
    expect(model.usage).toEqual({ input: 20, output: 10, cacheRead: 4, cacheWrite: 2 });
  });

  it("takes a call's final status from tool_completed's status, never from its text", () => {
    const s = new Script().request(1);
    // An error whose text starts with the runtime's old cancellation wording is an error.
    s.queue("a", "Read", { file_path: "/a" }).start("a").complete("a", "Cancelled: that is what the file says", "error");
    s.queue("b", "Read", { file_path: "/b" }).start("b").complete("b", "Interrupted by the user: quoted", "error");
    // Cancelled (a sibling failed) and timed out are their own statuses.
    s.queue("c", "Bash", { command: "ls" }).start("c").complete("c", "Cancelled: parallel tool call x (Bash) failed", "cancelled");
    s.queue("d", "Bash", { command: "sleep 9" }).start("d").complete("d", "Error: Command timed out after 100 ms", "timed_out");
    // A denial without any permission event in view is still a denial.
    s.queue("e", "Bash", { command: "rm x" }).start("e").complete("e", "no", "denied");
    // A Bash interrupt notice does not override a status that says otherwise.
    s.queue("f", "Bash", { command: "ls" }).start("f").progress("f", { kind: "interrupted", message: "SIGTERM", output_path: null });
    s.complete("f", "Cancelled: parallel tool call y (Bash) failed", "cancelled");
    const model = foldEvents(s.events);
    const status = (id: string) => model.calls.get(id)?.status;
    expect(["a", "b", "c", "d", "e", "f"].map(status)).toEqual(["error", "error", "cancelled", "timed_out", "denied", "cancelled"]);
    expect(model.calls.get("f")?.interruptMessage).toBe("SIGTERM");
  });

  it("reports a session error and ends open calls when it is not recoverable", () => {
    const s = new Script().prompt("x").request(1).queue("a", "Bash", { command: "ls" });
    s.add({ type: "session_error", kind: "network", message: "connection reset", recoverable: false });
    const model = foldEvents(s.events);
    expect(model.transcript.at(-1)).toMatchObject({ kind: "error", errorKind: "network", recoverable: false });
    expect(model.calls.get("a")?.status).toBe("interrupted");
  });

  it("replaces changed entities and keeps unchanged ones (for memoised rendering)", () => {
    const s = new Script().request(1).queue("a", "Bash", { command: "ls" }).queue("b", "Bash", { command: "pwd" });
    const model = foldEvents(s.events);
    const a = model.calls.get("a");
    const b = model.calls.get("b");
    applyEvent(model, { session_id: "s", ts_ms: 1, type: "tool_started", tool_use_id: "a", batch: 0, concurrent: false });
    expect(model.calls.get("a")).not.toBe(a);
    expect(model.calls.get("b")).toBe(b);
    expect(a?.status).toBe("queued");
  });
});

describe("grouping", () => {
  it("groups only consecutive reads of the same turn", () => {
    const s = new Script().request(1);
    s.queue("r1", "Read", { file_path: "/a" }).queue("r2", "Read", { file_path: "/b" });
    s.queue("b1", "Bash", { command: "ls" });
    s.queue("r3", "Read", { file_path: "/c" });
    s.request(2).queue("r4", "Read", { file_path: "/d" }).queue("g1", "Grep", { pattern: "x" });
    const model = foldEvents(s.events);
    expect(kinds(model.transcript)).toEqual(["timeline", "group", "tool", "tool", "timeline", "group"]);
  });

  it("breaks a group on assistant text between calls", () => {
    const s = new Script().request(1);
    s.queue("r1", "Read", { file_path: "/a" }).text(1, "and now", 1).queue("r2", "Read", { file_path: "/b" });
    expect(kinds(foldEvents(s.events).transcript)).toEqual(["timeline", "tool", "assistant", "tool"]);
  });

  it("treats MCP tools as reads only when tool_queued says read_only, whatever their name", () => {
    expect(isGroupable({ kind: toolKind("mcp__github__get_issue"), readOnly: false })).toBe(false);
    expect(isGroupable({ kind: toolKind("mcp__db__run_query"), readOnly: true })).toBe(true);
    expect(isGroupable({ kind: "bash", readOnly: true })).toBe(false);
    expect(isGroupable({ kind: "read", readOnly: false })).toBe(true);
    const s = new Script().request(1);
    s.queue("m1", "mcp__github__get_issue", {}).queue("m2", "mcp__github__list_prs", {});
    s.queue("m3", "mcp__db__run_query", {}, 10, true).queue("m4", "mcp__db__explain", {}, 10, true);
    expect(kinds(foldEvents(s.events).transcript)).toEqual(["timeline", "tool", "tool", "group"]);
    expect(mcpParts("mcp__my_server__do_it")).toEqual({ server: "my_server", tool: "do_it" });
    expect(mcpParts("Read")).toBeNull();
  });

  it("summarises with plurals in a fixed order", () => {
    const calls = [
      ...Array(5).fill({ name: "Read", kind: "read" }),
      ...Array(2).fill({ name: "Grep", kind: "search" }),
      { name: "Glob", kind: "list" as const },
      { name: "mcp__gh__get_pr", kind: "mcp" as const },
    ];
    expect(groupSummary(calls)).toBe("Read 5 files, searched 2 patterns, listed 1 glob, queried 1 MCP tool");
  });
});

describe("bounded output", () => {
  it("keeps at most KEPT_OUTPUT_CHARS of 100 MB streamed in 64 KB events and counts the rest", () => {
    const chunk = ("x".repeat(1023) + "\n").repeat(64); // 64 KiB
    const s = new Script().request(1).queue("b", "Bash", { command: "yes" }).start("b", 0, false);
    const model = foldEvents(s.events);
    const events = 1600; // 100 MiB
    for (let i = 1; i <= events; i++) {
      applyEvent(model, {
        session_id: "s",
        ts_ms: i,
        type: "tool_progress",
        tool_use_id: "b",
        data: { kind: "output", text: chunk, skipped_bytes: 0, total_bytes: i * chunk.length, stream: null },
      });
    }
    const out = must(must(model.calls.get("b")).output);
    expect(out.keptChars).toBeLessThanOrEqual(KEPT_OUTPUT_CHARS);
    expect(out.chunks.join("").length).toBe(out.keptChars);
    expect(out.totalBytes).toBe(events * chunk.length);
    expect(out.earlierBytes).toBe(out.totalBytes - out.keptChars);
    expect(out.chunks.length).toBeLessThanOrEqual(3);
  });

  it("counts bytes the backend skipped and trims at a line break", () => {
    let out = appendOutput(null, "a\nb\n", 10);
    expect(out.earlierBytes).toBe(6);
    out = appendOutput(out, "y".repeat(KEPT_OUTPUT_CHARS - 2) + "\n", null);
    expect(out.keptChars).toBeLessThanOrEqual(KEPT_OUTPUT_CHARS);
    // 3 characters too many: the cut goes to the end of the line "b", not mid-line.
    expect(out.chunks).toHaveLength(1);
    expect(out.chunks[0]?.startsWith("y")).toBe(true);
    expect(out.keptChars).toBe(KEPT_OUTPUT_CHARS - 1);
    expect(out.droppedLines).toBe(2);
    expect(out.earlierBytes).toBe(out.totalBytes - out.keptChars);
  });

  it("keeps a bounded list of non-output progress payloads", () => {
    const s = new Script().request(1).queue("m", "mcp__srv__long_job", {}).start("m");
    for (let i = 0; i < 200; i++) s.progress("m", { kind: "mcp_progress", progress: i, total: 200, message: null }, 1);
    const call = must(foldEvents(s.events).calls.get("m"));
    expect(call.progress).toHaveLength(50);
    expect(call.progress.at(-1)).toEqual({ kind: "mcp_progress", progress: 199, total: 200, message: null });
  });
});

describe("scale", () => {
  it("folds 10,000 calls into 10,000 call entries and 1,000 timelines", () => {
    const model = foldEvents(bigSession(10_000));
    expect(model.calls.size).toBe(10_000);
    expect(model.transcript.filter((i) => i.kind === "timeline")).toHaveLength(1000);
    expect([...model.calls.values()].every((c) => c.status === "completed")).toBe(true);
  });
});

describe("context the loop added", () => {
  it("is one row per text, with its source, in order", () => {
    const s = new Script()
      .add({ type: "user_prompt", text: "go" })
      .add({ type: "context_added", source: "task_notification", text: "<task-notification>\nBackground task bash_1 completed\n</task-notification>" })
      .add({ type: "context_added", source: "stop_hook_feedback", text: "Stop hook feedback:\nrun the tests" });
    const model = foldEvents(s.events);
    expect(kinds(model.transcript)).toEqual(["user", "context", "context"]);
    expect(model.transcript[1]).toMatchObject({ kind: "context", source: "task_notification" });
    expect(model.transcript[2]).toMatchObject({ kind: "context", source: "stop_hook_feedback", text: "Stop hook feedback:\nrun the tests" });
  });
});
