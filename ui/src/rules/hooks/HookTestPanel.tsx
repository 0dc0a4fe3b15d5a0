// The form's Test: a sample call (typed, or picked from a stored session)
// run through the hook as a session would, and what came back.

import type { HookTestResult } from "../../generated/protocol";
import { StoredCallPicker } from "../StoredCallPicker";
import type { HookTestState } from "./state";
import { VERDICT_LABELS, exitText, verdictOf } from "./model";

interface Props {
  test: HookTestState;
  projectPath: string;
  onChange(patch: Partial<Pick<HookTestState, "tool" | "input">>): void;
  onRun(): void;
}

export function HookTestPanel({ test, projectPath, onChange, onRun }: Props) {
  return (
    <div className="hook-test" data-testid="hook-test">
      <h4>Test with a sample call</h4>
      <div className="tester-row">
        <input
          className="mono"
          data-testid="hook-test-tool"
          aria-label="Sample call's tool"
          value={test.tool}
          onChange={(e) => onChange({ tool: e.target.value })}
        />
        <button type="button" data-testid="hook-test-run" disabled={test.running} onClick={onRun}>
          {test.running ? "Running…" : "Test"}
        </button>
      </div>
      <StoredCallPicker
        projectPath={projectPath}
        onPick={(call) => onChange({ tool: call.name, input: JSON.stringify(call.input, null, 2) })}
      />
      <textarea
        className="mono"
        data-testid="hook-test-input"
        aria-label="Sample call's input (JSON)"
        rows={3}
        value={test.input}
        onChange={(e) => onChange({ input: e.target.value })}
      />
      {test.error !== null && (
        <p className="error" data-testid="hook-test-error">
          {test.error}
        </p>
      )}
      {test.result && <HookTestResultView result={test.result} />}
    </div>
  );
}

function Stream({ label, text, testId }: { label: string; text: string; testId: string }) {
  return (
    <div className="hook-stream">
      <div className="small muted">{label}</div>
      <pre className="mono small" data-testid={testId}>
        {text === "" ? "(empty)" : text}
      </pre>
    </div>
  );
}

export function HookTestResultView({ result }: { result: HookTestResult }) {
  const verdict = verdictOf(result);
  const o = result.outcome;
  return (
    <div className="hook-test-result" data-testid="hook-test-result" data-verdict={verdict}>
      <p>
        <span className={`verdict verdict-${verdict}`} data-testid="hook-test-verdict">
          {VERDICT_LABELS[verdict]}
        </span>{" "}
        <span data-testid="hook-test-exit">{exitText(result)}</span>, {result.duration_ms} ms
      </p>
      {o.message !== null && <p data-testid="hook-test-message">{o.message}</p>}
      {o.error !== null && <p className="error">{o.error}</p>}
      {o.additional_context !== null && <p>Context for the model: {o.additional_context}</p>}
      {o.system_message !== null && <p>Message: {o.system_message}</p>}
      {o.updated_input !== null && <Stream label="Rewritten input" text={JSON.stringify(o.updated_input, null, 2)} testId="hook-test-updated" />}
      <Stream label="stdin" text={result.stdin} testId="hook-test-stdin" />
      <Stream label="stdout" text={result.stdout} testId="hook-test-stdout" />
      <Stream label="stderr" text={result.stderr} testId="hook-test-stderr" />
    </div>
  );
}
