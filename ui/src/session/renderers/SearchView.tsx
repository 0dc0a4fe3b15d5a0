import { memo, useState } from "react";

import { field } from "../format";
import { resultText, type ToolCall } from "../model";

const SHOWN = 20;

/** Grep/Glob result lines and the count: "Found N files" headers are read, not listed. */
export function searchResults(text: string): { lines: string[]; count: number; unit: string } {
  const lines = text.split("\n").filter((l) => l.trim().length > 0);
  const header = lines.length > 0 ? /^Found (\d+) (\w+)/.exec(lines[0] ?? "") : null;
  if (header) {
    return { lines: lines.slice(1), count: Number(header[1]), unit: header[2] ?? "results" };
  }
  if (lines.length === 1 && /^No (files|matches) found/.test(lines[0] ?? "")) return { lines: [], count: 0, unit: "results" };
  return { lines, count: lines.length, unit: lines.length === 1 ? "result" : "results" };
}

/** Grep and Glob: the pattern, where, and the results with a count. */
export const SearchView = memo(function SearchView({ call }: { call: ToolCall }) {
  const [all, setAll] = useState(false);
  const [open, setOpen] = useState(false);
  const { lines, count, unit } = call.result && !call.result.isError ? searchResults(resultText(call)) : { lines: [], count: 0, unit: "" };
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
            {" · "}
            <span data-testid="search-count">
              {count} {unit}
            </span>
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
        </ul>
      )}
    </div>
  );
});
