import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../../client";
import type { SkillView, SkillsView } from "../../generated/protocol";
import { SkillsPanel } from "./SkillsPanel";

const restores: (() => void)[] = [];
afterEach(() => {
  cleanup();
  while (restores.length > 0) restores.pop()?.();
});

function skill(patch: Partial<SkillView>): SkillView {
  return {
    name: "report",
    description: "Reports the state of the repository",
    origin: "user",
    file: "/home/u/.claude/skills/report/SKILL.md",
    allowed_tools: [],
    model: null,
    active: true,
    last_used_ms: null,
    uses: 0,
    ...patch,
  };
}

/** A fake backend answering `skills_view` with `views` in turn, recording the calls. */
function backend(...views: SkillsView[]) {
  const calls: Record<string, unknown>[] = [];
  restores.push(
    setTransport({
      invoke: async (command, payload) => {
        if (command !== "skills_view") throw { message: `unexpected command ${command}` };
        calls.push(payload["args"] as Record<string, unknown>);
        return views[Math.min(calls.length - 1, views.length - 1)];
      },
    }),
  );
  return calls;
}

describe("SkillsPanel", () => {
  it("lists loaded skills with source, grants and last use, the others apart with why, and broken folders", async () => {
    const calls = backend({
      trusted: false,
      skills: [
        skill({ allowed_tools: ["Bash(git add:*)", "Read"], last_used_ms: Date.now() - 3 * 86_400_000, uses: 4 }),
        skill({ name: "deploy", origin: "project", file: "/p/.claude/skills/deploy/SKILL.md", active: false }),
      ],
      problems: [{ file: "/p/.claude/skills/broken/SKILL.md", line: 2, message: "front matter does not parse" }],
    });
    render(<SkillsPanel projectId={7} />);
    const rows = await screen.findAllByTestId("skill-row");
    expect(calls).toEqual([{ project_id: 7 }]);
    expect(screen.getByTestId("skills-trust").dataset["trusted"]).toBe("false");

    const report = rows.find((r) => r.dataset["name"] === "report");
    if (!report) throw new Error("no row for report");
    expect(report.dataset["active"]).toBe("true");
    expect(within(report).getByTestId("skill-last-used").textContent).toBe("last used 3 days ago · 4 uses");
    expect(within(report).getByTestId("skill-grants").textContent).toContain("Bash(git add:*)");
    expect(report.textContent).toContain("User (~/.claude/skills)");

    const inactive = screen.getByTestId("skills-inactive");
    const deploy = within(inactive).getByTestId("skill-row");
    expect(deploy.dataset["origin"]).toBe("project");
    expect(deploy.dataset["active"]).toBe("false");
    expect(deploy.textContent).toContain("not loaded until you trust the project");
    expect(within(deploy).getByTestId("skill-last-used").textContent).toBe("never used here");

    expect(screen.getByTestId("skills-problem").textContent).toBe(
      "/p/.claude/skills/broken/SKILL.md:2: front matter does not parse",
    );
  });

  it("says how to add one when there are none, and reloads on demand", async () => {
    const calls = backend(
      { trusted: true, skills: [], problems: [] },
      { trusted: true, skills: [skill({ origin: "project", file: "/p/.claude/skills/report/SKILL.md" })], problems: [] },
    );
    render(<SkillsPanel projectId={1} />);
    expect((await screen.findByTestId("skills-empty")).textContent).toContain(".claude/skills");
    fireEvent.click(screen.getByTestId("skills-reload"));
    await waitFor(() => expect(screen.getAllByTestId("skill-row")).toHaveLength(1));
    expect(calls).toHaveLength(2);
    expect(screen.queryByTestId("skills-inactive")).toBeNull();
  });
});
