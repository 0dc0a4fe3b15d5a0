import { describe, expect, it } from "vitest";

import type { SessionSummary } from "../generated/protocol";
import { nestSessions } from "./nesting";

const session = (id: string, parent: string | null = null): SessionSummary =>
  ({ id, parent_session_id: parent }) as unknown as SessionSummary;

describe("the session list's nesting", () => {
  it("lists each sub-agent under its parent, in the list's order, indented by depth", () => {
    const listed = [session("c1", "p"), session("q"), session("p"), session("g", "c1"), session("c2", "p")];
    expect(nestSessions(listed).map((n) => [n.session.id, n.depth])).toEqual([
      ["q", 0],
      ["p", 0],
      ["c1", 1],
      ["g", 2],
      ["c2", 1],
    ]);
  });

  it("keeps a child whose parent is not listed at the top level, and survives a cycle", () => {
    expect(nestSessions([session("c", "gone"), session("a")]).map((n) => [n.session.id, n.depth])).toEqual([
      ["c", 0],
      ["a", 0],
    ]);
    const cycle = nestSessions([session("x", "y"), session("y", "x")]);
    expect(cycle.map((n) => n.session.id).sort()).toEqual(["x", "y"]);
  });
});
