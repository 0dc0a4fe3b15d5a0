import { describe, expect, it } from "vitest";

import type { VacuumResult } from "../generated/protocol";
import { compactionNote } from "./compaction";

function result(compaction: Partial<VacuumResult["compaction"]>): VacuumResult {
  return {
    database_bytes: 2_000_000,
    wal_bytes: 0,
    reclaimable_bytes: 0,
    session_files_bytes: 0,
    sessions: 1,
    events: 10,
    compaction: { steps: 3, freed_bytes: 0, wal_truncated: true, cancelled: false, full_rewrite: { status: "not_needed" }, ...compaction },
  };
}

describe("compactionNote", () => {
  it("gives the sizes and what was given back", () => {
    expect(compactionNote(4_000_000, result({ freed_bytes: 2_000_000 }))).toBe("Database compacted: 4.0 MB → 2.0 MB (2.0 MB given back).");
    expect(compactionNote(null, result({}))).toBe("Database compacted; there was no free space to give back.");
  });

  it("says when the full rewrite waits for open sessions, and when it was done", () => {
    const waiting = compactionNote(4_000_000, result({ full_rewrite: { status: "waiting_for_open_sessions", open_sessions: 2 } }));
    expect(waiting).toContain("Search index compacted: 4.0 MB → 2.0 MB.");
    expect(waiting).toContain("waits while 2 sessions are open");
    expect(compactionNote(null, result({ full_rewrite: { status: "done" } }))).toContain("Database rewritten and compacted");
  });

  it("says when it stopped early", () => {
    expect(compactionNote(null, result({ cancelled: true }))).toMatch(/stopped early; what was done stays done\.$/);
  });
});
