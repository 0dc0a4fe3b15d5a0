import { memo } from "react";

import { field } from "../format";
import { Link } from "../Markdown";
import type { ToolCall } from "../model";

/** WebSearch: the query and its results as links. */
export const WebSearchView = memo(function WebSearchView({ call }: { call: ToolCall }) {
  const search = call.web?.search ?? null;
  return (
    <div className="web-search">
      <div className="muted small">
        <span className="mono">{field(call.input, "query")}</span>
        {search !== null && (
          <>
            {" · "}
            <span data-testid="web-search-count">
              {search.results.length} result{search.results.length === 1 ? "" : "s"}
            </span>
            {" from "}
            {search.provider}
            {search.filteredOut > 0 && ` (${search.filteredOut} filtered out)`}
          </>
        )}
      </div>
      {search !== null && search.results.length > 0 && (
        <ol className="web-results" data-testid="web-search-results">
          {search.results.map((r, i) => (
            <li key={i} data-testid="web-search-result" data-url={r.url}>
              <Link href={r.url}>{r.title || r.url}</Link>
              <div className="muted small mono">{r.url}</div>
              {r.snippet !== "" && <div className="small">{r.snippet}</div>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
});
