import { Bot, ShieldAlert, SquareTerminal } from "lucide-react";
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";

import type { PermissionAnswer, RuleFile, RuleSource } from "../generated/protocol";
import { field, prettyJson } from "./format";
import { ToolIcon } from "./icons";
import { toolKind, type PermissionRequest } from "./model";
import { DiffView } from "./renderers/DiffView";
import { ReasonAndTrace } from "./renderers/RefusalView";
// Its styles travel with it: the modal also opens over screens that never
// loaded the session screen (a guarded Claude Code's asks).
import "./session.css";

/**
 * What each "always allow" destination means to the user. Which files they
 * are comes from the backend (`SessionHandle.rule_files`), never from here.
 */
export const DESTINATION_LABELS: Partial<Record<RuleSource, string>> = {
  local: "This project, only me",
  project: "This project, shared",
  user: "All my projects",
};

const OPTIONS = ["allow_once", "allow_for_session", "always_allow", "deny"] as const;
type Option = (typeof OPTIONS)[number];

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface Props {
  /** Pending requests, oldest first; the first is shown. */
  requests: readonly PermissionRequest[];
  /** Where "always allow" can save rules (the session handle's `rule_files`), first is the default. */
  destinations: readonly RuleFile[];
  /** The answer to one request. */
  onAnswer(toolUseId: string, answer: PermissionAnswer): void;
  /** Who asks when it is not this window's session (a guarded Claude Code). */
  origin?: string | null;
}

/**
 * The ask-style permission modal. Keyboard: 1 allow once, 2 allow for this
 * session, 3 always allow (focuses the editable rules; Enter confirms), 4 deny
 * (focuses the feedback box; Enter confirms, Shift+Enter is a new line),
 * ↑/↓ pick an answer and Enter confirms it, Esc denies (with any feedback
 * typed). Tab cycles inside the modal (focus is trapped); focus returns to
 * where it was when the queue is empty. Several requests are answered in the
 * order they came; the header says how many wait.
 */
export function PermissionModal({ requests, destinations, onAnswer, origin = null }: Props) {
  const first = requests[0];
  // Where focus was before the first dialog took it (set by the dialog,
  // whose effect runs before this component's).
  const restore = useRef<Element | null>(null);
  const hasRequest = first !== undefined;
  useEffect(() => {
    if (!hasRequest) return;
    return () => {
      const el = restore.current;
      restore.current = null;
      if (el instanceof HTMLElement && el.isConnected) el.focus();
    };
  }, [hasRequest]);
  if (!first) return null;
  const remember = (previous: Element | null) => {
    restore.current ??= previous;
  };
  return (
    <Dialog key={first.toolUseId} request={first} queued={requests.length} destinations={destinations} onAnswer={onAnswer} onOpen={remember} origin={origin} />
  );
}

