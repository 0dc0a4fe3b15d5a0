// Search results on the page: hits grouped by session (in the order the
// store ranked them), each group headed by the session's title and start
// time, and a count that says when the limit cut the list.

import type { SearchHit, SessionSummary } from "../generated/protocol";
import { plural } from "../format";

/** One session's hits. */
export interface HitGroup {
  sessionId: string;
  title: string;
  /** The session's start, when the list knows the session (hits carry no time). */
  startedMs: number | null;
  projectPath: string;
  /** The session that started it, when it is a sub-agent's (and the list knows it). */
  parentSessionId: string | null;
  hits: SearchHit[];
}

/** Hits grouped by session, groups in the order of their first hit. */
export function groupHits(hits: readonly SearchHit[], sessions: readonly SessionSummary[] | null): HitGroup[] {
  const known = new Map((sessions ?? []).map((s) => [s.id, s]));
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.session_id);
    if (!group) {
      group = {
        sessionId: hit.session_id,
        title: hit.session_title ?? known.get(hit.session_id)?.title ?? hit.session_id,
        startedMs: known.get(hit.session_id)?.created_at_ms ?? null,
        projectPath: hit.project_path,
        parentSessionId: known.get(hit.session_id)?.parent_session_id ?? null,
        hits: [],
      };
      groups.set(hit.session_id, group);
    }
    group.hits.push(hit);
  }
  return [...groups.values()];
}

/** "12 hits in 3 sessions", and "(the first 100)" when the search stopped at its limit. */
export function hitCountText(hits: number, sessions: number, limit: number): string {
  const text = `${plural(hits, "hit")} in ${plural(sessions, "session")}`;
  return hits >= limit ? `${text} (the first ${limit}: refine the words to see others)` : text;
}
