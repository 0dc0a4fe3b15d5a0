// The tester's trace keeps its look when the rule editor is opened before
// any session (issue 17 item 10): its styles come with the TraceList
// component, not with the session screen's stylesheet, which this file
// never loads. (CSS is injected in tests: vite.config.ts `test.css`.)

import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import "../styles.css";
import { TesterPanel } from "./TesterPanel";

afterEach(cleanup);

describe("TesterPanel", () => {
  it("lays the decision trace out in its columns without the session screen's CSS", () => {
    render(
      <TesterPanel
        tester={{
          tool: "Bash",
          input: "{}",
          mode: "default",
          error: null,
          decision: {
            decision: "deny",
            reason: { kind: "rule", rule: "Bash(rm:*)", source: "project", file: "/p/.claude/settings.json" },
            trace: [{ layer: "deny_rules", stage: "deny_rules", outcome: "deny", detail: "Bash(rm:*) (project)" }],
          },
        }}
        toolNames={["Bash"]}
        projectPath="/p"
        onChange={vi.fn()}
      />,
    );
    expect([...document.querySelectorAll("style")].some((s) => s.textContent?.includes(".session-bar {"))).toBe(false);
    const step = screen.getByTestId("decision-trace").querySelector("li") as HTMLElement;
    expect(getComputedStyle(step).display).toBe("grid");
    expect(getComputedStyle(step).gridTemplateColumns).toBe("10rem 7.5rem 1fr");
    const outcome = step.querySelector(".trace-outcome") as HTMLElement;
    expect(getComputedStyle(outcome).fontWeight).toBe("600");
  });

  it("names the modes as the rest of the app does", () => {
    render(<TesterPanel tester={{ tool: "Bash", input: "{}", mode: "default", error: null, decision: null }} toolNames={[]} projectPath="/p" onChange={vi.fn()} />);
    const options = [...(screen.getByTestId("tester-mode") as HTMLSelectElement).options];
    expect(options.map((o) => o.textContent)).toEqual(["Ask before edits", "Accept edits", "Plan (read-only)", "Bypass permissions", "Don't ask (deny)"]);
    expect(options.map((o) => o.value)).toEqual(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]);
  });
});
