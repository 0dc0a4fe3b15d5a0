import { memo } from "react";

import type { ContentBlock } from "../../generated/protocol";
import { mcpParts, type ToolCall } from "../model";

/** The tools a ToolSearch result loaded (its `tool_reference` blocks), in order. */
export function loadedTools(content: readonly ContentBlock[]): string[] {
  return content.flatMap((b) => (b.type === "tool_reference" ? [b.tool_name] : []));
}

/** The query a ToolSearch call was given. */
function queryOf(input: unknown): string {
  if (input && typeof input === "object" && "query" in input) {
    const q = (input as { query: unknown }).query;
    if (typeof q === "string") return q;
  }
  return "";
}

/** A ToolSearch call: its query and the tools it loaded (or its text: nothing matched, unknown names). */
export const ToolSearchView = memo(function ToolSearchView({ call }: { call: ToolCall }) {
  const query = queryOf(call.input);
  const content = call.result?.content ?? [];
  const loaded = loadedTools(content);
  const notes = content.flatMap((b) => (b.type === "text" ? [b.text] : []));
  return (
    <div className="tool-search" data-testid="tool-search">
      <div className="small">
        query <span className="mono" data-testid="tool-search-query">{query}</span>
      </div>
      {loaded.length > 0 && (
        <ul className="tool-search-loaded small" data-testid="tool-search-loaded">
          {loaded.map((name) => {
            const mcp = mcpParts(name);
            return (
              <li key={name} className="mono" title={name}>
                {mcp ? `${mcp.tool} (${mcp.server})` : name}
              </li>
            );
          })}
        </ul>
      )}
      {notes.length > 0 && <div className="muted small">{notes.join("\n")}</div>}
    </div>
  );
});
