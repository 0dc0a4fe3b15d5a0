/**
 * SessionScreen — a live (or stored) session rendered from its event stream.
 *
 * Props (the contract with SessionView, which owns the backend side):
 *   handle        the open session (`SessionHandle`): its mode and session
 *                 rules at the time it was opened
 *   events        every event of the session so far, oldest first; the list
 *                 may only grow (appending is O(new events)); a list that is
 *                 not an extension of the previous one is folded afresh
 *   running       whether an exchange is in progress (interrupt enabled)
 *   onPrompt      the user sent a prompt (Enter, or the send button)
 *   onInterrupt   the interrupt button, or Esc while running
 *   onModeChange  Shift+Tab, or a click on the mode indicator: the next mode
 *                 of default → acceptEdits → plan → default (Claude Code's
 *                 cycle; from bypassPermissions or dontAsk it goes to default);
 *                 or any mode picked in the mode menu (bypassPermissions
 *                 after its confirmation, never when the handle's
 *                 bypass_disabled is set)
 *   onAnswer      the answer to a permission request, as `PermissionAnswer`
 *   onReply       the reply to a question (AskUserQuestion) or a plan
 *                 (ExitPlanMode), as `InteractionReply`
 *
 * Test ids (the e2e suite relies on exactly these):
 *   session-screen (root) · prompt-input (textarea) · prompt-send ·
 *   interrupt-button · mode-indicator (data-mode = the mode) and the mode
 *   menu (ModeMenu: mode-menu-toggle, mode-menu, mode-option, bypass-confirm) ·
 *   assistant-text (each assistant text block) ·
 *   tool-call (data-tool-name, data-tool-use-id, data-status ∈ queued |
 *     running | waiting_permission | completed | error | denied | interrupted)
 *   · bash-output (Bash live output) · diff (Edit/Write diff) ·
 *   tool-group (collapsed by default; data-count) + tool-group-toggle ·
 *   permission-modal with permission-allow-once, permission-allow-session,
 *     permission-always-allow, permission-deny, permission-deny-feedback ·
 *   batch-timeline with timeline-bar · session-rules ·
 *   transcript (the scroller; data-following) · task-panel · todo-panel
 *   (TodoPanel) · task (TaskPanel: task-stop, task-output, task-exit,
 *   task-open-output) · question-modal (QuestionModal) · plan-modal
 *   (PlanApprovalModal).
 * The transcript is virtualised and follows the newest rows while the user
 * is at the bottom; scroll `transcript` to reach older rows.
 */

import { Send, Square } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from "react";

import type { Event, InteractionReply, PermissionAnswer, PermissionMode, SessionHandle } from "../generated/protocol";
import { formatBytes } from "./format";
import { listSubagents, subagentTask, treePendingRequests } from "./agents";
import { AgentsContext, type AgentsView } from "./agentsContext";
import { ModeMenu } from "./ModeMenu";
import { nextMode } from "./modes";
import { PermissionModal } from "./PermissionModal";
import { PlanApprovalModal } from "./PlanApprovalModal";
import { QuestionModal } from "./QuestionModal";
import { SubagentsPanel } from "./renderers/SubagentsPanel";
import { TaskPanel } from "./renderers/TaskPanel";
import { TodoPanel } from "./renderers/TodoPanel";
import { SessionHooks } from "./SessionHooks";
import { SandboxNotice } from "./SandboxNotice";
import { UnavailableTools } from "./UnavailableTools";
import { Spinner } from "./Status";
import { ToolBlockBadge } from "./renderers/ToolBlockBadge";
import { ModelStore } from "./store";
import { currentTodos, TalkbackStore } from "./talkback";
import { Transcript } from "./Transcript";
import "./session.css";

/** The props SessionView passes. */
export interface SessionScreenProps {
  handle: SessionHandle;
  events: Event[];
  running: boolean;
  onPrompt(text: string): void;
  onInterrupt(): void;
  onModeChange(mode: PermissionMode): void;
  onAnswer(toolUseId: string, answer: PermissionAnswer): void;
  /** Stops a background task (the tasks and sub-agents panels' Stop). */
  onStopTask?: ((taskId: string) => void) | undefined;
  /** Opens a background task's whole output file (the tasks panel). */
  onOpenTaskOutput?: ((taskId: string) => void) | undefined;
  onReply?(toolUseId: string, reply: InteractionReply): void;
}

export { MODE_CYCLE, nextMode } from "./modes";

/** "anthropic · claude-sonnet-4-5"; the replay provider's model is its own name: said once. */
export function providerLine(provider: string, modelName: string | null): string {
  return modelName === null || modelName === "" || modelName === provider ? provider : `${provider} · ${modelName}`;
}

