import { describe, expect, it } from "vitest";

import { must } from "../../session/fixtures/build";
import { PROJECT_SETTINGS } from "../fixtures";
import { denyRun, guardEntry, hooksView } from "./fixtures";
import { editOf, emptyForm, eventsOf, exitText, formFromEntry, handlerOf, verdictOf } from "./model";

describe("hooks model", () => {
  it("adds to the project's own settings by default", () => {
    const form = emptyForm(hooksView());
    expect(form.file).toBe(PROJECT_SETTINGS);
    expect(form.event).toBe("PreToolUse");
    expect(handlerOf(form)).toEqual({ error: "A command hook needs a command." });
    const built = handlerOf({ ...form, command: "./guard.sh", timeout: "5", ifRule: "Bash(rm *)" });
    expect(built).toEqual({ handler: { type: "command", command: "./guard.sh", timeout: 5, if: "Bash(rm *)" } });
    expect(editOf({ ...form, matcher: " Bash " }, { type: "command", command: "x" })).toEqual({
      kind: "add",
      event: "PreToolUse",
      matcher: "Bash",
      handler: { type: "command", command: "x" },
    });
  });

  it("edits keep the handler's other keys and a changed matcher moves the hook", () => {
    const form = formFromEntry(PROJECT_SETTINGS, guardEntry());
    expect(form.command).toBe("./guard.sh");
    expect(form.timeout).toBe("30");
    expect(form.extra).toEqual({ statusMessage: "checking" });
    const built = handlerOf({ ...form, command: "./guard2.sh" });
    expect(built).toEqual({ handler: { type: "command", command: "./guard2.sh", timeout: 30, statusMessage: "checking" } });
    expect(editOf({ ...form, matcher: "" }, { type: "command", command: "y" })).toEqual({
      kind: "replace",
      event: "PreToolUse",
      group: 0,
      index: 0,
      new_event: "PreToolUse",
      matcher: null,
      handler: { type: "command", command: "y" },
    });
  });

  it("refuses a bad URL or timeout before asking the backend", () => {
    const form = emptyForm(hooksView());
    expect(handlerOf({ ...form, kind: "http", url: "ftp://x" })).toEqual({ error: "An http hook needs an http:// or https:// URL." });
    expect("error" in handlerOf({ ...form, command: "true", timeout: "0" })).toBe(true);
    expect("error" in handlerOf({ ...form, command: "true", timeout: "4000" })).toBe(true);
    expect(handlerOf({ ...form, kind: "http", url: "http://127.0.0.1:8/h" })).toEqual({ handler: { type: "http", url: "http://127.0.0.1:8/h" } });
  });

  it("groups a file's hooks by event and reads a test run", () => {
    const file = { ...must(hooksView().files[1], "project file"), hooks: [guardEntry(), guardEntry({ index: 1 }), guardEntry({ event: "Stop" })] };
    expect(eventsOf(file).map((g) => [g.event, g.hooks.length])).toEqual([
      ["PreToolUse", 2],
      ["Stop", 1],
    ]);
    const run = denyRun();
    expect(verdictOf(run)).toBe("deny");
    expect(exitText(run)).toBe("exit 0");
    expect(verdictOf({ ...run, outcome: { ...run.outcome, decision: null, blocked: true } })).toBe("block");
    expect(exitText({ ...run, exit_code: null, timed_out: true })).toBe("did not answer in time");
    expect(verdictOf({ ...run, outcome: { ...run.outcome, decision: null, message: null } })).toBe("none");
  });
});
