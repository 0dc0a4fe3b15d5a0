import { describe, expect, it } from "vitest";

import { Script, must } from "../session/fixtures/build";
import { foldEvents } from "../session/model";
import { formatCount, formatMs, placeBars } from "./plots";
import { callMatches, filterModel, isFiltering, NO_FILTER, rowForSeq, toolNames } from "./readerModel";
import { parseSnippet } from "./snippet";
import { DEFAULT_QUERY, listArgs, parseRetention } from "./state";
import { groupHits, hitCountText } from "./searchGroups";
import { allState, deletionNames, pruned, toggled, toggledAll } from "./selection";

/** Prompt; a turn with 2 Reads and a Grep (grouped), a failed Bash, an Edit the user refused, a Bash denied by rule. */
function session() {
  const s = new Script("ses_b")
    .prompt("tidy the capybara module")
    .request(1)
    .queue("r1", "Read", { file_path: "/p/a" })
    .queue("r2", "Read", { file_path: "/p/b" })
    .queue("g1", "Grep", { pattern: "ocelot" })
    .allow("r1")
    .allow("r2")
    .allow("g1")
    .complete("r1", "a")
    .complete("r2", "b")
    .complete("g1", "found 3 ocelots")
    .queue("b1", "Bash", { command: "cargo test" })
    .allow("b1")
    .complete("b1", "test failed", "error")
    .queue("e1", "Edit", { file_path: "/p/a", old_string: "a", new_string: "b" })
    .ask("e1", "Edit", { file_path: "/p/a" })
    .answer("e1", { kind: "deny", feedback: null })
    .complete("e1", "denied by the user", "denied")
    .queue("b2", "Bash", { command: "rm -rf /" })
    .add({ type: "permission_decided", tool_use_id: "b2", decision: "deny", reason: { kind: "mode", mode: "default" }, trace: [] })
    .complete("b2", "denied by rule", "denied")
    .turnDone(1, 6)
    .done();
  return s.events;
}

describe("parseSnippet", () => {
  it("splits the store's [ ] marks into highlighted parts", () => {
    expect(parseSnippet("…found [ocelot] and [capybara] here")).toEqual([
      { text: "…found ", match: false },
      { text: "ocelot", match: true },
      { text: " and ", match: false },
      { text: "capybara", match: true },
      { text: " here", match: false },
    ]);
  });
  it("never throws on stray brackets", () => {
    expect(parseSnippet("a ] b")).toEqual([{ text: "a ] b", match: false }]);
    expect(parseSnippet("x [open")).toEqual([
      { text: "x ", match: false },
      { text: "open", match: true },
    ]);
    expect(parseSnippet("[]")).toEqual([]);
  });
});

describe("filterModel", () => {
  const events = session();
  const model = foldEvents(events);

  it("returns the model itself without a filter", () => {
    expect(isFiltering(NO_FILTER)).toBe(false);
    expect(filterModel(model, NO_FILTER)).toBe(model);
  });

  it("keeps only one tool's calls, narrowing a group and keeping the prompt", () => {
    const shown = filterModel(model, { ...NO_FILTER, tool: "Read" });
    const kinds = shown.transcript.map((i) => i.kind);
    expect(kinds).toEqual(["user", "group"]);
    const group = must(shown.transcript[1]);
    expect(group.kind === "group" && group.callIds).toEqual(["r1", "r2"]);
    expect(shown.calls).toBe(model.calls);
  });

  it("filters by decision and by errors", () => {
    const ids = (f: Parameters<typeof filterModel>[1]) =>
      filterModel(model, f).transcript.flatMap((i) => (i.kind === "tool" ? [i.callId] : i.kind === "group" ? [...i.callIds] : []));
    expect(ids({ ...NO_FILTER, decision: "denied" })).toEqual(["e1", "b2"]);
    expect(ids({ ...NO_FILTER, decision: "asked" })).toEqual(["e1"]);
    expect(ids({ ...NO_FILTER, errorsOnly: true })).toEqual(["b1"]);
    expect(ids({ ...NO_FILTER, tool: "Bash", errorsOnly: true })).toEqual(["b1"]);
    expect(ids({ ...NO_FILTER, tool: "Edit", decision: "allowed" })).toEqual([]);
    expect(callMatches(must(model.calls.get("r1")), { ...NO_FILTER, decision: "allowed" })).toBe(true);
  });

  it("lists the tools used", () => {
    expect(toolNames(model)).toEqual(["Bash", "Edit", "Grep", "Read"]);
  });
});

