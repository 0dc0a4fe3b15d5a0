import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../../client";
import { must } from "../../session/fixtures/build";
import { PROJECT_SETTINGS } from "../fixtures";
import { denyRun, guardEntry, hooksView } from "./fixtures";
import { HooksPanel } from "./HooksPanel";

const restores: (() => void)[] = [];
afterEach(() => {
  cleanup();
  while (restores.length > 0) restores.pop()?.();
});

type Handler = (args: Record<string, unknown>) => unknown;

/** A fake backend: each command's answer from `handlers`, every call recorded. */
function backend(handlers: Record<string, Handler>) {
  const calls: [string, Record<string, unknown>][] = [];
  restores.push(
    setTransport({
      invoke: async (command, payload) => {
        const args = payload["args"] as Record<string, unknown>;
        calls.push([command, args]);
        const handler = handlers[command] ?? (command === "list_sessions" ? () => [] : undefined);
        if (!handler) throw { message: `unexpected command ${command}` };
        return handler(args);
      },
    }),
  );
  return calls;
}

describe("HooksPanel", () => {
  it("lists every hook by source and event, why some do not run, and malformed entries by place", async () => {
    backend({
      hooks_view: () =>
        hooksView({
          trusted: false,
          files: hooksView().files.map((f) =>
            f.source === "project" ? { ...f, hooks: [guardEntry({ runs: false, not_run: "untrusted" })] } : f,
          ),
        }),
    });
    render(<HooksPanel projectId={1} />);
    await waitFor(() => expect(screen.getAllByTestId("hook-row")).toHaveLength(2));
    expect(screen.getByTestId("hooks-trust").dataset.trusted).toBe("false");
    const files = screen.getAllByTestId("hook-file");
    expect(files.map((f) => f.dataset.source)).toEqual(["project", "user"]);
    const guard = within(must(files[0], "project file")).getByTestId("hook-row");
    expect(guard.dataset.runs).toBe("false");
    expect(within(guard).getByTestId("hook-not-run").textContent).toBe("not run until the project is trusted");
    expect(within(must(files[1], "user file")).getByText("Stop")).toBeTruthy();
    expect(screen.getByTestId("hooks-problem").textContent).toBe(
      `${PROJECT_SETTINGS}:9:18: \`hooks.PostToolUse[0].hooks[0]\` is a command hook without a command`,
    );
  });

  it("adds a hook: tests it with a sample call, shows what came back, then saves it", async () => {
    const saved = hooksView({
      files: hooksView().files.map((f) =>
        f.source === "project" ? { ...f, fingerprint: "f3", hooks: [...f.hooks, guardEntry({ index: 1, command: "./deny.sh" })] } : f,
      ),
    });
    const calls = backend({
      hooks_view: () => hooksView(),
      test_hook: () => denyRun(),
      save_hook_edit: () => ({ kind: "saved", view: saved }),
    });
    render(<HooksPanel projectId={1} />);
    fireEvent.click(await screen.findByTestId("hooks-add"));
    fireEvent.change(screen.getByTestId("hook-form-matcher"), { target: { value: "Bash" } });
    // Nothing to run yet: the form says so without asking the backend.
    fireEvent.click(screen.getByTestId("hook-test-run"));
    expect(screen.getByTestId("hook-test-error").textContent).toBe("A command hook needs a command.");
    fireEvent.change(screen.getByTestId("hook-form-command"), { target: { value: "./deny.sh" } });
    fireEvent.change(screen.getByTestId("hook-test-input"), { target: { value: '{"command": "rm -rf build"}' } });
    fireEvent.click(screen.getByTestId("hook-test-run"));
    const result = await screen.findByTestId("hook-test-result");
    expect(result.dataset.verdict).toBe("deny");
    expect(within(result).getByTestId("hook-test-exit").textContent).toBe("exit 0");
    expect(within(result).getByTestId("hook-test-message").textContent).toBe("no rm here");
    expect(within(result).getByTestId("hook-test-stderr").textContent).toBe("checking\n");
    expect(within(result).getByTestId("hook-test-stdin").textContent).toContain('"tool_name": "Bash"');
    expect(calls.find(([c]) => c === "test_hook")?.[1]).toEqual({
      project_id: 1,
      event: "PreToolUse",
      handler: { type: "command", command: "./deny.sh" },
      tool_name: "Bash",
      tool_input: { command: "rm -rf build" },
    });

    fireEvent.click(screen.getByTestId("hook-form-save"));
    await waitFor(() => expect(screen.queryByTestId("hook-form")).toBeNull());
    expect(calls.find(([c]) => c === "save_hook_edit")?.[1]).toEqual({
      project_id: 1,
      file: PROJECT_SETTINGS,
      fingerprint: "f1",
      edit: { kind: "add", event: "PreToolUse", matcher: "Bash", handler: { type: "command", command: "./deny.sh" } },
      overwrite: false,
    });
    expect(screen.getByTestId("hooks-status").textContent).toContain("Hook added");
    expect(screen.getAllByTestId("hook-row").map((r) => r.dataset.command)).toEqual(["./guard.sh", "./deny.sh", "http://127.0.0.1:9/stop"]);
  });

  it("shows the backend's refusal in the form and a conflict when the file changed on disk", async () => {
    let answer: Handler = () => {
      throw { message: "/p/.claude/settings.json: the hook is not valid: `hooks.PreToolUse[0]`: matcher `(` is not a valid regex" };
    };
    const calls = backend({ hooks_view: () => hooksView(), save_hook_edit: (args) => answer(args) });
    render(<HooksPanel projectId={1} />);
    fireEvent.click(await screen.findByTestId("hooks-add"));
    fireEvent.change(screen.getByTestId("hook-form-matcher"), { target: { value: "(" } });
    fireEvent.change(screen.getByTestId("hook-form-command"), { target: { value: "true" } });
    fireEvent.click(screen.getByTestId("hook-form-save"));
    expect((await screen.findByTestId("hook-form-error")).textContent).toContain("matcher `(` is not a valid regex");
    expect(screen.getByTestId("hook-form")).toBeTruthy();

    answer = () => ({ kind: "conflict", file: PROJECT_SETTINGS, view: hooksView() });
    const guard = must(screen.getAllByTestId("hook-row")[0], "guard row");
    fireEvent.click(within(guard).getByTestId("hook-toggle"));
    expect((await screen.findByTestId("hooks-conflict")).textContent).toContain(`${PROJECT_SETTINGS} changed on disk`);
    expect(calls.filter(([c]) => c === "save_hook_edit").at(-1)?.[1]).toMatchObject({
      edit: { kind: "set_enabled", event: "PreToolUse", group: 0, index: 0, enabled: false },
      fingerprint: "f1",
    });
  });
});
