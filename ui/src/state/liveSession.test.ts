import { describe, expect, it } from "vitest";

import type { Event, SessionHandle } from "../generated/protocol";
import { currentMode, isRunning, mergeEvents, nextMode, SessionFamily, sessionRules } from "./liveSession";
import { SUBAGENT_ID, subagentSession } from "../session/fixtures/build";

const ev = (body: Record<string, unknown>, ts = 1): Event =>
  ({ session_id: "s", ts_ms: ts, ...body }) as unknown as Event;

const handle: SessionHandle = {
  session_id: "s",
  project_path: "/p",
  mode: "default",
  events: [],
  earlier_events: 0,
  session_rules: ["Bash(npm test:*)"],
  rule_files: [],
};

describe("live session state", () => {
  it("is running between a prompt and its completion", () => {
    expect(isRunning([])).toBe(false);
    const prompt = ev({ type: "user_prompt", text: "hi" });
    expect(isRunning([prompt])).toBe(true);
    const done = ev({ type: "session_completed", status: "completed", turns: 1 });
    expect(isRunning([prompt, done])).toBe(false);
    expect(isRunning([prompt, done, prompt])).toBe(true);
  });

  it("takes a sub-agent's events once its Agent call names it, and no other session's", () => {
    const events = subagentSession(true);
    const family = new SessionFamily("ses_test");
    const other = { ...ev({ type: "user_prompt", text: "elsewhere" }), session_id: "ses_other" } as Event;
    const early = { ...ev({ type: "user_prompt", text: "too early" }), session_id: SUBAGENT_ID } as Event;
    expect(family.accepts(other)).toBe(false);
    // Not named yet: not taken.
    expect(family.accepts(early)).toBe(false);
    expect(events.every((e) => family.accepts(e))).toBe(true);
    expect(family.accepts(other)).toBe(false);
    // A resumed handle's history names its sub-agents too.
    expect(new SessionFamily("ses_test", events).accepts(early)).toBe(true);
  });

  it("is running by the session's own events, not its sub-agents' ends", () => {
    const events = subagentSession(true);
    // Cut just after the sub-agent's own session_completed: the parent still runs.
    const at = events.findIndex((e) => e.type === "session_completed" && e.session_id === SUBAGENT_ID);
    const upTo = events.slice(0, at + 1);
    expect(isRunning(upTo, "ses_test")).toBe(true);
    expect(isRunning(events, "ses_test")).toBe(false);
  });

  it("follows mode changes and cycles modes like Claude Code", () => {
    expect(currentMode(handle, [])).toBe("default");
    expect(currentMode(handle, [ev({ type: "mode_changed", mode: "plan" })])).toBe("plan");
    expect(nextMode("default")).toBe("acceptEdits");
    expect(nextMode("acceptEdits")).toBe("plan");
    expect(nextMode("plan")).toBe("bypassPermissions");
    expect(nextMode("bypassPermissions")).toBe("default");
    expect(nextMode("dontAsk")).toBe("default");
  });

  it("lists session rules once, the handle's first", () => {
    const added = ev({ type: "session_rules_added", rules: ["Bash(npm test:*)", "Edit(./a)"] });
    expect(sessionRules(handle, [added])).toEqual(["Bash(npm test:*)", "Edit(./a)"]);
  });

  it("merges live events after the history without duplicates", () => {
    const a = ev({ type: "user_prompt", text: "a" }, 1);
    const b = ev({ type: "user_prompt", text: "b" }, 2);
    expect(mergeEvents([a], [a, b])).toEqual([a, b]);
    const same = [a];
    expect(mergeEvents(same, [])).toBe(same);
  });
});
