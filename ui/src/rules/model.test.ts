import { describe, expect, it } from "vitest";

import { PROJECT_SETTINGS, rulesView } from "./fixtures";
import {
  completions,
  editsOf,
  fileKey,
  groupRules,
  initialDraft,
  isDirty,
  problemsFor,
  splitAtSpan,
  targets,
  toolOf,
} from "./model";

describe("rule editor model", () => {
  it("sends nothing while the draft is as loaded, and whole lists of changed files only", () => {
    const view = rulesView();
    const draft = initialDraft(view);
    expect(isDirty(editsOf(view, draft))).toBe(false);
    const key = fileKey(PROJECT_SETTINGS);
    const edited = {
      ...draft,
      rules: [...draft.rules, { id: "n", target: key, list: "deny" as const, text: "Bash(rm:*)", decided30d: 0 }],
    };
    const edits = editsOf(view, edited);
    expect(edits.sessions).toEqual([]);
    expect(edits.files).toEqual([
      {
        path: PROJECT_SETTINGS,
        base_fingerprint: "f1",
        allow: ["Bash(npm test:*)"],
        ask: [],
        deny: ["Bash(rm:*)"],
        additional_directories: ["../shared"],
      },
    ]);
  });

  it("moving a rule changes both files; a directory edit alone is a change", () => {
    const view = rulesView();
    const draft = initialDraft(view);
    const user = fileKey("/home/u/.claude/settings.json");
    const moved = { ...draft, rules: draft.rules.map((r) => (r.text === "Bash(npm test:*)" ? { ...r, target: user } : r)) };
    const edits = editsOf(view, moved);
    expect(edits.files.map((f) => [f.path, f.allow])).toEqual([
      [PROJECT_SETTINGS, []],
      ["/home/u/.claude/settings.json", ["Bash(npm test:*)"]],
    ]);
    const dirs = { ...draft, directories: { ...draft.directories, [fileKey(PROJECT_SETTINGS)]: [] } };
    expect(editsOf(view, dirs).files[0]?.additional_directories).toEqual([]);
  });

  it("groups by tool, then deny / ask / allow", () => {
    const rules = [
      { id: "1", target: "t", list: "allow" as const, text: "Bash(ls)", decided30d: 0 },
      { id: "2", target: "t", list: "deny" as const, text: "Bash(rm:*)", decided30d: 0 },
      { id: "3", target: "t", list: "ask" as const, text: "Read(./.env)", decided30d: 0 },
    ];
    const groups = groupRules(rules);
    expect(groups.map((g) => g.tool)).toEqual(["Bash", "Read"]);
    expect(groups[0]?.lists.map((l) => l.list)).toEqual(["deny", "allow"]);
    expect(toolOf("mcp__docs__search")).toBe("mcp__docs__search");
  });

  it("locks managed policy and matches problems to their rule and file", () => {
    const view = rulesView();
    const all = targets(view);
    expect(all.find((t) => t.source === "policy")?.editable).toBe(false);
    const rule = { id: "1", target: fileKey(PROJECT_SETTINGS), list: "allow" as const, text: "Bash(npm test:*)", decided30d: 0 };
    const problem = {
      severity: "warning",
      code: "shadowed_by_deny",
      file: PROJECT_SETTINGS,
      line: 1,
      column: 1,
      list: "allow" as const,
      rule: "Bash(npm test:*)",
      message: "can never fire",
    };
    const target = all.find((t) => t.key === rule.target);
    expect(problemsFor(rule, target, [problem, { ...problem, file: "/other.json" }])).toEqual([problem]);
  });

  it("highlights the error span, even past the end", () => {
    expect(splitAtSpan("Bash(rm", 6, 7)).toEqual(["Bash(r", "m", ""]);
    expect(splitAtSpan("Bash(", 5, 5)).toEqual(["Bash(", " ", ""]);
  });

  it("completes tool names until a parenthesis is typed", () => {
    expect(completions("we", ["Bash", "WebFetch", "WebSearch"])).toEqual(["WebFetch", "WebSearch"]);
    expect(completions("Bash(", ["Bash"])).toEqual([]);
  });
});

describe("completions", () => {
  it("offers nothing before anything is typed", () => {
    expect(completions("", ["Bash"])).toEqual([]);
  });
});
