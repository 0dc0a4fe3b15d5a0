import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import type { ClaudeCodeGuard, InstalledEntries, Project, SetClaudeCodeGuardArgs } from "../generated/protocol";
import { ClaudeCodeGuardSection } from "./ClaudeCodeGuardSection";

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

const USER_FILE = "/home/me/.claude/settings.json";
const CLI = "/usr/bin/gatehouse-cli";
const EVENTS = ["PreToolUse", "PermissionRequest", "PostToolUse"];

function entries(scope: "user" | "project", project: string | null): InstalledEntries {
  return {
    file: scope === "user" ? USER_FILE : `${project}/.claude/settings.local.json`,
    events: EVENTS,
    commands: EVENTS.map((e) => `${CLI} claude-code hook ${e}`),
    scope,
    project,
  };
}

function view(installed: InstalledEntries[], cliProblem: string | null = null): ClaudeCodeGuard {
  return {
    status: { installed, problems: [], last_call: null },
    user_file: USER_FILE,
    user_guarded: installed.some((e) => e.scope === "user"),
    cli: cliProblem === null ? CLI : null,
    cli_problem: cliProblem,
  };
}

/** A backend that installs and removes entries as the real one does, recording each call. */
function fakeBackend(initial: ClaudeCodeGuard, refuse: string | null = null) {
  const calls: [string, Record<string, unknown>][] = [];
  let current = initial;
  restore = setTransport({
    invoke: async (command, payload) => {
      const args = payload["args"] as Record<string, unknown>;
      calls.push([command, args]);
      if (command === "claude_code_guard") return current;
      if (command === "set_claude_code_guard") {
        if (refuse !== null) throw { message: refuse };
        const set = args as unknown as SetClaudeCodeGuardArgs;
        const others = current.status.installed.filter(
          (e) => !(e.scope === set.scope && (set.scope === "user" || e.project === set.project)),
        );
        current = view(set.on ? [...others, entries(set.scope, set.project)] : others, current.cli_problem);
        return current;
      }
      throw new Error(`unexpected command ${command}`);
    },
  });
  return calls;
}

const PROJECTS: Project[] = [
  {
    id: 1,
    path: "/work/app",
    name: "app",
    added_at_ms: 0,
    last_opened_ms: 0,
    trusted_at_ms: null,
    has_project_settings: false,
  },
];

describe("ClaudeCodeGuardSection", () => {
  it("turns the guard on for every project with the switch and off again", async () => {
    const calls = fakeBackend(view([]));
    render(<ClaudeCodeGuardSection />);
    const toggle = (await screen.findByTestId("claude-code-guard-user")) as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(screen.getByTestId("claude-code-last-call").getAttribute("data-called")).toBe("no");

    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.checked).toBe(true));
    expect(calls.at(-1)).toEqual(["set_claude_code_guard", { scope: "user", project: null, on: true }]);
    const row = screen.getByTestId("claude-code-installed");
    expect(row.getAttribute("data-scope")).toBe("user");
    expect(row.textContent).toContain(USER_FILE);

    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.checked).toBe(false));
    expect(calls.at(-1)).toEqual(["set_claude_code_guard", { scope: "user", project: null, on: false }]);
    expect(screen.queryByTestId("claude-code-installed")).toBeNull();
  });

  it("guards one recent project and removes it by the project the backend names", async () => {
    const calls = fakeBackend(view([]));
    render(<ClaudeCodeGuardSection projects={PROJECTS} />);
    const guardProject = (await screen.findByTestId("claude-code-guard-project")) as HTMLButtonElement;
    expect(guardProject.disabled).toBe(true);
    fireEvent.change(screen.getByTestId("claude-code-project"), { target: { value: "/work/app" } });
    fireEvent.click(guardProject);
    const row = await screen.findByTestId("claude-code-installed");
    expect(row.getAttribute("data-scope")).toBe("project");
    expect(calls.at(-1)).toEqual(["set_claude_code_guard", { scope: "project", project: "/work/app", on: true }]);
    expect((screen.getByTestId("claude-code-guard-user") as HTMLInputElement).checked).toBe(false);

    fireEvent.click(screen.getByTestId("claude-code-remove"));
    await waitFor(() => expect(screen.queryByTestId("claude-code-installed")).toBeNull());
    expect(calls.at(-1)).toEqual(["set_claude_code_guard", { scope: "project", project: "/work/app", on: false }]);
  });

  it("cannot switch on without gatehouse-cli beside the app, and says what to do", async () => {
    const problem = "gatehouse-cli was not found beside the app (/opt/g/gatehouse-cli): …";
    fakeBackend(view([], problem));
    render(<ClaudeCodeGuardSection projects={PROJECTS} />);
    expect((await screen.findByTestId("claude-code-cli-problem")).textContent).toBe(problem);
    expect((screen.getByTestId("claude-code-guard-user") as HTMLInputElement).disabled).toBe(true);
  });

  it("shows the last call with Claude Code's version, and a refused change's message", async () => {
    const guarded = view([entries("user", null)]);
    guarded.status.last_call = {
      event: "PreToolUse",
      at_ms: Date.now() - 5 * 60_000,
      claude_code_version: "2.1.332",
      session_id: "abc",
    };
    fakeBackend(guarded, `${USER_FILE}:3:12: expected value; the file was not changed`);
    render(<ClaudeCodeGuardSection />);
    const last = await screen.findByTestId("claude-code-last-call");
    expect(last.getAttribute("data-called")).toBe("yes");
    expect(last.textContent).toContain("Claude Code 2.1.332");
    expect(last.textContent).toContain("PreToolUse");

    fireEvent.click(screen.getByTestId("claude-code-guard-user"));
    const error = await screen.findByTestId("claude-code-guard-error");
    expect(error.textContent).toContain("the file was not changed");
    expect((screen.getByTestId("claude-code-guard-user") as HTMLInputElement).checked).toBe(true);
  });
});
