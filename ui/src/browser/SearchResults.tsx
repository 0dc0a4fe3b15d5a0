import type { SearchHit, SessionSummary } from "../generated/protocol";
import { plural, startedLabel } from "../format";
import { groupHits, hitCountText } from "./searchGroups";
import { Snippet } from "./Snippet";

/** What kind of event a hit is in, for people. */
export function hitPlace(hit: SearchHit): string {
  switch (hit.type) {
    case "user_prompt":
      return "prompt";
    case "assistant_message":
    case "assistant_text_delta":
      return "reply";
    case "tool_queued":
      return hit.tool_name ? `${hit.tool_name} input` : "tool input";
    case "tool_completed":
      return hit.tool_name ? `${hit.tool_name} result` : "tool result";
    case "tool_progress":
      return hit.tool_name ? `${hit.tool_name} output` : "tool output";
    default:
      return hit.type.replace(/_/g, " ");
  }
}

/**
 * Search hits on the page: how many, grouped by session (its title and
 * start time as the group's header), each hit's kind of event and snippet;
 * a click opens the hit at its event.
 */
export function SearchResults({
  hits,
  sessions,
  limit,
  onOpen,
}: {
  hits: readonly SearchHit[];
  /** The listed sessions, for the groups' start times. */
  sessions: readonly SessionSummary[] | null;
  limit: number;
  onOpen(hit: SearchHit): void;
}) {
  if (hits.length === 0) return <p className="empty" data-testid="search-empty">No matches.</p>;
  const groups = groupHits(hits, sessions);
  return (
    <section className="search-page" data-testid="search-results" aria-label="Search results">
      <p className="search-count" data-testid="search-count" role="status">
        {hitCountText(hits.length, groups.length, limit)}
      </p>
      {groups.map((group) => (
        <section key={group.sessionId} className="hit-group" data-testid="search-group" data-session-id={group.sessionId}>
          <h3 className="hit-group-head">
            <span className="hit-group-title">{group.title}</span>
            {group.parentSessionId !== null && (
              <span className="badge" data-testid="search-group-subagent" title="A hit opens the sub-agent's own session at the hit">
                sub-agent
              </span>
            )}
            <span className="muted small">
              {group.startedMs !== null && <> · {startedLabel(group.startedMs)}</>} · <span className="mono">{group.projectPath}</span> · {plural(group.hits.length, "hit")}
            </span>
          </h3>
          <ul className="search-results">
            {group.hits.map((hit) => (
              <li key={`${hit.session_id}:${hit.seq}`}>
                <button type="button" className="search-hit" data-testid="search-hit" data-session-id={hit.session_id} data-seq={hit.seq} onClick={() => onOpen(hit)}>
                  <span className="hit-where muted small">{hitPlace(hit)}</span>
                  <Snippet text={hit.snippet} />
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}
