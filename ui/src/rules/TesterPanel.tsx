// The tester: a tool call and a mode, decided live with the edited rules
// (unsaved edits included), with the decision's reason and full trace.

import type { PermissionMode } from "../generated/protocol";
import { MODE_LABELS, MODES } from "../session/modes";
import { ReasonAndTrace } from "../session/renderers/RefusalView";
import { sampleInput } from "./model";
import { StoredCallPicker } from "./StoredCallPicker";
import type { TesterState } from "./state";

interface Props {
  tester: TesterState;
  toolNames: string[];
  projectPath: string;
  onChange(patch: Partial<Pick<TesterState, "tool" | "input" | "mode">>): void;
}

export function TesterPanel({ tester, toolNames, projectPath, onChange }: Props) {
  return (
    <section className="rules-panel tester" data-testid="rule-tester">
      <h3>Tester</h3>
      <div className="tester-row">
        <input
          className="mono"
          data-testid="tester-tool"
          aria-label="Tool"
          list="tester-tool-names"
          value={tester.tool}
          onChange={(e) => onChange({ tool: e.target.value })}
        />
        <datalist id="tester-tool-names">
          {toolNames.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <select
          data-testid="tester-mode"
          aria-label="Mode"
          value={tester.mode}
          onChange={(e) => onChange({ mode: e.target.value as PermissionMode })}
        >
          {MODES.map((m) => (
            <option key={m} value={m}>
              {MODE_LABELS[m]}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => onChange({ input: sampleInput(tester.tool, projectPath) })}>
          Sample input
        </button>
      </div>
      <StoredCallPicker
        projectPath={projectPath}
        onPick={(call) => onChange({ tool: call.name, input: JSON.stringify(call.input, null, 2) })}
      />
      <textarea
        className="mono"
        data-testid="tester-input"
        aria-label="Tool input (JSON)"
        rows={4}
        value={tester.input}
        onChange={(e) => onChange({ input: e.target.value })}
      />
      {tester.error !== null && (
        <p className="error" data-testid="tester-error">
          {tester.error}
        </p>
      )}
      {tester.decision && (
        <div className="tester-result" data-testid="tester-result">
          <span
            className={`verdict verdict-${tester.decision.decision}`}
            data-testid="tester-decision"
            data-decision={tester.decision.decision}
          >
            {tester.decision.decision}
          </span>
          <ReasonAndTrace reason={tester.decision.reason} trace={tester.decision.trace} />
        </div>
      )}
    </section>
  );
}
