import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { setReplayProgressSource, setTransport } from "../client";
import type { RulesReplayProgress } from "../generated/protocol";
import { PROJECT_SETTINGS, rulesView } from "./fixtures";
import { RulesScreen } from "./RulesScreen";

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
        const handler = handlers[command];
        if (!handler) throw { message: `unexpected command ${command}` };
        return handler(args);
      },
    }),
  );
  return calls;
}

const PROJECTS = [rulesView().project];
const denyDecision = {
  decision: "deny",
  reason: { kind: "rule", rule: "Bash(npm test:*)", source: "project", file: PROJECT_SETTINGS },
  trace: [{ layer: "deny_rules", stage: "deny_rules", outcome: "deny", detail: "Bash(npm test:*) (project)" }],
};

function validate(args: Record<string, unknown>) {
  const text = String(args["text"]);
  if (text === "Bash(rm") {
    return {
      error: { message: "missing `)`", column: 8, start: 6, end: 7 },
      tool: null,
      path_preview: null,
      bash_examples: null,
    };
  }
  return {
    error: null,
    tool: "Bash",
    path_preview: null,
    bash_examples: { matching: ["rm", "rm -rf x"], not_matching: ["rmdir"] },
  };
}

describe("RulesScreen", () => {
  it("filters the listed rules by text, says how many of all, shows an empty state, and labels Move to", async () => {
    backend({
      list_projects: () => PROJECTS,
      rules_view: () => rulesView(),
      validate_rule: validate,
      check_rule_edits: () => [],
      test_rule_call: () => ({ decision: "allow", reason: { kind: "mode", mode: "default" }, trace: [] }),
    });
    render(<RulesScreen onBack={() => undefined} onOpenCall={() => undefined} />);
    await waitFor(() => expect(screen.getAllByTestId("rule-row")).toHaveLength(2));
    const box = screen.getByTestId("rules-filter") as HTMLInputElement;
    expect(box.labels?.[0]?.textContent).toBe("Filter rules");
    expect(screen.getByTestId("rules-filter-count").textContent).toBe("2 rules");
    fireEvent.change(box, { target: { value: "npm" } });
    expect(screen.getAllByTestId("rule-row").map((r) => r.dataset.rule)).toEqual(["Bash(npm test:*)"]);
    expect(screen.getByTestId("rules-filter-count").textContent).toBe("1 of 2 rules");
    // By list and by where it lives, too.
    fireEvent.change(box, { target: { value: "deny policy" } });
    expect(screen.getAllByTestId("rule-row").map((r) => r.dataset.rule)).toEqual(["WebFetch"]);
    fireEvent.change(box, { target: { value: "zebra" } });
    expect(screen.queryAllByTestId("rule-row")).toHaveLength(0);
    expect(screen.getByTestId("rules-filter-count").textContent).toBe("0 of 2 rules");
    expect(screen.getByTestId("rules-filter-empty").textContent).toContain("No rule matches “zebra”.");
    fireEvent.click(within(screen.getByTestId("rules-filter-empty")).getByRole("button"));
    expect(screen.getAllByTestId("rule-row")).toHaveLength(2);

    // "Move to" is a real label, its menu short: file names, not paths.
    const move = screen.getByTestId("rule-move") as HTMLSelectElement;
    expect(move.labels[0]?.textContent).toBe("Move to");
    expect([...move.options].map((o) => o.textContent)).toEqual(["Project · settings.json", "User · settings.json"]);
    expect([...move.options].map((o) => o.title)).toEqual([PROJECT_SETTINGS, "/home/u/.claude/settings.json"]);
  });

  it("validates as typed with the error highlighted, adds a rule, tests it live and saves", async () => {
    const calls = backend({
      list_projects: () => PROJECTS,
      rules_view: () => rulesView(),
      validate_rule: validate,
      check_rule_edits: () => [],
      test_rule_call: (args) =>
        (args["edits"] as { files: unknown[] }).files.length > 0
          ? denyDecision
          : { decision: "allow", reason: { kind: "mode", mode: "default" }, trace: [] },
      save_rule_edits: () => ({ kind: "saved", files: [PROJECT_SETTINGS], sessions: [] }),
    });
    render(<RulesScreen onBack={() => undefined} onOpenCall={() => undefined} />);
    await waitFor(() => expect(screen.getAllByTestId("rule-row")).toHaveLength(2));
    // The policy rule is locked with its reason.
    const policy = screen.getAllByTestId("rule-row").find((r) => r.dataset.rule === "WebFetch");
    expect(within(policy as HTMLElement).getByTestId("rule-lock").textContent).toContain("managed policy");
    // An icon, not the 🔒 emoji that the bundled fonts lack (it drew a missing-glyph box).
    expect(within(policy as HTMLElement).getByTestId("rule-lock").textContent).not.toContain("🔒");
    expect(within(policy as HTMLElement).getByTestId("rule-lock").querySelector("svg")).not.toBeNull();
    await waitFor(() => expect(screen.getByTestId("tester-decision").dataset.decision).toBe("allow"));

    fireEvent.change(screen.getByTestId("rule-input"), { target: { value: "Bash(rm" } });
    await waitFor(() => expect(screen.getByTestId("rule-error-mark").textContent).toBe("m"));
    expect(screen.getByTestId("rule-error").textContent).toContain("missing `)`");
    expect((screen.getByTestId("rule-add") as HTMLButtonElement).disabled).toBe(true);

    fireEvent.change(screen.getByTestId("rule-input"), { target: { value: "Bash(npm test:*)" } });
    await waitFor(() => expect(screen.getByTestId("rule-bash-examples").textContent).toContain("rmdir"));
    fireEvent.click(screen.getByTestId("rule-add"));
    await waitFor(() => expect(screen.getByTestId("rules-dirty")).toBeTruthy());
    // Deny is the default list; the rule went to the project settings.
    const added = screen.getAllByTestId("rule-row").filter((r) => r.dataset.list === "deny");
    expect(added.map((r) => r.dataset.rule)).toContain("Bash(npm test:*)");

    // The tester decided again with the unsaved edit: the trace names the rule.
    await waitFor(() => expect(screen.getByTestId("tester-decision").dataset.decision).toBe("deny"));
    expect(screen.getByTestId("decision-trace").textContent).toContain("Bash(npm test:*)");

    fireEvent.click(screen.getByTestId("rules-save"));
    await waitFor(() => expect(screen.getByTestId("rules-status").textContent).toContain(PROJECT_SETTINGS));
    const save = calls.find(([c]) => c === "save_rule_edits")?.[1];
    expect(save?.["overwrite"]).toBe(false);
    expect((save?.["edits"] as { files: { deny: string[] }[] }).files[0]?.deny).toEqual(["Bash(npm test:*)"]);
  });

  it("on a conflict shows the choice and overwrites only when asked", async () => {
    let saves = 0;
    const calls = backend({
      list_projects: () => PROJECTS,
      rules_view: () => rulesView(),
      validate_rule: validate,
      check_rule_edits: () => [],
      test_rule_call: () => denyDecision,
      save_rule_edits: (args) => {
        saves += 1;
        return args["overwrite"]
          ? { kind: "saved", files: [PROJECT_SETTINGS], sessions: [] }
          : { kind: "conflict", files: [PROJECT_SETTINGS] };
      },
    });
    render(<RulesScreen onBack={() => undefined} onOpenCall={() => undefined} />);
    await waitFor(() => expect(screen.getAllByTestId("rule-delete").length).toBeGreaterThan(0));
    fireEvent.click(screen.getAllByTestId("rule-delete")[0] as HTMLElement);
    fireEvent.click(screen.getByTestId("rules-save"));
    await waitFor(() => expect(screen.getByTestId("rules-conflict").textContent).toContain(PROJECT_SETTINGS));
    expect(saves).toBe(1);
    fireEvent.click(screen.getByTestId("rules-overwrite"));
    await waitFor(() => expect(screen.getByTestId("rules-status")).toBeTruthy());
    expect(calls.filter(([c]) => c === "save_rule_edits").map(([, a]) => a["overwrite"])).toEqual([false, true]);
  });

  it("replays with progress and opens a changed call's session", async () => {
    let progressHandler: ((p: RulesReplayProgress) => void) | null = null;
    restores.push(
      setReplayProgressSource({
        listen: async (handler) => {
          progressHandler = handler;
          return () => {
            progressHandler = null;
          };
        },
      }),
    );
    backend({
      list_projects: () => PROJECTS,
      rules_view: () => rulesView(),
      validate_rule: validate,
      test_rule_call: () => denyDecision,
      replay_rule_edits: async (args) => {
        progressHandler?.({ replay_id: String(args["replay_id"]), done: 1, total: 2 });
        await new Promise((r) => setTimeout(r, 20));
        return {
          total: 2,
          unchanged: 1,
          changes: [{ from: "allow", to: "deny", count: 1 }],
          since_recorded: [{ from: "ask", to: "allow", count: 3 }],
          changed_calls: [
            {
              session_id: "s1",
              seq: 7,
              ts_ms: 0,
              project_path: "/p",
              mode: "default",
              tool_name: "Bash",
              input: { command: "npm test" },
              from: "allow",
              to: "deny",
              recorded: "allow",
              new_reason: denyDecision.reason,
            },
          ],
          changed_calls_truncated: false,
          settings_errors: [],
          unreadable_events: 0,
        };
      },
    });
    const onOpenCall = vi.fn();
    render(<RulesScreen onBack={() => undefined} onOpenCall={onOpenCall} />);
    await waitFor(() => expect(screen.getByTestId("replay-run")).toBeTruthy());
    fireEvent.click(screen.getByTestId("replay-run"));
    await waitFor(() => expect(screen.getByTestId("replay-progress")).toBeTruthy());
    await waitFor(() => expect(screen.getAllByTestId("replay-call")).toHaveLength(1));
    expect(screen.getByTestId("replay-count").textContent).toContain("1");
    // What changed since the calls were recorded is shown apart, labelled.
    const drift = screen.getByTestId("replay-since-recorded");
    expect(drift.textContent).toContain("Not from this edit");
    expect(within(drift).getByTestId("replay-drift-count").textContent).toContain("3");
    expect(screen.getAllByTestId("replay-count")).toHaveLength(1);
    fireEvent.click(within(screen.getByTestId("replay-call")).getByText("npm test"));
    expect(onOpenCall).toHaveBeenCalledWith("s1", 7);
  });
});
