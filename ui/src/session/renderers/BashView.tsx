import { memo, useLayoutEffect, useRef, useState } from "react";

import { AnsiLines } from "../ansi";

import { BashBlocked, BashNetwork, BashSandbox } from "./BashSandbox";

import { field, formatBytes, formatDuration } from "../format";
import { highlight } from "../highlight";
import { isFinished, outputText, resultText, type StreamedOutput, type ToolCall } from "../model";

/** How a finished Bash call ended, from its status and its typed exit (never the result's text). */
export function bashExit(call: ToolCall): { label: string; ok: boolean } | null {
  if (!isFinished(call.status)) return null;
  switch (call.status) {
    case "completed":
      return { label: call.taskId ? "started in the background" : "exit 0", ok: true };
    case "denied":
      return { label: "not run", ok: false };
    case "interrupted":
      return { label: "interrupted", ok: false };
    case "cancelled":
      return { label: "cancelled", ok: false };
    case "timed_out":
      return { label: "timed out", ok: false };
  }
  const exited = call.bashExited;
  if (exited?.exitCode != null) return { label: `exit ${exited.exitCode}`, ok: false };
  if (exited?.signal != null) return { label: `signal ${exited.signal}`, ok: false };
  return { label: "failed", ok: false };
}

/**
 * At most this many lines are in the DOM; the rest of the kept output is
 * counted in the "earlier output" line (a 64 KB event replaces every line of
 * the pane, and the webview's cost is per line laid out).
 */
export const MAX_DOM_LINES = 200;

/** A Bash call's live output pane. */
function Output({ call }: { call: ToolCall }) {
  const streamed = call.output;
  // An interrupted call's result is the runtime's note for the model; the
  // exit line already says it was interrupted (and why).
  const text = streamed ? outputText(streamed) : call.result && !call.taskId && call.status !== "interrupted" ? resultText(call) : "";
  const running = !isFinished(call.status);
  const placeholder = running ? "waiting for output…" : call.taskId ? "running in the background" : "(no output)";
  return <OutputPane text={text} streamed={streamed} running={running} placeholder={placeholder} outputPath={call.bash?.outputPath ?? null} />;
}

/**
 * Streamed output with ANSI colours (a Bash call's, a background task's):
 * keeps following the end unless the user scrolled up; at most `maxLines`
 * lines are in the DOM, the rest counted in an "earlier output" line.
 */
export function OutputPane({
  text,
  streamed,
  running,
  placeholder,
  outputPath,
  maxLines = MAX_DOM_LINES,
  testId = "bash-output",
}: {
  text: string;
  streamed: StreamedOutput | null;
  running: boolean;
  /** Shown while there is no output. */
  placeholder: string;
  outputPath: string | null;
  maxLines?: number;
  testId?: string;
}) {
  const ref = useRef<HTMLPreElement>(null);
  const follow = useRef(true);
  const [ansi] = useState(() => new AnsiLines());
  const lines = ansi.update(text, streamed ? streamed.droppedLines : 0);
  const empty = text.length === 0;
  const shown = lines.length > maxLines ? lines.slice(lines.length - maxLines) : lines;
  let hiddenChars = 0;
  for (let i = 0; i < lines.length - shown.length; i++) hiddenChars += (lines[i]?.chars ?? 0) + 1;
  const earlier = (streamed?.earlierBytes ?? 0) + hiddenChars;
  // Follow the end when output comes.
  const lastKey = `${shown.at(-1)?.key ?? -1}:${text.length}`;
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [lastKey]);
  // The pane is there from the start, one line high when empty, so output
  // arriving or the call finishing never moves what is below.
  return (
    <div className={`bash-output-wrap ${running ? "live" : ""}`}>
      {earlier > 0 && (
        <div className="earlier-output" data-testid="earlier-output">
          … {formatBytes(earlier)} earlier output
          {outputPath ? ` (all of it in ${outputPath})` : ""}
        </div>
      )}
      <pre
        ref={ref}
        className="bash-output"
        data-testid={testId}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
        }}
        data-placeholder={empty ? placeholder : undefined}
      >
        {!empty &&
          shown.map((line) => (
            // ansi_up escapes the text; only its colour spans are markup.
            <div key={line.key} className="out-line" dangerouslySetInnerHTML={{ __html: line.html }} />
          ))}
      </pre>
    </div>
  );
}

/** Bash: the command, live output with colours, exit status and duration. */
export const BashView = memo(function BashView({ call }: { call: ToolCall }) {
  const command = field(call.input, "command") ?? "";
  const description = field(call.input, "description") ?? call.bash?.description ?? null;
  const exit = bashExit(call);
  return (
    <div className="bash">
      {description && <div className="muted small">{description}</div>}
      <pre className="bash-command">
        <span className="prompt-sign">$ </span>
        <code dangerouslySetInnerHTML={{ __html: highlight(command, "bash") }} />
      </pre>
      {call.status !== "denied" && call.status !== "queued" && <Output call={call} />}
      <BashSandbox use={call.bash?.sandbox} />
      <BashNetwork connections={call.bash?.network} />
      <BashBlocked denials={call.bash?.blocked} omitted={call.bash?.blockedOmitted} cwd={call.bash?.cwd ?? null} />
      {call.taskId && <div className="muted small">Background task {call.taskId}</div>}
      {exit ? (
        <div className={`bash-exit ${exit.ok ? "ok" : "bad"}`} data-testid="bash-exit">
          {exit.label}
          {call.result ? ` · ${formatDuration(call.result.durationMs)}` : ""}
          {call.interruptMessage ? ` · ${call.interruptMessage}` : ""}
        </div>
      ) : (
        call.status !== "queued" && (
          <div className="bash-exit muted" aria-hidden="true">
            {call.bash?.pid ? `pid ${call.bash.pid}` : "starting"}
            {call.bash?.cwd ? ` · ${call.bash.cwd}` : ""}
          </div>
        )
      )}
    </div>
  );
});
