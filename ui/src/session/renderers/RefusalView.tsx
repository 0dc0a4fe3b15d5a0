import { memo } from "react";

import { plural } from "../../format";
import type { DecisionReason, TraceStep } from "../../generated/protocol";
import { describeReason, traceStepWords } from "../format";
import { resultText, type ToolCall } from "../model";
import "./trace.css";

/** Every layer the permission engine consulted, in order. */
export function TraceList({ trace }: { trace: readonly TraceStep[] }) {
  return (
    <ol className="trace" data-testid="decision-trace">
      {trace.map((step, i) => {
        const words = traceStepWords(step);
        return (
          <li key={i} className={`trace-${step.outcome}`} data-stage={step.stage} data-not-applied={step.not_applied?.why}>
            <span className="trace-layer">{words.stage}:</span>
            <span className={`trace-outcome outcome-${step.outcome}`}>{words.outcome}</span>
            {words.detail !== null && <span className="trace-detail">{words.detail}</span>}
          </li>
        );
      })}
    </ol>
  );
}

/** The reason for a decision and its trace (behind a disclosure when `collapsed`). */
export function ReasonAndTrace({
  reason,
  trace,
  collapsed = false,
}: {
  reason: DecisionReason;
  trace: readonly TraceStep[];
  collapsed?: boolean;
}) {
  return (
    <div className="reason">
      <div className="reason-text">{describeReason(reason)}</div>
      {collapsed ? (
        <details>
          <summary>Decision trace ({plural(trace.length, "step")})</summary>
          <TraceList trace={trace} />
        </details>
      ) : (
        <TraceList trace={trace} />
      )}
    </div>
  );
}

/**
 * Why a call did not run or failed: a denial (the reason and the decision
 * trace, and the feedback given), an input rejection (the stage and what was
 * wrong), an interruption, or the tool's error.
 */
export const RefusalView = memo(function RefusalView({ call }: { call: ToolCall }) {
  if (call.status === "denied") {
    const feedback = call.answer?.kind === "deny" ? call.answer.feedback : null;
    return (
      <div className="refusal" data-testid="refusal">
        <strong>Denied.</strong> {feedback && <span>Feedback to the model: “{feedback}”</span>}
        {call.decision ? (
          // The user's own refusal: its feedback is above, not repeated in the reason.
          <ReasonAndTrace
            reason={call.decision.reason.kind === "user_answer" && feedback ? { kind: "user_answer", answer: "deny" } : call.decision.reason}
            trace={call.decision.trace}
            collapsed
          />
        ) : (
          <div>{resultText(call)}</div>
        )}
      </div>
    );
  }
  if (call.rejection) {
    return (
      <div className="refusal" data-testid="refusal">
        <strong>Rejected ({call.rejection.stage.replace("_", " ")}):</strong> {call.rejection.message}
      </div>
    );
  }
  // Bash says it was interrupted (and why) in its exit line: once is enough.
  if (call.status === "cancelled" || (call.status === "interrupted" && call.kind !== "bash")) {
    return (
      <div className="refusal interrupted" data-testid="refusal">
        {call.interruptMessage ?? (resultText(call).split("\n")[0] || "Stopped before it finished.")}
      </div>
    );
  }
  if (call.status === "error" || call.status === "timed_out") {
    return (
      <div className="refusal" data-testid="refusal">
        <pre className="result-text">{resultText(call)}</pre>
      </div>
    );
  }
  return null;
});
