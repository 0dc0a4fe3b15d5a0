import { memo, useState } from "react";

import { field } from "../format";
import { resultText, type ToolCall } from "../model";

const SHOWN = 20;

/** What the view lists and counts. */
export interface SearchListing {
  lines: readonly string[];
  /** "2 files", "3 matching lines"; null when the call has no typed results. */
  count: string | null;
  /** Entries the model got that are not listed. */
  more: number;
}

/**
 * Grep/Glob's results from their typed `search_results` progress. A stored
 * call of an earlier build has none: its text is listed as it is, uncounted
 * (nothing is read from the text).
 */
export function searchListing(call: ToolCall): SearchListing {
  const search = call.search;
  if (search === null) {
    return { lines: resultText(call).split("\n").filter((l) => l.trim().length > 0), count: null, more: 0 };
  }
  const noun = search.unit === "files" ? (search.count === 1 ? "file" : "files") : search.count === 1 ? "matching line" : "matching lines";
  return { lines: search.entries, count: `${search.count} ${noun}${search.truncated ? ", cut at the limit" : ""}`, more: search.more_entries };
}

/** Grep and Glob: the pattern, where, and the results with a count. */
export const SearchView = memo(function SearchView({ call }: { call: ToolCall }) {
  const [all, setAll] = useState(false);
  const [open, setOpen] = useState(false);
  const { lines, count, more } = call.result && !call.result.isError ? searchListing(call) : { lines: [], count: null, more: 0 };
  const shown = all ? lines : lines.slice(0, SHOWN);
  const where = field(call.input, "path");
  const glob = field(call.input, "glob");
  return (
    <div className="search">
      <div className="muted small">
        <span className="mono">{field(call.input, "pattern")}</span>
        {where && <> in <span className="mono">{where}</span></>}
        {glob && <> · files <span className="mono">{glob}</span></>}
        {call.result && !call.result.isError && (
          <>
            {count !== null && (
              <>
                {" · "}
                <span data-testid="search-count">{count}</span>
              </>
            )}
            {lines.length > 0 && (
              <button type="button" className="link" aria-expanded={open} data-testid="search-toggle" onClick={() => setOpen(!open)}>
                {open ? "Hide" : "Show"}
              </button>
            )}
          </>
        )}
      </div>
      {open && (
        <ul className="search-lines" data-testid="search-results">
          {shown.map((line, i) => (
            <li key={i} className="mono">
              {line}
            </li>
          ))}
          {!all && lines.length > SHOWN && (
            <li>
              <button type="button" className="link" onClick={() => setAll(true)}>
                Show all {lines.length}
              </button>
            </li>
          )}
          {(all || lines.length <= SHOWN) && more > 0 && <li className="muted">and {more} more in the result</li>}
        </ul>
      )}
    </div>
  );
});
