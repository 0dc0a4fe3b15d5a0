/**
 * ExitPlanMode's approval dialog: the plan rendered as Markdown and three
 * answers. Keys: 1 approve and continue in default mode, 2 approve with
 * acceptEdits (file edits run unasked), 3 keep planning (focuses the
 * feedback box; Enter sends it, Shift+Enter is a new line), Esc keeps
 * planning. Nothing typed here reaches the session screen.
 *
 * Test ids: plan-modal (data-tool-use-id) · plan-body · plan-approve-default
 * · plan-approve-accept-edits · plan-keep-planning · plan-feedback.
 */

import { ClipboardCheck } from "lucide-react";
import { useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";

import type { InteractionReply } from "../generated/protocol";
import { Markdown } from "./Markdown";

export function PlanApprovalModal({
  toolUseId,
  plan,
  onReply,
}: {
  toolUseId: string;
  plan: string;
  onReply(toolUseId: string, reply: InteractionReply): void;
}) {
  const [feedback, setFeedback] = useState("");
  const root = useRef<HTMLDivElement>(null);
  const approve = useRef<HTMLButtonElement>(null);
  const feedbackBox = useRef<HTMLTextAreaElement>(null);
  const sent = useRef(false);

  // As the permission modal: focus taken at commit, not a task later.
  useLayoutEffect(() => {
    approve.current?.focus();
  }, []);

  const reply = (value: InteractionReply) => {
    if (sent.current) return;
    sent.current = true;
    onReply(toolUseId, value);
  };
  const keepPlanning = () => reply({ kind: "keep_planning", feedback: feedback.trim() ? feedback.trim() : null });

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    e.stopPropagation();
    const typing = e.target === feedbackBox.current;
    if (e.key === "Escape") {
      e.preventDefault();
      keepPlanning();
      return;
    }
    if (typing) {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        keepPlanning();
      }
      return;
    }
    if (e.key === "1") {
      e.preventDefault();
      reply({ kind: "plan_approved", mode: "default" });
    } else if (e.key === "2") {
      e.preventDefault();
      reply({ kind: "plan_approved", mode: "acceptEdits" });
    } else if (e.key === "3") {
      e.preventDefault();
      feedbackBox.current?.focus();
    }
  };

  return (
    <div className="modal-backdrop">
      <div
        ref={root}
        className="modal plan-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="plan-title"
        data-testid="plan-modal"
        data-tool-use-id={toolUseId}
        onKeyDown={onKeyDown}
      >
        <header className="modal-head">
          <ClipboardCheck size={18} aria-hidden="true" />
          <h2 id="plan-title">Approve this plan?</h2>
        </header>
        <div className="modal-body plan-body" data-testid="plan-body">
          <Markdown text={plan} />
        </div>
        <div className="modal-answers" aria-label="Answer">
          <button
            ref={approve}
            type="button"
            className="answer"
            data-testid="plan-approve-default"
            onClick={() => reply({ kind: "plan_approved", mode: "default" })}
          >
            <kbd>1</kbd> Approve, and ask before edits (default mode)
          </button>
          <button
            type="button"
            className="answer"
            data-testid="plan-approve-accept-edits"
            onClick={() => reply({ kind: "plan_approved", mode: "acceptEdits" })}
          >
            <kbd>2</kbd> Approve, and accept edits without asking (acceptEdits)
          </button>
          <div className="answer-block">
            <button type="button" className="answer deny" data-testid="plan-keep-planning" onClick={keepPlanning}>
              <kbd>3</kbd> Keep planning
            </button>
            <textarea
              ref={feedbackBox}
              rows={2}
              placeholder="Optional: what should the plan change?"
              data-testid="plan-feedback"
              value={feedback}
              onChange={(e) => setFeedback(e.target.value)}
            />
          </div>
        </div>
        <footer className="modal-foot muted small">1 approve · 2 approve with acceptEdits · 3 keep planning · Esc keep planning</footer>
      </div>
    </div>
  );
}
