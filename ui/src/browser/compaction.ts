// What a compaction did, in the user's words, from its typed result.

import type { StorageUsage, VacuumResult } from "../generated/protocol";
import { formatBytes } from "../session/format";
import { plural } from "../format";

/**
 * The housekeeping note after "Compact": the size before and after, and —
 * never hidden behind "compacted" — when the one full rewrite an older
 * database needs is waiting for its open sessions, or when it stopped early.
 */
export function compactionNote(beforeBytes: number | null, result: VacuumResult): string {
  const { compaction } = result;
  const sizes = beforeBytes === null ? "" : `: ${formatBytes(beforeBytes)} → ${formatBytes(result.database_bytes)}`;
  const parts: string[] = [];
  switch (compaction.full_rewrite.status) {
    case "waiting_for_open_sessions":
      parts.push(
        `Search index compacted${sizes}. This database was made by an earlier version and gives space back only after one full rewrite, ` +
          `which waits while ${plural(compaction.full_rewrite.open_sessions, "session is", "sessions are")} open ` +
          "(it runs when you compact with no session open, or at the next start).",
      );
      break;
    case "done":
      parts.push(`Database rewritten and compacted${sizes}; from now on it compacts in steps while sessions run.`);
      break;
    case "not_needed":
      parts.push(
        compaction.freed_bytes > 0
          ? `Database compacted${sizes} (${formatBytes(compaction.freed_bytes)} given back).`
          : `Database compacted${sizes}; there was no free space to give back.`,
      );
      break;
  }
  if (compaction.cancelled) parts.push("It stopped early; what was done stays done.");
  return parts.join(" ");
}

/** The storage figures of a compaction's result, without how it went. */
export function usageAfter(result: VacuumResult): StorageUsage {
  const { database_bytes, wal_bytes, reclaimable_bytes, session_files_bytes, sessions, events } = result;
  return { database_bytes, wal_bytes, reclaimable_bytes, session_files_bytes, sessions, events };
}
