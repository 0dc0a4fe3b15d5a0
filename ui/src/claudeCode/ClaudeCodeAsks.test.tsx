import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

import { setClaudeCodeAskSource, setClaudeCodeAskWithdrawnSource, setTransport } from "../client";
import type { ClaudeCodeAskShown, ClaudeCodeAskWithdrawn } from "../generated/protocol";
import "../styles.css";
import { ClaudeCodeAsks } from "./ClaudeCodeAsks";

// The modal is a lazy chunk loaded on the first ask; transforming it (with
// highlight.js) on first import can outlast findBy's wait on a busy machine,
// so it is imported once before the tests, as a window would have it cached.
beforeAll(async () => {
  await import("../session/PermissionModal");
});

const restores: (() => void)[] = [];
afterEach(() => {
  cleanup();
  while (restores.length > 0) restores.pop()?.();
});

const ask = (requestId: string, command: string): ClaudeCodeAskShown => ({
  request_id: requestId,
  ask: {
    session_id: "cc-session",
    tool_use_id: `toolu_${requestId}`,
    tool_name: "Bash",
    input: { command },
    project: "/home/ana/src/widget",
    reason: { kind: "default", message: "no rule allows it" },
    trace: [],
    suggestions: [`Bash(${command}:*)`],
    preview: null,
  },
  rule_files: [
    { source: "local", path: "/home/ana/src/widget/.claude/settings.local.json" },
    { source: "user", path: "/home/ana/.claude/settings.json" },
  ],
});

/** A backend that records answers, and a channel the test sends asks on. */
function fake() {
  const answers: unknown[] = [];
  const listeners = new Set<(shown: ClaudeCodeAskShown) => void>();
  restores.push(
    setClaudeCodeAskSource({
      listen: async (handler) => {
        listeners.add(handler);
        return () => listeners.delete(handler);
      },
    }),
  );
  restores.push(
    setTransport({
      invoke: async (command, payload) => {
        if (command !== "answer_claude_code_ask") throw { message: `unexpected command ${command}` };
        answers.push(payload["args"]);
        return null;
      },
    }),
  );
  const withdrawers = new Set<(withdrawn: ClaudeCodeAskWithdrawn) => void>();
  restores.push(
    setClaudeCodeAskWithdrawnSource({
      listen: async (handler) => {
        withdrawers.add(handler);
        return () => withdrawers.delete(handler);
      },
    }),
  );
  const send = async (shown: ClaudeCodeAskShown) => {
    await waitFor(() => expect(listeners.size).toBe(1));
    listeners.forEach((l) => l(shown));
  };
  const withdraw = async (withdrawn: ClaudeCodeAskWithdrawn) => {
    await waitFor(() => expect(withdrawers.size).toBe(1));
    withdrawers.forEach((l) => l(withdrawn));
  };
  return { answers, send, withdraw };
}

describe("a guarded Claude Code's asks", () => {
  it("shows each in the permission modal with its origin and sends the answers back in order", async () => {
    const f = fake();
    render(<ClaudeCodeAsks />);
    expect(screen.queryByTestId("permission-modal")).toBeNull();
    await f.send(ask("claude-code-ask-0", "git push"));
    await f.send(ask("claude-code-ask-1", "make deploy"));
    const modal = await screen.findByTestId("permission-modal");
    expect(screen.getByTestId("permission-origin").textContent).toBe("Claude Code asks, in /home/ana/src/widget");
    expect(modal.textContent).toContain("git push");
    await waitFor(() => expect(screen.getByTestId("permission-queue").textContent).toBe("1 of 2"));
    fireEvent.keyDown(modal, { key: "1" });
    await waitFor(() => expect(f.answers).toEqual([{ request_id: "claude-code-ask-0", answer: { kind: "allow_once" } }]));
    // The next ask, then a denial with feedback.
    await waitFor(() => expect(screen.getByTestId("permission-modal").textContent).toContain("make deploy"));
    fireEvent.keyDown(screen.getByTestId("permission-modal"), { key: "Escape" });
    await waitFor(() => expect(f.answers[1]).toEqual({ request_id: "claude-code-ask-1", answer: { kind: "deny", feedback: null } }));
    await waitFor(() => expect(screen.queryByTestId("permission-modal")).toBeNull());
  });

  it("drops an ask the backend withdraws (its hook went away) and keeps the others", async () => {
    const f = fake();
    render(<ClaudeCodeAsks />);
    await f.send(ask("claude-code-ask-0", "git push"));
    await f.send(ask("claude-code-ask-1", "make deploy"));
    await waitFor(() => expect(screen.getByTestId("permission-queue").textContent).toBe("1 of 2"));
    await f.withdraw({ request_id: "claude-code-ask-0", reason: "hook_gone" });
    await waitFor(() => expect(screen.getByTestId("permission-modal").textContent).toContain("make deploy"));
    expect(screen.getByTestId("permission-modal").textContent).not.toContain("git push");
    await f.withdraw({ request_id: "claude-code-ask-1", reason: "timed_out" });
    await waitFor(() => expect(screen.queryByTestId("permission-modal")).toBeNull());
    expect(f.answers).toEqual([]);
  });

  it("offers Claude Code's own settings files for always allow, the first the default", async () => {
    const f = fake();
    render(<ClaudeCodeAsks />);
    await f.send(ask("claude-code-ask-0", "npm test"));
    const modal = await screen.findByTestId("permission-modal");
    fireEvent.keyDown(modal, { key: "3" });
    fireEvent.keyDown(modal, { key: "Enter" });
    await waitFor(() =>
      expect(f.answers).toEqual([
        { request_id: "claude-code-ask-0", answer: { kind: "always_allow", rules: ["Bash(npm test:*)"], destination: "local" } },
      ]),
    );
  });
});
