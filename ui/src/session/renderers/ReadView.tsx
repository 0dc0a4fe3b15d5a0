import { memo, useState } from "react";

import type { ContentBlock } from "../../generated/protocol";
import { field } from "../format";
import { resultText, type ToolCall } from "../model";

/** The text without the runtime's `<system-reminder>` notes to the model. */
export function stripReminders(text: string): string {
  return text.replace(/\n*<system-reminder>[\s\S]*?<\/system-reminder>\n*/g, "\n").replace(/\n+$/, "");
}

/** "lines 10–29" from Read's offset/limit, or "whole file". */
export function lineRange(call: ToolCall): string {
  const offset = Number(field(call.input, "offset") ?? NaN);
  const limit = Number(field(call.input, "limit") ?? NaN);
  if (Number.isFinite(offset) && Number.isFinite(limit)) return `lines ${offset}–${offset + limit - 1}`;
  if (Number.isFinite(offset)) return `from line ${offset}`;
  if (Number.isFinite(limit)) return `lines 1–${limit}`;
  return "whole file";
}

/** Images in a result, as data URLs. */
export function Images({ content }: { content: readonly ContentBlock[] }) {
  const images = content.filter((b): b is Extract<ContentBlock, { type: "image" }> => b.type === "image");
  if (images.length === 0) return null;
  return (
    <div className="images">
      {images.map((img, i) => (
        <img key={i} alt="tool result" src={`data:${img.source.media_type};base64,${img.source.data}`} />
      ))}
    </div>
  );
}

/** Read: the path, the line range and the content (collapsed until asked for). */
export const ReadView = memo(function ReadView({ call }: { call: ToolCall }) {
  const [open, setOpen] = useState(false);
  const text = call.result && !call.result.isError ? stripReminders(resultText(call)) : "";
  const lines = text ? text.split("\n").length : 0;
  return (
    <div className="read">
      <div className="read-meta muted small">
        <span className="mono">{field(call.input, "file_path")}</span> · {lineRange(call)}
        {lines > 0 && (
          <button type="button" className="link" data-testid="read-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? "Hide" : `Show ${lines} line${lines === 1 ? "" : "s"}`}
          </button>
        )}
      </div>
      {open && (
        <pre className="read-content" data-testid="read-content">
          {text}
        </pre>
      )}
      {call.result && <Images content={call.result.content} />}
    </div>
  );
});
