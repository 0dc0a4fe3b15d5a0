// Adding or editing one rule: the text with live validation (the parser's
// error, its position highlighted), tool-name completion, the list and the
// destination, and a preview (matching project files / example commands).

import type { RuleList, RuleValidation } from "../generated/protocol";
import { TargetOptions } from "./TargetOptions";
import { LISTS, type Target, completions, splitAtSpan } from "./model";
import type { RuleForm as Form } from "./state";

interface Props {
  form: Form;
  targets: Target[];
  toolNames: string[];
  onChange(patch: Partial<Pick<Form, "text" | "list" | "target">>): void;
  onSubmit(): void;
  onCancel(): void;
}

export function RuleForm({ form, targets, toolNames, onChange, onSubmit, onCancel }: Props) {
  const v = form.validation;
  const checking = form.text.trim() !== "" && v === null;
  const valid = v !== null && v.error === null;
  const suggestions = completions(form.text, toolNames);
  return (
    <form
      className="rule-form"
      data-testid="rule-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <div className="rule-form-row">
        <input
          className="mono rule-input"
          data-testid="rule-input"
          aria-label="Rule"
          aria-invalid={v?.error ? true : undefined}
          placeholder="Bash(npm test:*), Read(./secrets/**), WebFetch(domain:example.com)…"
          value={form.text}
          list="rule-tool-names"
          onChange={(e) => onChange({ text: e.target.value })}
        />
        <datalist id="rule-tool-names">
          {suggestions.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <select
          data-testid="rule-list-select"
          aria-label="List"
          value={form.list}
          onChange={(e) => onChange({ list: e.target.value as RuleList })}
        >
          {LISTS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
        <select
          data-testid="rule-target-select"
          aria-label="Destination"
          value={form.target}
          onChange={(e) => onChange({ target: e.target.value })}
        >
          <TargetOptions targets={targets} />
        </select>
        <button type="submit" data-testid="rule-add" disabled={!valid || form.target === ""}>
          {form.editingId === null ? "Add" : "Update"}
        </button>
        {form.editingId !== null && (
          <button type="button" data-testid="rule-cancel-edit" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {suggestions.length > 0 && (
        <div className="rule-completions" data-testid="rule-completions">
          {suggestions.map((t) => (
            <button key={t} type="button" className="chip mono" onClick={() => onChange({ text: t })}>
              {t}
            </button>
          ))}
        </div>
      )}
      {checking && <div className="muted">Checking…</div>}
      {v && <ValidationView text={form.text} validation={v} />}
    </form>
  );
}

function ValidationView({ text, validation }: { text: string; validation: RuleValidation }) {
  if (validation.error) {
    const [before, marked, after] = splitAtSpan(text, validation.error.start, validation.error.end);
    return (
      <div className="rule-error" data-testid="rule-error" role="alert">
        <div className="mono rule-error-text">
          {before}
          <mark data-testid="rule-error-mark">{marked}</mark>
          {after}
        </div>
        <div>
          {validation.error.message} (character {validation.error.column})
        </div>
      </div>
    );
  }
  return (
    <div className="rule-ok" data-testid="rule-ok">
      <span>Valid rule for {validation.tool}.</span>
      {validation.path_preview && (
        <div data-testid="rule-path-preview">
          {validation.path_preview.matches.length === 0
            ? `No project file matches (${validation.path_preview.scanned} looked at).`
            : `Matches ${validation.path_preview.matches.length}${validation.path_preview.truncated ? "+" : ""} of ${validation.path_preview.scanned} project files:`}
          <ul className="mono">
            {validation.path_preview.matches.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </div>
      )}
      {validation.bash_examples && (
        <div className="bash-examples" data-testid="rule-bash-examples">
          <div>
            Matches:{" "}
            {validation.bash_examples.matching.map((c) => (
              <code key={c} className="example-match">
                {c}
              </code>
            ))}
          </div>
          <div>
            Does not match:{" "}
            {validation.bash_examples.not_matching.map((c) => (
              <code key={c} className="example-miss">
                {c}
              </code>
            ))}
          </div>
        </div>
      )}
    </div>
  );
}
