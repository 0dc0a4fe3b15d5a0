import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { PermissionAnswer, RuleFile } from "../generated/protocol";
import { Script, must, sampleDiff } from "./fixtures/build";
import { foldEvents, pendingRequests, type PermissionRequest } from "./model";
import { PermissionModal } from "./PermissionModal";

afterEach(cleanup);

function requests(): PermissionRequest[] {
  const s = new Script().request(1);
  s.queue("b1", "Bash", { command: "npm test && git push" }).start("b1", 0, false);
  s.ask("b1", "Bash", { command: "npm test && git push" }, ["Bash(npm test)", "Bash(git push)"]);
  s.queue("e1", "Edit", { file_path: "/p/src/greeter.py" }).start("e1", 1, false).ask("e1", "Edit", {}, ["Edit(/src/**)"], sampleDiff());
  s.queue("w1", "Write", { file_path: "/p/x" }).start("w1", 2, false).ask("w1", "Write", { file_path: "/p/x", content: "hi" });
  return pendingRequests(foldEvents(s.events));
}

/** As the backend sends them (`SessionHandle.rule_files`). */
const FILES: RuleFile[] = [
  { source: "local", path: "/p/.claude/settings.local.json" },
  { source: "project", path: "/p/.claude/settings.json" },
  { source: "user", path: "/home/u/.claude/settings.json" },
];

function setup(reqs = requests()) {
  const onAnswer = vi.fn<(id: string, answer: PermissionAnswer) => void>();
  const utils = render(<PermissionModal requests={reqs} destinations={FILES} onAnswer={onAnswer} />);
  const modal = screen.getByTestId("permission-modal");
  return { ...utils, onAnswer, modal };
}

const key = (el: Element, k: string, extra: Partial<KeyboardEventInit> = {}) => fireEvent.keyDown(el, { key: k, ...extra });

