// The session list's nesting: a sub-agent's session (its
// `parent_session_id`, recorded by Gatehouse or imported from Claude Code's
// sub-agent transcripts) is listed right under its parent, indented; the
// rest keep the list's order. A child whose parent is not in the list (a
// filter left it out) stays where the order put it, at the top level.

import type { SessionSummary } from "../generated/protocol";

/** One listed session and how deep it sits under its listed parents. */
export interface NestedSession {
  session: SessionSummary;
  /** 0 for a top-level row, 1 for a sub-agent of a listed session, … */
  depth: number;
}

/** `sessions` (in the list's order) with every child under its parent. */
export function nestSessions(sessions: readonly SessionSummary[]): NestedSession[] {
  const listed = new Set(sessions.map((s) => s.id));
  const children = new Map<string, SessionSummary[]>();
  const top: SessionSummary[] = [];
  for (const s of sessions) {
    const parent = s.parent_session_id;
    if (parent !== null && parent !== s.id && listed.has(parent)) {
      const siblings = children.get(parent) ?? [];
      siblings.push(s);
      children.set(parent, siblings);
    } else {
      top.push(s);
    }
  }
  const out: NestedSession[] = [];
  const placed = new Set<string>();
  const visit = (s: SessionSummary, depth: number) => {
    // A cycle in stored parent links must not loop forever.
    if (placed.has(s.id)) return;
    placed.add(s.id);
    out.push({ session: s, depth });
    for (const child of children.get(s.id) ?? []) visit(child, depth + 1);
  };
  for (const s of top) visit(s, 0);
  // Sessions only reachable through a cycle: listed at the top level.
  for (const s of sessions) if (!placed.has(s.id)) visit(s, 0);
  return out;
}
