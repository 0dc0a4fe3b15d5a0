import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { Script, must } from "./fixtures/build";
import { foldEvents } from "./model";
import { ToolBlockBadge } from "./renderers/ToolBlockBadge";
import { ToolSearchView, loadedTools } from "./renderers/ToolSearchView";
import { ToolCallView } from "./ToolCallView";

afterEach(cleanup);

describe("ToolSearchView (issue 21)", () => {
  const s = new Script()
    .add({ type: "tool_block_changed", tool_search: true, loaded: 12, deferred: 239, bytes: 40_960 })
    .request(1)
    .queue("ts", "ToolSearch", { query: "github issue" })
    .start("ts")
    .allow("ts")
    .add({
      type: "tool_completed",
      tool_use_id: "ts",
      status: "ok",
      is_error: false,
      content: [
        { type: "tool_reference", tool_name: "mcp__github__create_issue" },
        { type: "tool_reference", tool_name: "mcp__github__get_issue" },
      ],
      duration_ms: 1,
      persisted_path: null,
    })
    .queue("none", "ToolSearch", { query: "+zzz github" })
    .start("none")
    .complete("none", "No matching deferred tools found");
  const model = foldEvents(s.events);

  it("shows the query and the tools it loaded", () => {
    const call = must(model.calls.get("ts"), "ts");
    render(<ToolCallView call={call} project={null} />);
    expect(screen.getByTestId("tool-search-query").textContent).toBe("github issue");
    const items = within(screen.getByTestId("tool-search-loaded")).getAllByRole("listitem");
    expect(items.map((li) => li.textContent)).toEqual(["create_issue (github)", "get_issue (github)"]);
    expect(items[0]?.getAttribute("title")).toBe("mcp__github__create_issue");
  });

  it("shows the text when nothing matched, and no list", () => {
    render(<ToolSearchView call={must(model.calls.get("none"), "none")} />);
    expect(screen.queryByTestId("tool-search-loaded")).toBeNull();
    expect(screen.getByTestId("tool-search").textContent).toContain("No matching deferred tools found");
  });

  it("reads only tool_reference blocks as loaded tools", () => {
    expect(loadedTools([{ type: "text", text: "x" }, { type: "tool_reference", tool_name: "A" }])).toEqual(["A"]);
  });

  it("folds tool_block_changed into the header's counts", () => {
    expect(model.toolBlock).toEqual({ toolSearch: true, loaded: 12, deferred: 239, bytes: 40_960 });
    render(<ToolBlockBadge block={model.toolBlock} />);
    const badge = screen.getByTestId("tool-block");
    expect(badge.textContent).toContain("12 tools");
    expect(badge.textContent).toContain("239 deferred");
    expect(badge.getAttribute("title")).toContain("40960 bytes");
  });

  it("shows nothing before the first request", () => {
    const { container } = render(<ToolBlockBadge block={null} />);
    expect(container.textContent).toBe("");
  });
});
