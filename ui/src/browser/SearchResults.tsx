import type { SearchHit } from "../generated/protocol";
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

/** Search hits: where each is (session, kind of event) and its snippet; a click opens it there. */
export function SearchResults({ hits, onOpen }: { hits: readonly SearchHit[]; onOpen(hit: SearchHit): void }) {
  if (hits.length === 0) return <p className="empty" data-testid="search-empty">No matches.</p>;
  return (
    <ul className="search-results" data-testid="search-results">
      {hits.map((hit) => (
        <li key={`${hit.session_id}:${hit.seq}`}>
          <button type="button" className="search-hit" data-testid="search-hit" data-session-id={hit.session_id} data-seq={hit.seq} onClick={() => onOpen(hit)}>
            <span className="hit-where">
              <strong>{hit.session_title ?? hit.session_id}</strong> <span className="muted small">· {hitPlace(hit)} · {hit.project_path}</span>
            </span>
            <Snippet text={hit.snippet} />
          </button>
        </li>
      ))}
    </ul>
  );
}
