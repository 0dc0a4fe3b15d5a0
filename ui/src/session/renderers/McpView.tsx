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

/** The newest MCP progress notification of a call, if it had one. */
function lastProgress(call: ToolCall): { value: number; total: number | null; message: string | null } | null {
  for (let i = call.progress.length - 1; i >= 0; i--) {
    const p = call.progress[i];
    if (p?.kind === "mcp_progress") return { value: p.progress, total: p.total, message: p.message };
  }
  return null;
}

/** An MCP call: server and tool, the JSON input, progress, the output and images. */
export const McpView = memo(function McpView({ call }: { call: ToolCall }) {
  const parts = mcpParts(call.name);
  const last = lastProgress(call);
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