describe("PermissionModal", () => {
  it("renders nothing without requests", () => {
    render(<PermissionModal requests={[]} destinations={FILES} onAnswer={() => {}} />);
    expect(screen.queryByTestId("permission-modal")).toBeNull();
  });

  it("shows the first request: tool, command, why, queue position; focus on allow once", () => {
    const { modal } = setup();
    expect(modal.getAttribute("data-tool-use-id")).toBe("b1");
    expect(modal.textContent).toContain("npm test && git push");
    expect(screen.getByTestId("permission-queue").textContent).toBe("1 of 3");
    expect(screen.getByTestId("decision-trace")).toBeTruthy();
    expect(modal.textContent).toContain("no rule allows it");
    expect(document.activeElement).toBe(screen.getByTestId("permission-allow-once"));
    expect(modal.getAttribute("aria-modal")).toBe("true");
  });

  it("keeps the call in front: the trace is folded away and speaks plainly", () => {
    const { modal } = setup();
    const why = screen.getByTestId("why-ask") as HTMLDetailsElement;
    expect(why.open).toBe(false);
    const steps = Array.from(screen.getByTestId("decision-trace").querySelectorAll("li")).map((li) => li.textContent);
    expect(steps).toEqual([
      "Deny rules:none matched",
      "Ask rules:none matched",
      "Mode:allowsreads inside the working directories run without asking",
    ]);
    expect(modal.textContent).not.toContain("deny_rules");
    expect(modal.textContent).not.toContain("passthrough");
  });

  it("confirms always allow with Enter on the destination menu", () => {
    const { onAnswer } = setup();
    const menu = screen.getByTestId("permission-destination");
    fireEvent.change(menu, { target: { value: "project" } });
    key(menu, "Enter");
    expect(onAnswer).toHaveBeenLastCalledWith("b1", {
      kind: "always_allow",
      rules: ["Bash(npm test)", "Bash(git push)"],
      destination: "project",
    });
  });

  it("answers 1 = allow once, 2 = allow for the session", () => {
    const { modal, onAnswer } = setup();
    key(modal, "1");
    expect(onAnswer).toHaveBeenLastCalledWith("b1", { kind: "allow_once" });
    cleanup();
    const second = setup();
    key(second.modal, "2");
    expect(second.onAnswer).toHaveBeenLastCalledWith("b1", { kind: "allow_for_session" });
  });

  it("answers only once per request even on repeated keys", () => {
    const { modal, onAnswer } = setup();
    key(modal, "1");
    key(modal, "2");
    expect(onAnswer).toHaveBeenCalledTimes(1);
  });

  it("3 focuses the editable rules (one per sub-command); Enter sends them with the destination", () => {
    const { modal, onAnswer } = setup();
    key(modal, "3");
    const rules = screen.getAllByTestId("permission-rule") as HTMLInputElement[];
    expect(rules.map((r) => r.value)).toEqual(["Bash(npm test)", "Bash(git push)"]);
    expect(document.activeElement).toBe(rules[0]);
    // Digits typed into a rule are text, not shortcuts.
    key(must(rules[0]), "1");
    expect(onAnswer).not.toHaveBeenCalled();
    fireEvent.change(must(rules[1]), { target: { value: "Bash(git push:*)" } });
    fireEvent.change(screen.getByTestId("permission-destination"), { target: { value: "user" } });
    key(must(rules[1]), "Enter");
    expect(onAnswer).toHaveBeenCalledWith("b1", {
      kind: "always_allow",
      rules: ["Bash(npm test)", "Bash(git push:*)"],
      destination: "user",
    });
  });

  it("offers the files the backend names, labelled by source, the first as default", () => {
    setup();
    const select = screen.getByTestId("permission-destination") as HTMLSelectElement;
    expect(select.value).toBe("local");
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ["local", "This project, only me (/p/.claude/settings.local.json)"],
      ["project", "This project, shared (/p/.claude/settings.json)"],
      ["user", "All my projects (/home/u/.claude/settings.json)"],
    ]);
  });

  it("always allow is disabled when every rule is emptied", () => {
    const { onAnswer } = setup();
    for (const input of screen.getAllByTestId("permission-rule")) fireEvent.change(input, { target: { value: " " } });
    const button = screen.getByTestId("permission-always-allow") as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    fireEvent.click(button);
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it("4 focuses the feedback box; Shift+Enter is a new line, Enter denies with the feedback", () => {
    const { modal, onAnswer } = setup();
    key(modal, "4");
    const box = screen.getByTestId("permission-deny-feedback") as HTMLTextAreaElement;
    expect(document.activeElement).toBe(box);
    fireEvent.change(box, { target: { value: "use yarn" } });
    key(box, "Enter", { shiftKey: true });
    expect(onAnswer).not.toHaveBeenCalled();
    key(box, "Enter");
    expect(onAnswer).toHaveBeenCalledWith("b1", { kind: "deny", feedback: "use yarn" });
  });

  it("Esc denies without feedback; clicking deny with empty feedback sends null", () => {
    const { modal, onAnswer } = setup();
    key(modal, "Escape");
    expect(onAnswer).toHaveBeenCalledWith("b1", { kind: "deny", feedback: null });
    cleanup();
    const again = setup();
    fireEvent.click(screen.getByTestId("permission-deny"));
    expect(again.onAnswer).toHaveBeenCalledWith("b1", { kind: "deny", feedback: null });
  });

  it("arrow keys move the choice and Enter confirms it", () => {
    const { modal, onAnswer } = setup();
    key(modal, "ArrowDown");
    expect(document.activeElement).toBe(screen.getByTestId("permission-allow-session"));
    key(document.activeElement as Element, "Enter");
    expect(onAnswer).toHaveBeenCalledWith("b1", { kind: "allow_for_session" });
  });

  it("traps focus: Tab from the last control wraps to the first and Shift+Tab back", () => {
    const { modal } = setup();
    const feedback = screen.getByTestId("permission-deny-feedback");
    feedback.focus();
    key(feedback, "Tab");
    const first = document.activeElement;
    expect(modal.contains(first)).toBe(true);
    expect(first).not.toBe(feedback);
    key(first as Element, "Tab", { shiftKey: true });
    expect(document.activeElement).toBe(feedback);
  });

  it("keeps key presses from reaching the page (Shift+Tab must not change the mode)", () => {
    const { modal } = setup();
    const seen = vi.fn();
    document.addEventListener("keydown", seen);
    key(modal, "Tab", { shiftKey: true });
    key(modal, "Escape");
    document.removeEventListener("keydown", seen);
    expect(seen).not.toHaveBeenCalled();
  });

  it("shows queued requests in order as earlier ones are answered, with the edit's diff preview", () => {
    const all = requests();
    const onAnswer = vi.fn();
    const { rerender } = render(<PermissionModal requests={all} destinations={FILES} onAnswer={onAnswer} />);
    key(screen.getByTestId("permission-modal"), "1");
    rerender(<PermissionModal requests={all.slice(1)} destinations={FILES} onAnswer={onAnswer} />);
    const modal = screen.getByTestId("permission-modal");
    expect(modal.getAttribute("data-tool-use-id")).toBe("e1");
    expect(screen.getByTestId("permission-queue").textContent).toBe("1 of 2");
    expect(screen.getByTestId("diff")).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByTestId("permission-allow-once"));
    key(modal, "2");
    rerender(<PermissionModal requests={all.slice(2)} destinations={FILES} onAnswer={onAnswer} />);
    expect(screen.getByTestId("permission-modal").getAttribute("data-tool-use-id")).toBe("w1");
    expect(screen.queryByTestId("permission-queue")).toBeNull();
    // No suggestions: the tool name is offered as the rule.
    expect((screen.getByTestId("permission-rule") as HTMLInputElement).value).toBe("Write");
    expect(screen.getByTestId("permission-modal").textContent).toContain('"content": "hi"');
    expect(onAnswer.mock.calls.map((c) => c[0])).toEqual(["b1", "e1"]);
  });

  it("gives focus back to where it was when the queue empties", () => {
    const outside = document.createElement("textarea");
    document.body.appendChild(outside);
    outside.focus();
    const all = requests().slice(0, 1);
    const { rerender } = render(<PermissionModal requests={all} destinations={FILES} onAnswer={() => {}} />);
    expect(document.activeElement).not.toBe(outside);
    rerender(<PermissionModal requests={[]} destinations={FILES} onAnswer={() => {}} />);
    expect(document.activeElement).toBe(outside);
    outside.remove();
  });
  it("offers absolute rules for the user's file and keeps rules the user edited", () => {
    const edit = must(requests()[1]);
    const request = { ...edit, suggestions: ["Edit(./src/greeter.py)"], userSuggestions: ["Edit(//p/src/greeter.py)"] };
    const { onAnswer } = setup([request]);
    const rule = () => (screen.getByTestId("permission-rule") as HTMLInputElement).value;
    const destination = screen.getByTestId("permission-destination");
    expect(rule()).toBe("Edit(./src/greeter.py)");
    fireEvent.change(destination, { target: { value: "user" } });
    expect(rule()).toBe("Edit(//p/src/greeter.py)");
    expect(screen.queryByTestId("permission-destination-trust")).toBeNull();
    fireEvent.change(destination, { target: { value: "project" } });
    expect(rule()).toBe("Edit(./src/greeter.py)");
    // Saving into the project's files trusts it, and the modal says so.
    // All that trust grants, not only the rules (hooks run commands).
    expect(screen.getByTestId("permission-destination-trust").textContent).toContain("trusts the project");
    expect(screen.getByTestId("permission-destination-trust").textContent).toContain("hooks that run commands");
    // Edited by the user: kept as typed whatever the destination.
    fireEvent.change(screen.getByTestId("permission-rule"), { target: { value: "Edit(./src/**)" } });
    fireEvent.change(destination, { target: { value: "user" } });
    expect(rule()).toBe("Edit(./src/**)");
    fireEvent.change(screen.getByTestId("permission-rule"), { target: { value: "Edit(//p/src/greeter.py)" } });
    fireEvent.click(screen.getByTestId("permission-always-allow"));
    expect(onAnswer).toHaveBeenLastCalledWith(edit.toolUseId, {
      kind: "always_allow",
      rules: ["Edit(//p/src/greeter.py)"],
      destination: "user",
    });
  });
});