/** Whether a key event is Shift+Tab. By the physical key too: where the
 * keymap has no keysym for Shift+Tab (ISO_Left_Tab), WebKitGTK reports the
 * key "Unidentified". */
function isShiftTab(e: { key: string; code: string; shiftKey: boolean }): boolean {
  return (e.key === "Tab" || e.code === "Tab") && e.shiftKey;
}

function PromptBox({
  running,
  disabled,
  inputRef,
  onPrompt,
  onCycleMode,
}: {
  running: boolean;
  /** A permission prompt is open: nothing typed may land here. */
  disabled: boolean;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  onPrompt(text: string): void;
  onCycleMode(): void;
}) {
  const [text, setText] = useState("");
  const send = () => {
    const t = text.trim();
    if (!t || running) return;
    onPrompt(t);
    setText("");
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Shift+Tab cycles the mode only here, as in Claude Code; elsewhere it
    // moves focus backwards as usual.
    if (isShiftTab(e)) {
      e.preventDefault();
      onCycleMode();
      return;
    }
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };
  return (
    <div className="prompt-box">
      <textarea
        ref={inputRef}
        data-testid="prompt-input"
        aria-label="Prompt"
        rows={2}
        disabled={disabled}
        placeholder={
          disabled
            ? "Answer the permission prompt first"
            : running
              ? "Working… (Esc to interrupt)"
              : "Ask for something. Enter sends, Shift+Enter adds a line, Shift+Tab changes the mode"
        }
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <button type="button" className="primary" data-testid="prompt-send" disabled={disabled || running || text.trim().length === 0} onClick={send}>
        <Send size={16} aria-hidden="true" /> Send
      </button>
    </div>
  );
}

