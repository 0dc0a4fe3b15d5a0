/**
 * AskUserQuestion's modal: one question at a time, keyboard-first.
 *
 * Keys: 1–N pick an option (a multiSelect question toggles it), N+1 is
 * "Other" (focuses its text box), Enter confirms the question (the last one
 * sends every answer), Esc dismisses the questions unanswered. Clicks do
 * the same. Nothing typed here reaches the session screen.
 *
 * Test ids: question-modal (data-tool-use-id, data-step) · question-header ·
 * question-option (data-index from 1, data-selected) · question-other ·
 * question-other-input · question-confirm · question-dismiss.
 */

import { MessageCircleQuestionMark } from "lucide-react";
import { useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";

import type { InteractionReply, Question, QuestionAnswer } from "../generated/protocol";

/** What the user has picked for one question. */
interface Draft {
  selected: string[];
  other: string | null;
}

/** The answer a draft makes, or null when it answers nothing yet. */
export function draftAnswer(question: Question, draft: Draft): QuestionAnswer | null {
  const other = draft.other?.trim() ? draft.other.trim() : null;
  if (!question.multiSelect && other !== null) return { header: question.header, selected: [], other };
  if (draft.selected.length === 0 && other === null) return null;
  return { header: question.header, selected: draft.selected, other };
}

/** A draft after key/click `index` (1-based; options.length + 1 is Other). */
export function pickOption(question: Question, draft: Draft, index: number): Draft {
  const option = question.options[index - 1];
  if (!option) return { selected: question.multiSelect ? draft.selected : [], other: draft.other ?? "" };
  if (!question.multiSelect) return { selected: [option.label], other: null };
  const has = draft.selected.includes(option.label);
  const selected = has ? draft.selected.filter((l) => l !== option.label) : [...draft.selected, option.label];
  // Keep the options' order, whatever order they were picked in.
  return { selected: question.options.map((o) => o.label).filter((l) => selected.includes(l)), other: draft.other };
}

export function QuestionModal({
  toolUseId,
  questions,
  onReply,
}: {
  toolUseId: string;
  questions: Question[];
  onReply(toolUseId: string, reply: InteractionReply): void;
}) {
  const [step, setStep] = useState(0);
  const [drafts, setDrafts] = useState<Draft[]>(() => questions.map(() => ({ selected: [], other: null })));
  const root = useRef<HTMLDivElement>(null);
  const otherBox = useRef<HTMLInputElement>(null);
  const sent = useRef(false);
  const question = questions[step];
  const draft = drafts[step] ?? { selected: [], other: null };

  // As the permission modal: focus taken at commit, not a task later.
  useLayoutEffect(() => {
    root.current?.focus();
  }, [step]);

  if (!question) return null;
  const otherIndex = question.options.length + 1;

  const reply = (value: InteractionReply) => {
    if (sent.current) return;
    sent.current = true;
    onReply(toolUseId, value);
  };
  const setDraft = (next: Draft) => setDrafts(drafts.map((d, i) => (i === step ? next : d)));
  const pick = (index: number) => {
    setDraft(pickOption(question, draft, index));
    if (index === otherIndex) setTimeout(() => otherBox.current?.focus(), 0);
  };
  const confirm = () => {
    if (draftAnswer(question, draft) === null) return;
    if (step + 1 < questions.length) {
      setStep(step + 1);
      return;
    }
    const answers = questions.map((q, i) => draftAnswer(q, drafts[i] ?? { selected: [], other: null }));
    if (answers.every((a): a is QuestionAnswer => a !== null)) reply({ kind: "answers", answers });
  };
  const dismiss = () => reply({ kind: "unanswered", reason: "the user closed the question without answering" });

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    e.stopPropagation();
    const typing = e.target === otherBox.current;
    if (e.key === "Escape") {
      e.preventDefault();
      dismiss();
      return;
    }
    if (e.key === "Enter") {
      e.preventDefault();
      confirm();
      return;
    }
    if (typing) return;
    const n = Number(e.key);
    if (Number.isInteger(n) && n >= 1 && n <= otherIndex) {
      e.preventDefault();
      pick(n);
    }
  };

  const ready = draftAnswer(question, draft) !== null;
  const otherOn = draft.other !== null;
  return (
    <div className="modal-backdrop">
      <div
        ref={root}
        tabIndex={-1}
        className="modal question-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="question-title"
        data-testid="question-modal"
        data-tool-use-id={toolUseId}
        data-step={step + 1}
        onKeyDown={onKeyDown}
      >
        <header className="modal-head">
          <MessageCircleQuestionMark size={18} aria-hidden="true" />
          <span className="pill" data-testid="question-header">
            {question.header}
          </span>
          <h2 id="question-title">{question.question}</h2>
          {questions.length > 1 && (
            <span className="pill muted">
              {step + 1} of {questions.length}
            </span>
          )}
        </header>
        <div className="modal-answers" role={question.multiSelect ? "group" : "radiogroup"} aria-label="Options">
          {question.options.map((o, i) => {
            const on = draft.selected.includes(o.label);
            return (
              <button
                key={o.label}
                type="button"
                role={question.multiSelect ? "checkbox" : "radio"}
                aria-checked={on}
                className={`answer ${on ? "selected" : ""}`}
                data-testid="question-option"
                data-index={i + 1}
                data-selected={on}
                onClick={() => pick(i + 1)}
              >
                <kbd>{i + 1}</kbd> <strong>{o.label}</strong> <span className="muted small">{o.description}</span>
              </button>
            );
          })}
          <div className={`answer-block ${otherOn ? "selected" : ""}`}>
            <button
              type="button"
              role={question.multiSelect ? "checkbox" : "radio"}
              aria-checked={otherOn}
              className={`answer ${otherOn ? "selected" : ""}`}
              data-testid="question-other"
              onClick={() => pick(otherIndex)}
            >
              <kbd>{otherIndex}</kbd> Other…
            </button>
            {otherOn && (
              <input
                ref={otherBox}
                aria-label="Other answer"
                data-testid="question-other-input"
                placeholder="Type your own answer"
                value={draft.other ?? ""}
                onChange={(e) => setDraft({ ...draft, other: e.target.value })}
              />
            )}
          </div>
        </div>
        <footer className="modal-foot">
          <span className="muted small">
            1–{otherIndex} {question.multiSelect ? "toggle" : "pick"} · Enter {step + 1 < questions.length ? "next" : "send"} · Esc dismiss
          </span>
          <button type="button" data-testid="question-dismiss" onClick={dismiss}>
            Dismiss
          </button>
          <button type="button" className="primary" data-testid="question-confirm" disabled={!ready} onClick={confirm}>
            {step + 1 < questions.length ? "Next" : "Send answers"}
          </button>
        </footer>
      </div>
    </div>
  );
}