describe("rowForSeq", () => {
  const events = session();
  const model = foldEvents(events);
  const seqOf = (pred: (e: (typeof events)[number]) => boolean) => events.findIndex(pred) + 1;

  it("lands a call's event on its group and names the group to expand", () => {
    const seq = seqOf((e) => e.type === "tool_completed" && e.tool_use_id === "g1");
    const target = must(rowForSeq(events, model, seq));
    const row = must(model.transcript[target.index]);
    expect(row.kind).toBe("group");
    expect(target.groupKey).toBe(row.key);
  });

  it("lands a call outside a group on its own row", () => {
    const seq = seqOf((e) => e.type === "tool_queued" && e.tool_use_id === "b1");
    const target = must(rowForSeq(events, model, seq));
    expect(model.transcript[target.index]).toMatchObject({ kind: "tool", callId: "b1" });
    expect(target.groupKey).toBeNull();
  });

  it("lands other events on the last row they had produced, and refuses out-of-range seqs", () => {
    expect(rowForSeq(events, model, 1)).toEqual({ index: 0, groupKey: null, callId: null });
    expect(model.transcript[0]?.kind).toBe("user");
    expect(rowForSeq(events, model, 0)).toBeNull();
    expect(rowForSeq(events, model, events.length + 1)).toBeNull();
  });
});

describe("plots", () => {
  it("sizes bars against the largest value", () => {
    expect(placeBars([{ label: "a", value: 5 }, { label: "b", value: 10 }, { label: "c", value: 0 }]).map((b) => b.fraction)).toEqual([0.5, 1, 0]);
    expect(placeBars([{ label: "a", value: 0 }])[0]?.fraction).toBe(0);
  });
  it("formats times and counts", () => {
    expect(formatMs(340)).toBe("340 ms");
    expect(formatMs(1234)).toBe("1.2 s");
    expect(formatMs(125_000)).toBe("2 min 5 s");
    expect(formatCount(950)).toBe("950");
    expect(formatCount(12_345)).toBe("12k");
    expect(formatCount(4_100_000)).toBe("4.1M");
  });
});

describe("list query and retention", () => {
  it("sends only the filters that are set", () => {
    expect(listArgs(DEFAULT_QUERY)).toEqual({ project_path: null, limit: 500, sort: "updated", ascending: false });
    const args = listArgs({ ...DEFAULT_QUERY, model: "opus", hadDenials: true, origin: "claude_code", from: "2026-01-02", to: "2026-01-02" });
    expect(args).toMatchObject({ model: "opus", had_denials: true, origin: "claude_code" });
    expect((args.until_ms ?? 0) - (args.since_ms ?? 0)).toBe(24 * 60 * 60 * 1000);
    expect(args.had_errors).toBeUndefined();
  });
  it("parses the retention field", () => {
    expect(parseRetention("")).toEqual({ days: null });
    expect(parseRetention(" 30 ")).toEqual({ days: 30 });
    expect(parseRetention("0")).toHaveProperty("error");
    expect(parseRetention("ten")).toHaveProperty("error");
  });
});

describe("the list's selection", () => {
  it("toggles one, all and none, and keeps only listed sessions", () => {
    const listed = ["a", "b", "c"];
    let ids: ReadonlySet<string> = toggled(new Set(), "b");
    expect([...ids]).toEqual(["b"]);
    expect(allState(ids, listed)).toBe("some");
    ids = toggledAll(ids, listed);
    expect(allState(ids, listed)).toBe("all");
    expect(allState(toggledAll(ids, listed), listed)).toBe("none");
    expect([...pruned(new Set(["a", "gone"]), listed)]).toEqual(["a"]);
    expect([...toggled(new Set(["a"]), "a")]).toEqual([]);
  });

  it("names what a deletion deletes, in list order, then how many more", () => {
    const listed = ["s1", "s2", "s3", "s4", "s5", "s6", "s7"];
    const labels = new Map(listed.map((id, i) => [id, { title: `t${i + 1}`, started: "Dec 1", ordinal: null }]));
    expect(deletionNames(listed, new Set(["s3", "s1"]), labels)).toEqual({ names: ["t1 · Dec 1", "t3 · Dec 1"], more: 0 });
    expect(deletionNames(listed, new Set(listed), labels).more).toBe(2);
  });
});

describe("search hits on the page", () => {
  const hit = (session_id: string, seq: number) => ({ session_id, seq, type: "user_prompt", snippet: "x", session_title: null, project_path: "/p", tool_name: null });
  it("groups hits by session in the order of their first hit and counts them", () => {
    const groups = groupHits([hit("b", 1), hit("a", 2), hit("b", 3)], null);
    expect(groups.map((g) => [g.sessionId, g.hits.map((h) => h.seq), g.title, g.startedMs])).toEqual([
      ["b", [1, 3], "b", null],
      ["a", [2], "a", null],
    ]);
    expect(hitCountText(3, 2, 100)).toBe("3 hits in 2 sessions");
    expect(hitCountText(1, 1, 100)).toBe("1 hit in 1 session");
    expect(hitCountText(100, 9, 100)).toContain("(the first 100");
  });
});
