import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { TraceList } from "./RefusalView";

afterEach(cleanup);

describe("TraceList", () => {
  it("says which allow rule was not applied and why, from the step's typed fields", () => {
    render(
      <TraceList
        trace={[
          { layer: "allow_rules", stage: "allow_rules", outcome: "passthrough", detail: "no allow rule matches" },
          {
            layer: "allow_rules",
            stage: "allow_rules",
            outcome: "passthrough",
            detail: "(English for logs)",
            not_applied: {
              rule: "Edit(./src/greeter.py)",
              source: "local",
              file: "/p/.claude/settings.local.json:3:14",
              why: "project_not_trusted",
            },
          },
        ]}
      />,
    );
    const step = screen.getByTestId("decision-trace").querySelector("[data-not-applied]");
    expect(step?.getAttribute("data-not-applied")).toBe("project_not_trusted");
    expect(step?.textContent).toContain("`Edit(./src/greeter.py)` allowed by /p/.claude/settings.local.json — not applied: project not trusted");
    expect(step?.textContent).not.toContain("English for logs");
  });
});
