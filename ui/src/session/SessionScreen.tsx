// PLACEHOLDER: a deliberately minimal session screen with the props and the
// test-id contract of the full one (written on branch issue-uikit, which
// replaces this file at merge). It renders what the e2e tests look for and
// nothing more; the real renderers, grouping and modal live there.

import { useEffect, useState } from "react";

import type {
  Event,
  FileDiff,
  PermissionAnswer,
  PermissionMode,
  SessionHandle,
} from "../generated/protocol";

export interface SessionScreenProps {
  handle: SessionHandle;
  events: Event[];
  running: boolean;
  onPrompt(text: string): void;
  onInterrupt(): void;
  onModeChange(mode: PermissionMode): void;
  onAnswer(toolUseId: string, answer: PermissionAnswer): void;
}

const CYCLE: PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];
const SNAKE: Record<PermissionMode, string> = {
  default: "default",
  acceptEdits: "accept_edits",
  plan: "plan",
  bypassPermissions: "bypass_permissions",
  dontAsk: "dont_ask",
};
const GROUPED = new Set(["Read", "Glob", "Grep"]);

type Status =
  | "queued"
  | "running"
  | "waiting_permission"
  | "completed"
  | "error"
  | "denied"
  | "interrupted";

interface Call {
  id: string;
  name: string;
  turn: number;
  status: Status;
  output: string;
  diff: FileDiff | null;
  queuedMs: number;
  startedMs: number | null;
  endedMs: number | null;
}

interface Ask {
  toolUseId: string;
  toolName: string;
  input: unknown;
  suggestions: string[];
  preview: FileDiff | null;
}

type Item = { kind: "text"; key: string; text: string } | { kind: "calls"; key: string; calls: Call[] };

function derive(events: Event[]) {
  const calls = new Map<string, Call>();
  const items: Item[] = [];
  const texts = new Map<string, { kind: "text"; key: string; text: string }>();
  const pending: Ask[] = [];
  let mode: PermissionMode | null = null;
  let turn = 0;
  let lastCalls: { kind: "calls"; key: string; calls: Call[] } | null = null;
  for (const e of events) {
    switch (e.type) {
      case "model_request_started":
        turn = e.turn;
        lastCalls = null;
        break;
      case "assistant_text_delta": {
        const key = `${e.turn}:${e.index}`;
        let item = texts.get(key);
        if (!item) {
          item = { kind: "text", key, text: "" };
          texts.set(key, item);
          items.push(item);
          lastCalls = null;
        }
        item.text += e.text;
        break;
      }
      case "tool_queued": {
        const call: Call = {
          id: e.tool_use_id,
          name: e.name,
          turn,
          status: "queued",
          output: "",
          diff: null,
          queuedMs: e.ts_ms,
          startedMs: null,
          endedMs: null,
        };
        calls.set(call.id, call);
        if (!lastCalls) {
          lastCalls = { kind: "calls", key: call.id, calls: [] };
          items.push(lastCalls);
        }
        lastCalls.calls.push(call);
        break;
      }
      case "tool_started": {
        const call = calls.get(e.tool_use_id);
        if (call) {
          call.status = "running";
          call.startedMs = e.ts_ms;
        }
        break;
      }
      case "permission_requested": {
        const call = calls.get(e.tool_use_id);
        if (call) call.status = "waiting_permission";
        if (call && e.preview) call.diff = e.preview;
        pending.push({
          toolUseId: e.tool_use_id,
          toolName: e.tool_name,
          input: e.input,
          suggestions: e.suggestions,
          preview: e.preview,
        });
        break;
      }
      case "permission_answered": {
        const i = pending.findIndex((p) => p.toolUseId === e.tool_use_id);
        if (i >= 0) pending.splice(i, 1);
        const call = calls.get(e.tool_use_id);
        if (call && call.status === "waiting_permission") call.status = "running";
        break;
      }
      case "permission_decided": {
        const call = calls.get(e.tool_use_id);
        if (call && e.decision === "deny") call.status = "denied";
        break;
      }
      case "tool_progress": {
        const call = calls.get(e.tool_use_id);
        const data = e.data as { kind?: string; text?: string; type?: string; diff?: FileDiff };
        if (call && data.kind === "output" && typeof data.text === "string") call.output += data.text;
        if (call && data.type === "file_diff" && data.diff) call.diff = data.diff;
        break;
      }
      case "tool_completed": {
        const call = calls.get(e.tool_use_id);
        if (!call) break;
        call.endedMs = e.ts_ms;
        const text = e.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
        if (call.status === "denied") break;
        if (!e.is_error) call.status = "completed";
        else if (/interrupt/i.test(text)) call.status = "interrupted";
        else call.status = "error";
        break;
      }
      case "mode_changed":
        mode = e.mode;
        break;
      default:
        break;
    }
  }
  return { items, pending, mode, calls: [...calls.values()] };
}

function DiffView({ diff }: { diff: FileDiff }) {
  return (
    <pre data-testid="diff" className="diff">
      {diff.hunks.flatMap((h) =>
        h.lines.map((l, i) => (
          <div key={`${h.old_start}-${i}`} className={`diff-${l.kind}`}>
            {l.kind === "added" ? "+" : l.kind === "removed" ? "-" : " "}
            {l.text}
          </div>
        )),
      )}
    </pre>
  );
}

function CallView({ call }: { call: Call }) {
  return (
    <div
      data-testid="tool-call"
      data-tool-name={call.name}
      data-tool-use-id={call.id}
      data-status={call.status}
      className="tool-call"
    >
      <span>
        {call.name} — {call.status}
      </span>
      {call.name === "Bash" && <pre data-testid="bash-output">{call.output}</pre>}
      {call.diff && <DiffView diff={call.diff} />}
    </div>
  );
}