/** A live session: transcript, prompt, mode, interrupt, permissions, rules, tasks. */
export function SessionScreen({
  handle,
  events,
  running,
  onPrompt,
  onInterrupt,
  onModeChange,
  onAnswer,
  onStopTask,
  onOpenTaskOutput,
  onReply,
}: SessionScreenProps) {
  // The session is the first event's (its sub-agents' events come after their Agent calls).
  const [store] = useState(() => new ModelStore());
  const model = store.sync(events);
  const [talkbackStore] = useState(() => new TalkbackStore());
  const talkback = talkbackStore.sync(events);
  const version = model.version;
  // The session with its sub-agents; its version counts their events too.
  const tree = store.tree;
  const treeVersion = tree.version;

  // The mode: the handle's, until a mode_changed arrives after opening; a
  // Shift+Tab shows the requested mode until the backend confirms a change.
  const confirmed =
    model.mode !== null && model.modeEventIndex !== null && model.modeEventIndex >= store.initialCount ? model.mode : handle.mode;
  const [requested, setRequested] = useState<{ mode: PermissionMode; basis: number | null } | null>(null);
  const mode = requested && requested.basis === model.modeEventIndex ? requested.mode : confirmed;

  const pickMode = useCallback(
    (next: PermissionMode) => {
      setRequested({ mode: next, basis: model.modeEventIndex });
      onModeChange(next);
    },
    [model.modeEventIndex, onModeChange],
  );
  const cycleMode = useCallback(() => pickMode(nextMode(mode)), [mode, pickMode]);

  // Answers sent but not yet acknowledged by a permission_answered event.
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const pending = treePendingRequests(tree).filter((r) => !answered.has(r.toolUseId));
  const answer = useCallback(
    (toolUseId: string, value: PermissionAnswer) => {
      setAnswered((prev) => new Set(prev).add(toolUseId));
      onAnswer(toolUseId, value);
    },
    [onAnswer],
  );
  // Questions and plans, after the permission prompts.
  const [replied, setReplied] = useState<ReadonlySet<string>>(new Set());
  const interactions = talkback.pending.filter((p) => !replied.has(p.toolUseId) && !pending.some((r) => r.toolUseId === p.toolUseId));
  const interaction = pending.length === 0 ? interactions[0] : undefined;
  const reply = useCallback(
    (toolUseId: string, value: InteractionReply) => {
      setReplied((prev) => new Set(prev).add(toolUseId));
      onReply?.(toolUseId, value);
    },
    [onReply],
  );
  const todos = currentTodos(talkback);
  const modalOpen = pending.length > 0 || interactions.length > 0;

  // When the last prompt closes and focus went nowhere (the prompt box was
  // disabled while it was open), it goes back to the prompt box.
  const promptInput = useRef<HTMLTextAreaElement>(null);
  const wasOpen = useRef(modalOpen);
  useEffect(() => {
    if (wasOpen.current && !modalOpen) {
      const active = document.activeElement;
      if (active === null || active === document.body) promptInput.current?.focus();
    }
    wasOpen.current = modalOpen;
  }, [modalOpen]);

  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const toggleGroup = useCallback((key: string) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  }, []);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (modalOpen || e.defaultPrevented) return;
      if (e.key === "Escape" && running) {
        e.preventDefault();
        onInterrupt();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [modalOpen, running, onInterrupt]);

  const rules = useMemo(() => {
    const all = [...handle.session_rules];
    for (const r of model.sessionRules) if (!all.includes(r)) all.push(r);
    return all;
    // model.sessionRules is replaced when it changes.
  }, [handle.session_rules, model.sessionRules]);
  const tasks = useMemo(() => [...model.tasks.values()], [model.tasks, version]); // eslint-disable-line react-hooks/exhaustive-deps -- tasks is updated in place; version says when
  const subagents = useMemo(
    () => listSubagents(tree).map((agent) => ({ agent, taskId: subagentTask(tree, agent) })),
    [tree, treeVersion], // eslint-disable-line react-hooks/exhaustive-deps -- the tree is updated in place; its version says when
  );
  const agentsView = useMemo<AgentsView>(
    () => ({ tree, version: treeVersion, expanded, onToggle: toggleGroup }),
    [tree, treeVersion, expanded, toggleGroup],
  );

  const tokens = model.usage.input + model.usage.output + model.usage.cacheRead + model.usage.cacheWrite;
  return (
    <div className="session-screen" data-testid="session-screen" data-session-id={handle.session_id}>
      <header className="session-bar">
        {/* The project is named in the view's header above; here, what answers. */}
        <div className="session-title" title={handle.project_path}>
          {model.provider && (
            <span className="muted small" data-testid="session-provider">
              {providerLine(model.provider, model.modelName)}
            </span>
          )}
        </div>
        <div className="session-status">
          {running && (
            <span className="working" data-testid="working">
              <Spinner /> Working
            </span>
          )}
          <ToolBlockBadge block={model.toolBlock} />
          {tokens > 0 && (
            <span className="muted small" title="Tokens: input, output, cache read, cache write">
              {formatBytes(tokens).replace("B", "tok")}
            </span>
          )}
          <ModeMenu mode={mode} bypassDisabled={handle.bypass_disabled ?? false} onCycle={cycleMode} onPick={pickMode} />
          <button type="button" className="interrupt" data-testid="interrupt-button" disabled={!running} onClick={onInterrupt} title="Interrupt (Esc)">
            <Square size={14} aria-hidden="true" /> Interrupt
          </button>
        </div>
      </header>
      <div className="session-body">
        <AgentsContext.Provider value={agentsView}>
          <Transcript model={model} version={treeVersion} expandedGroups={expanded} onToggleGroup={toggleGroup} />
        </AgentsContext.Provider>
        <aside className="session-side">
          <section className="panel" data-testid="session-rules" aria-label="Session rules">
            <h3>Session rules</h3>
            {rules.length === 0 ? (
              <p className="muted small">None yet. “Allow for this session” adds one.</p>
            ) : (
              <ul className="rule-list">
                {rules.map((rule) => (
                  <li key={rule} className="mono small" data-testid="session-rule">
                    {rule}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <SubagentsPanel rows={subagents} onStop={onStopTask} />
          <SessionHooks hooks={model.hooksLoaded} />
          <SandboxNotice unavailable={model.sandboxUnavailable} problems={model.sandboxProblems} />
          <UnavailableTools tools={model.unavailableTools} />
          <TodoPanel todos={todos} />
          <TaskPanel tasks={tasks} onStop={onStopTask} onOpenOutput={onOpenTaskOutput} />
        </aside>
      </div>
      <footer className="session-foot">
        <PromptBox running={running} disabled={modalOpen} inputRef={promptInput} onPrompt={onPrompt} onCycleMode={cycleMode} />
      </footer>
      <PermissionModal requests={pending} destinations={handle.rule_files} onAnswer={answer} />
      {interaction?.interaction.kind === "questions" && (
        <QuestionModal key={interaction.toolUseId} toolUseId={interaction.toolUseId} questions={interaction.interaction.questions} onReply={reply} />
      )}
      {interaction?.interaction.kind === "plan_approval" && (
        <PlanApprovalModal key={interaction.toolUseId} toolUseId={interaction.toolUseId} plan={interaction.interaction.plan} onReply={reply} />
      )}
    </div>
  );
}