function Dialog({
  request,
  queued,
  destinations,
  onAnswer,
  onOpen,
  origin,
}: {
  request: PermissionRequest;
  queued: number;
  destinations: Props["destinations"];
  onAnswer: Props["onAnswer"];
  /** Told where focus was before the dialog takes it. */
  onOpen(previous: Element | null): void;
  origin: string | null;
}) {
  const [destination, setDestination] = useState<RuleSource>(() => destinations[0]?.source ?? "local");
  const [rules, setRules] = useState<string[]>(() => suggestedFor(request, destinations[0]?.source ?? "local"));
  // The user's file is read in every project, so its rules name absolute
  // paths; rules the user edited are kept as typed.
  const changeDestination = (next: RuleSource) => {
    const unedited = sameRules(rules, suggestedFor(request, destination));
    setDestination(next);
    if (unedited) setRules(suggestedFor(request, next));
  };
  const [feedback, setFeedback] = useState("");
  const [selected, setSelected] = useState<Option>("allow_once");
  const root = useRef<HTMLDivElement>(null);
  const buttons = useRef<Partial<Record<Option, HTMLButtonElement | null>>>({});
  const firstRule = useRef<HTMLInputElement>(null);
  const feedbackBox = useRef<HTMLTextAreaElement>(null);
  const answered = useRef(false);

  // Taken as the dialog is put on the page: a passive effect runs a task
  // later, and would take back the focus (and the choice) of a key pressed
  // in between.
  useLayoutEffect(() => {
    onOpen(document.activeElement);
    buttons.current.allow_once?.focus();
    // Once, when the dialog opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const cleanRules = rules.map((r) => r.trim()).filter((r) => r.length > 0);

  const answer = (option: Option) => {
    if (answered.current) return;
    let value: PermissionAnswer;
    switch (option) {
      case "allow_once":
        value = { kind: "allow_once" };
        break;
      case "allow_for_session":
        value = { kind: "allow_for_session" };
        break;
      case "always_allow":
        if (cleanRules.length === 0) return;
        value = { kind: "always_allow", rules: cleanRules, destination };
        break;
      case "deny":
        value = { kind: "deny", feedback: feedback.trim() ? feedback.trim() : null };
        break;
    }
    answered.current = true;
    onAnswer(request.toolUseId, value);
  };

  const pick = (option: Option) => {
    setSelected(option);
    if (option === "always_allow") firstRule.current?.focus();
    else if (option === "deny") feedbackBox.current?.focus();
    else buttons.current[option]?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    // Nothing typed here reaches the session screen (Shift+Tab, Esc…).
    e.stopPropagation();
    const target = e.target as HTMLElement;
    const typing = target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT";
    if (e.key === "Tab") {
      const items = Array.from(root.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? []);
      if (items.length === 0) return;
      const at = items.indexOf(document.activeElement as HTMLElement);
      const next = e.shiftKey ? (at <= 0 ? items.length - 1 : at - 1) : at === items.length - 1 ? 0 : at + 1;
      e.preventDefault();
      items[next]?.focus();
      return;
    }
    if (e.key === "Escape") {
      e.preventDefault();
      answer("deny");
      return;
    }
    if (e.key === "Enter") {
      if (target.tagName === "TEXTAREA" && e.shiftKey) return;
      e.preventDefault();
      if (target === feedbackBox.current) answer("deny");
      // A rule or the destination menu: "always allow" with them.
      else if (target.tagName === "INPUT" || target.tagName === "SELECT") answer("always_allow");
      else answer(selected);
      return;
    }
    if (typing) return;
    if (e.key >= "1" && e.key <= "4") {
      e.preventDefault();
      const option = OPTIONS[Number(e.key) - 1] as Option;
      if (option === "allow_once" || option === "allow_for_session") answer(option);
      else pick(option);
      return;
    }
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const at = OPTIONS.indexOf(selected);
      const next = OPTIONS[(at + (e.key === "ArrowDown" ? 1 : OPTIONS.length - 1)) % OPTIONS.length] as Option;
      setSelected(next);
      buttons.current[next]?.focus();
    }
  };

  const answerProps = {
    selected,
    onSelect: setSelected,
    onAnswer: answer,
    register: (option: Option, el: HTMLButtonElement | null) => {
      buttons.current[option] = el;
    },
  };
  const command = request.toolName === "Bash" ? field(request.input, "command") : null;
  return (
    <div className="modal-backdrop">
      <div
        ref={root}
        className="modal permission-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="permission-title"
        data-testid="permission-modal"
        data-tool-use-id={request.toolUseId}
        onKeyDown={onKeyDown}
      >
        <header className="modal-head">
          <ShieldAlert size={18} aria-hidden="true" />
          <h2 id="permission-title">
            Allow <ToolIcon kind={toolKind(request.toolName)} /> {request.toolName}?
          </h2>
          {queued > 1 && (
            <span className="pill" data-testid="permission-queue">
              1 of {queued}
            </span>
          )}
        </header>
        <div className="modal-body">
          {origin !== null && (
            <p className="perm-agent" data-testid="permission-origin">
              <SquareTerminal size={14} aria-hidden="true" />
              <span>{origin}</span>
            </p>
          )}
          {request.agent !== null && (
            <p className="perm-agent" data-testid="permission-agent" data-agent-session-id={request.agent.agent_session_id} data-subagent-type={request.agent.subagent_type}>
              <Bot size={14} aria-hidden="true" />
              <span>
                Asked by the sub-agent <strong>{request.agent.subagent_type}</strong>
                {request.agent.description !== "" && <>: {request.agent.description}</>}
              </span>
            </p>
          )}
          {request.webHost !== null && (
            <p className="perm-host" data-testid="permission-web-host">
              Host <strong className="mono">{request.webHost}</strong>
            </p>
          )}
          {command !== null ? (
            <pre className="bash-command">
              <span className="prompt-sign">$ </span>
              {command}
            </pre>
          ) : request.preview ? (
            <DiffView diff={request.preview} />
          ) : (
            <pre className="json">{prettyJson(request.input)}</pre>
          )}
          <details className="why-ask" data-testid="why-ask">
            <summary>Why am I asked?</summary>
            <ReasonAndTrace reason={request.reason} trace={request.trace} />
          </details>
        </div>
        <div className="modal-answers" role="radiogroup" aria-label="Answer">
          <AnswerButton option="allow_once" testId="permission-allow-once" shortcut="1" label="Allow once" {...answerProps} />
          <AnswerButton option="allow_for_session" testId="permission-allow-session" shortcut="2" label="Allow for this session" {...answerProps} />
          <div className={`answer-block ${selected === "always_allow" ? "selected" : ""}`}>
            <AnswerButton option="always_allow" testId="permission-always-allow" shortcut="3" label={request.webHost !== null ? `Always allow domain:${request.webHost}` : "Always allow"} disabled={cleanRules.length === 0} {...answerProps} />
            <div className="rule-editor">
              {rules.map((rule, i) => (
                <input
                  key={i}
                  ref={i === 0 ? firstRule : undefined}
                  className="mono"
                  aria-label={`Rule ${i + 1}`}
                  data-testid="permission-rule"
                  value={rule}
                  onFocus={() => setSelected("always_allow")}
                  onChange={(e) => setRules(rules.map((r, j) => (j === i ? e.target.value : r)))}
                />
              ))}
              <label className="small">
                Save to{" "}
                <select
                  value={destination}
                  data-testid="permission-destination"
                  onFocus={() => setSelected("always_allow")}
                  onChange={(e) => changeDestination(e.target.value as RuleSource)}
                >
                  {destinations.map((d) => (
                    <option key={d.source} value={d.source}>
                      {DESTINATION_LABELS[d.source] ?? d.source} ({d.path})
                    </option>
                  ))}
                </select>
              </label>
              {destination !== "user" && (
                <p className="small muted" data-testid="permission-destination-trust">
                  Saving into this project&apos;s settings trusts the project: from then on its own settings apply in full — allow rules, hooks that run commands, MCP servers, agents and skills.
                </p>
              )}
            </div>
          </div>
          <div className={`answer-block ${selected === "deny" ? "selected" : ""}`}>
            <AnswerButton option="deny" testId="permission-deny" shortcut="4" label="Deny" {...answerProps} />
            <textarea
              ref={feedbackBox}
              rows={1}
              placeholder="Optional: tell the model what to do instead"
              data-testid="permission-deny-feedback"
              value={feedback}
              onFocus={() => setSelected("deny")}
              onChange={(e) => setFeedback(e.target.value)}
            />
          </div>
        </div>
        <footer className="modal-foot muted small">1–4 choose · ↑↓ move · Enter confirm · Esc deny</footer>
      </div>
    </div>
  );
}

/** The rules "always allow" offers for `destination`: absolute paths for the user's file. */
export function suggestedFor(request: PermissionRequest, destination: RuleSource): string[] {
  const user = request.userSuggestions.length === request.suggestions.length ? request.userSuggestions : [];
  const rules = destination === "user" && user.length > 0 ? user : request.suggestions;
  return rules.length > 0 ? rules : [request.toolName];
}

function sameRules(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}

/** One answer: a radio-like button with its shortcut. */
function AnswerButton({
  option,
  testId,
  shortcut,
  label,
  disabled = false,
  selected,
  onSelect,
  onAnswer,
  register,
}: {
  option: Option;
  testId: string;
  shortcut: string;
  label: string;
  disabled?: boolean;
  selected: Option;
  onSelect(option: Option): void;
  onAnswer(option: Option): void;
  register(option: Option, el: HTMLButtonElement | null): void;
}) {
  return (
    <button
      type="button"
      ref={(el) => register(option, el)}
      className={`answer ${option === "deny" ? "deny" : ""} ${selected === option ? "selected" : ""}`}
      aria-checked={selected === option}
      role="radio"
      disabled={disabled}
      data-testid={testId}
      onFocus={() => onSelect(option)}
      onClick={() => onAnswer(option)}
    >
      <kbd>{shortcut}</kbd> {label}
    </button>
  );
}