describe("PermissionModal as it opens", () => {
  // React commits a render that was not caused by an event (an ask arriving
  // on a channel) and runs its effects in a later task. A key pressed in
  // between must not lose its choice to the dialog's first focus: the focus
  // is taken as the dialog is put on the page (the CI failure of
  // ClaudeCodeAsks.test.tsx, "always allow" answered as "allow once").
  it("keeps a choice made before React ran the dialog's effects", async () => {
    const act = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean | undefined };
    const before = act.IS_REACT_ACT_ENVIRONMENT;
    act.IS_REACT_ACT_ENVIRONMENT = false;
    const host = document.body.appendChild(document.createElement("div"));
    const root = createRoot(host);
    try {
      const onAnswer = vi.fn<(id: string, answer: PermissionAnswer) => void>();
      const reqs = requests();
      const shown = new Promise<HTMLElement>((resolve) => {
        const seen = new MutationObserver(() => {
          const modal = host.querySelector<HTMLElement>("[data-testid=permission-modal]");
          if (modal !== null) {
            seen.disconnect();
            resolve(modal);
          }
        });
        seen.observe(host, { childList: true, subtree: true });
      });
      root.render(<PermissionModal requests={reqs} destinations={FILES} onAnswer={onAnswer} />);
      // Resolved from the mutation's microtask: before the effects' task.
      const modal = await shown;
      modal.dispatchEvent(new KeyboardEvent("keydown", { key: "3", bubbles: true }));
      await Promise.resolve();
      modal.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(onAnswer.mock.calls).toEqual([
        ["b1", { kind: "always_allow", rules: ["Bash(npm test)", "Bash(git push)"], destination: "local" }],
      ]);
    } finally {
      root.unmount();
      host.remove();
      act.IS_REACT_ACT_ENVIRONMENT = before;
    }
  });
});
