import { memo } from "react";

import type { DecisionReason, NotAppliedRule, TraceStep } from "../../generated/protocol";
import { describeReason } from "../format";
import { resultText, type ToolCall } from "../model";

/** "allowed by `.claude/settings.local.json` — not applied: project not trusted", from the typed fields. */
export function notApplied(rule: NotAppliedRule): string {
  const file = rule.file ? rule.file.replace(/:\d+:\d+$/, "") : rule.source;
  const why = rule.why === "project_not_trusted" ? "project not trusted" : "managed policy allows only its own rules";
  return `\`${rule.rule}\` allowed by ${file} — not applied: ${why}`;
}

/** Every layer the permission engine consulted, in order. */
export function TraceList({ trace }: { trace: readonly TraceStep[] }) {
  return (
    <ol className="trace" data-testid="decision-trace">
      {trace.map((step, i) => (
        <li key={i} className={`trace-${step.outcome}`} data-not-applied={step.not_applied?.why}>
          <span className="trace-layer mono">{step.layer}</span>
          <span className={`trace-outcome outcome-${step.outcome}`}>{step.outcome}</span>
          <span className="trace-detail">{step.not_applied ? notApplied(step.not_applied) : step.detail}</span>
        </li>
      ))}
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
          <summary>Decision trace ({trace.length} layer{trace.length === 1 ? "" : "s"})</summary>
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
          <ReasonAndTrace reason={call.decision.reason} trace={call.decision.trace} collapsed />
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
  if (call.status === "interrupted" || call.status === "cancelled") {
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
