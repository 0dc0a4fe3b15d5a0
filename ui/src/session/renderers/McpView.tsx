import { memo } from "react";

import { prettyJson } from "../format";
import { mcpParts, type ToolCall } from "../model";
import { Images } from "./ReadView";

/** Text as pretty JSON when it is JSON, else as is. */
export function maybeJson(text: string): string {
  const t = text.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return text;
  try {
    return prettyJson(JSON.parse(t));
  } catch {
    return text;
  }
}

/** An MCP progress notification's fraction, if it has one. */
function progressOf(data: unknown): { value: number; total: number | null; message: string | null } | null {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return null;
  const d = data as Record<string, unknown>;
  if (typeof d["progress"] !== "number") return null;
  return {
    value: d["progress"],
    total: typeof d["total"] === "number" ? d["total"] : null,
    message: typeof d["message"] === "string" ? d["message"] : null,
  };
}

/** An MCP call: server and tool, the JSON input, progress, the output and images. */
export const McpView = memo(function McpView({ call }: { call: ToolCall }) {
  const parts = mcpParts(call.name);
  const last = progressOf(call.progress.at(-1));
  const texts = call.result?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])) ?? [];
  return (
    <div className="mcp">
      <div className="muted small">
        server <span className="mono">{parts?.server}</span> · tool <span className="mono">{parts?.tool}</span>
      </div>
      <details>
        <summary>Input</summary>
        <pre className="json">{prettyJson(call.input)}</pre>
      </details>
      {!call.result && last && (
        <div className="mcp-progress" data-testid="mcp-progress">
          {last.total ? <progress value={last.value} max={last.total} /> : <span>{last.value}</span>}
          {last.message && <span className="muted small"> {last.message}</span>}
        </div>
      )}
      {texts.length > 0 && <pre className="json mcp-output">{texts.map(maybeJson).join("\n")}</pre>}
      {call.result && <Images content={call.result.content} />}
    </div>
  );
});