function Group({ calls }: { calls: Call[] }) {
  const [open, setOpen] = useState(false);
  const files = calls.filter((c) => c.name === "Read").length;
  const searches = calls.length - files;
  const parts = [];
  if (files) parts.push(`Read ${files} file${files === 1 ? "" : "s"}`);
  if (searches) parts.push(`searched ${searches} pattern${searches === 1 ? "" : "s"}`);
  return (
    <div data-testid="tool-group" className="tool-group">
      <button type="button" data-testid="tool-group-toggle" onClick={() => setOpen(!open)}>
        {parts.join(", ")}
      </button>
      {open && calls.map((c) => <CallView key={c.id} call={c} />)}
    </div>
  );
}

function Calls({ calls }: { calls: Call[] }) {
  // Consecutive read/search calls become one collapsible group.
  const out: (Call | Call[])[] = [];
  for (const call of calls) {
    const last = out[out.length - 1];
    if (GROUPED.has(call.name) && Array.isArray(last)) last.push(call);
    else out.push(GROUPED.has(call.name) ? [call] : call);
  }
  return (
    <>
      {out.map((c) =>
        Array.isArray(c) ? (
          c.length > 1 ? (
            <Group key={c[0]?.id} calls={c} />
          ) : (
            c[0] && <CallView key={c[0].id} call={c[0]} />
          )
        ) : (
          <CallView key={c.id} call={c} />
        ),
      )}
    </>
  );
}

function Modal({ ask, onAnswer }: { ask: Ask; onAnswer: SessionScreenProps["onAnswer"] }) {
  const [feedback, setFeedback] = useState("");
  const allowOnce = () => onAnswer(ask.toolUseId, { kind: "allow_once" });
  const allowSession = () => onAnswer(ask.toolUseId, { kind: "allow_for_session" });
  const always = () =>
    onAnswer(ask.toolUseId, { kind: "always_allow", rules: ask.suggestions, destination: "local" });
  const deny = () =>
    onAnswer(ask.toolUseId, { kind: "deny", feedback: feedback.trim() === "" ? null : feedback });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLTextAreaElement) {
        if (e.key === "Escape") deny();
        return;
      }
      const keys: Record<string, () => void> = {
        "1": allowOnce,
        "2": allowSession,
        "3": always,
        "4": deny,
        Enter: allowOnce,
        Escape: deny,
      };
      const act = keys[e.key];
      if (act) {
        e.preventDefault();
        act();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  return (
    <div data-testid="permission-modal" role="dialog" className="permission-modal">
      <p>
        Allow {ask.toolName}? <code>{JSON.stringify(ask.input)}</code>
      </p>
      {ask.preview && <DiffView diff={ask.preview} />}
      <button type="button" data-testid="permission-allow-once" onClick={allowOnce}>
        1 Allow once
      </button>
      <button type="button" data-testid="permission-allow-session" onClick={allowSession}>
        2 Allow for this session
      </button>
      <button type="button" data-testid="permission-always-allow" onClick={always}>
        3 Always allow
      </button>
      <button type="button" data-testid="permission-deny" onClick={deny}>
        4 Deny
      </button>
      <textarea
        data-testid="permission-deny-feedback"
        value={feedback}
        onChange={(e) => setFeedback(e.target.value)}
      />
    </div>
  );
}

/** The running session (placeholder; see the file comment). */
export function SessionScreen(props: SessionScreenProps) {
  const { handle, events, running, onPrompt, onInterrupt, onModeChange, onAnswer } = props;
  const [text, setText] = useState("");
  const { items, pending, mode: changed, calls } = derive(events);
  const mode = changed ?? handle.mode;
  const rules = [...handle.session_rules];
  for (const e of events)
    if (e.type === "session_rules_added") for (const r of e.rules) if (!rules.includes(r)) rules.push(r);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Tab" && e.shiftKey) {
        e.preventDefault();
        onModeChange(CYCLE[(CYCLE.indexOf(mode) + 1) % CYCLE.length] ?? "default");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [mode, onModeChange]);

  const send = () => {
    if (text.trim() === "") return;
    onPrompt(text);
    setText("");
  };
  const first = calls.length ? Math.min(...calls.map((c) => c.queuedMs)) : 0;
  const last = calls.length ? Math.max(...calls.map((c) => c.endedMs ?? c.queuedMs)) : 1;
  const span = Math.max(1, last - first);
  const ask = pending[0];
  return (
    <section data-testid="session-screen" className="session-screen">
      <span data-testid="mode-indicator" data-mode={SNAKE[mode]}>
        Mode: {mode}
      </span>
      <div className="transcript">
        {items.map((item) =>
          item.kind === "text" ? (
            <p key={item.key} data-testid="assistant-text">
              {item.text}
            </p>
          ) : (
            <Calls key={item.key} calls={item.calls} />
          ),
        )}
      </div>
      <div data-testid="batch-timeline" className="batch-timeline">
        {calls.map((c) => (
          <span
            key={c.id}
            data-testid="timeline-bar"
            title={c.name}
            style={{
              display: "inline-block",
              marginLeft: `${((c.startedMs ?? c.queuedMs) - first) / span * 100}%`,
            }}
          >
            {c.name}
          </span>
        ))}
      </div>
      <ul data-testid="session-rules">
        {rules.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
      <textarea
        data-testid="prompt-input"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            send();
          }
        }}
      />
      <button type="button" data-testid="prompt-send" onClick={send}>
        Send
      </button>
      <button type="button" data-testid="interrupt-button" onClick={onInterrupt} disabled={!running}>
        Interrupt
      </button>
      {ask && <Modal key={ask.toolUseId} ask={ask} onAnswer={onAnswer} />}
    </section>
  );
}
