import type { McpToolView } from "../generated/protocol";
import { toolHints } from "./help";

/** A server's tools: qualified names with their annotation hints. */
export function ToolList({ tools, trusted }: { tools: McpToolView[]; trusted: boolean }) {
  if (tools.length === 0) return null;
  return (
    <ul className="mcp-tools" aria-label="Tools">
      {tools.map((tool) => (
        <li key={tool.qualified_name} data-testid="mcp-tool" data-name={tool.qualified_name} title={tool.description}>
          <code>{tool.qualified_name}</code>
          {toolHints(tool).map((hint) => (
            <span key={hint} className={`mcp-hint mcp-hint-${hint}`}>
              {hint}
            </span>
          ))}
        </li>
      ))}
      {!trusted && (
        <li className="mcp-note">Annotations are hints: they count only for servers you mark trusted.</li>
      )}
    </ul>
  );
}
