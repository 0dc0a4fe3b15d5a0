import { describe, expect, it } from "vitest";

import { Script } from "./fixtures/build";
import { callSummary, describeReason, formatBytes, formatDuration, formatElapsed, shortPath } from "./format";
import { languageForFence, languageForPath } from "./highlight";
import { ModelStore } from "./store";

describe("formatting", () => {
  it("formats durations, clocks and sizes", () => {
    expect([formatDuration(850), formatDuration(4210), formatDuration(185_000)]).toEqual(["850 ms", "4.2 s", "3 m 05 s"]);
    expect([formatElapsed(7000), formatElapsed(62_000), formatElapsed(3_723_000)]).toEqual(["0:07", "1:02", "1:02:03"]);
    expect([formatBytes(512), formatBytes(12_300), formatBytes(104_900_000), formatBytes(2_500_000_000)]).toEqual([
      "512 B",
      "12.3 KB",
      "104.9 MB",
      "2.50 GB",
    ]);
  });

  it("summarises calls by tool, paths relative to the project", () => {
    const call = (name: string, input: Record<string, string>) => ({ name, input });
    expect(callSummary(call("Bash", { command: "ls -la" }))).toBe("ls -la");
    expect(callSummary(call("Read", { file_path: "/p/src/a.ts" }), "/p")).toBe("src/a.ts");
    expect(callSummary(call("Grep", { pattern: "TODO", path: "/p/src" }), "/p")).toBe("TODO in src");
    expect(callSummary(call("mcp__github__get_issue", { n: "1" }))).toBe("github · get_issue");
    expect(callSummary(call("Skill", { skill: "git-report" }))).toBe("git-report");
    expect(callSummary(call("Skill", { skill: "pdf", args: "fill form.pdf" }))).toBe("pdf fill form.pdf");
    expect(callSummary(call("Custom", { x: "y".repeat(200) })).length).toBe(120);
    expect(shortPath("/elsewhere/x", "/p")).toBe("/elsewhere/x");
    expect(shortPath("/pp/x", "/p")).toBe("/pp/x");
  });

  it("describes every kind of decision reason", () => {
    expect(describeReason({ kind: "rule", rule: "Bash(npm test)", source: "project", file: "/p/.claude/settings.json" })).toBe(
      "Rule Bash(npm test) (project settings, /p/.claude/settings.json)",
    );
    expect(describeReason({ kind: "rule", rule: "Bash(git status:*)", source: "skill", file: "/h/.claude/skills/git-report/SKILL.md" })).toBe(
      "Allowed by skill git-report (Bash(git status:*) in its allowed-tools)",
    );
    expect(describeReason({ kind: "mode", mode: "plan" })).toBe("Permission mode: Plan (read-only)");
    expect(describeReason({ kind: "safety_check", message: "writes .git/" })).toBe("Safety check: writes .git/");
    expect(describeReason({ kind: "working_directory", path: "/etc" })).toBe("Outside the working directories: /etc");
    expect(describeReason({ kind: "hook", hook: "guard.sh", message: null })).toBe("Hook guard.sh");
  });

  it("picks highlight languages by extension and fence name", () => {
    expect(["a.ts", "b.py", "Makefile", "c.unknown", "noext"].map(languageForPath)).toEqual(["typescript", "python", "bash", null, null]);
    // Aliases a grammar declares (tsx → typescript) are kept as written.
    expect(["tsx", "shell", "rust", "klingon"].map(languageForFence)).toEqual(["tsx", "bash", "rust", null]);
  });
});

describe("ModelStore", () => {
  it("applies only appended events and refolds a list that is not an extension", () => {
    const store = new ModelStore();
    const s = new Script().prompt("a").request(1).queue("x", "Bash", { command: "ls" });
    const first = store.sync(s.events.slice());
    expect(first.version).toBe(3);
    s.start("x");
    const second = store.sync(s.events.slice());
    expect(second).toBe(first);
    expect(second.version).toBe(4);
    expect(store.initialCount).toBe(3);
    const other = new Script("other").prompt("b").events;
    const third = store.sync(other);
    expect(third).not.toBe(first);
    expect(third.version).toBe(1);
    expect(third.sessionId).toBe("other");
  });
});
