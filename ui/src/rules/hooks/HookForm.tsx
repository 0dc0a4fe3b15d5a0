// Adding or editing one hook: file, event, matcher, command or URL,
// timeout and `if`; Save writes it (validated by the backend, which names
// the file and entry at fault), Test runs it with a sample call.

import type { ReactNode } from "react";

import type { HookEventName, HookFileView } from "../../generated/protocol";
import { SOURCE_LABELS } from "../model";
import type { HookForm as Form } from "./model";

interface Props {
  form: Form;
  files: HookFileView[];
  events: HookEventName[];
  error: string | null;
  onChange(patch: Partial<Form>): void;
  onSave(): void;
  onCancel(): void;
  children?: ReactNode;
}

export function HookForm({ form, files, events, error, onChange, onSave, onCancel, children }: Props) {
  const editing = form.editing !== null;
  return (
    <section className="rules-panel hook-form" data-testid="hook-form">
      <h3>{editing ? "Edit hook" : "Add a hook"}</h3>
      <div className="hook-form-grid">
        <label>
          Settings file
          <select
            data-testid="hook-form-file"
            value={form.file}
            disabled={editing}
            onChange={(e) => onChange({ file: e.target.value })}
          >
            {files.map((f) => (
              <option key={f.path} value={f.path}>
                {SOURCE_LABELS[f.source]} — {f.path}
              </option>
            ))}
          </select>
        </label>
        <label>
          Event
          <select data-testid="hook-form-event" value={form.event} onChange={(e) => onChange({ event: e.target.value })}>
            {!events.some((e) => e === form.event) && <option value={form.event}>{form.event}</option>}
            {events.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </label>
        <label>
          Matcher
          <input
            className="mono"
            data-testid="hook-form-matcher"
            placeholder="all tools (or Bash, Edit|Write, mcp__.*)"
            value={form.matcher}
            onChange={(e) => onChange({ matcher: e.target.value })}
          />
        </label>
        <label>
          Type
          <select
            data-testid="hook-form-kind"
            value={form.kind}
            onChange={(e) => onChange({ kind: e.target.value === "http" ? "http" : "command" })}
          >
            <option value="command">command</option>
            <option value="http">http</option>
          </select>
        </label>
        {form.kind === "command" ? (
          <label className="hook-form-wide">
            Command (run by sh -c in the project)
            <input
              className="mono"
              data-testid="hook-form-command"
              value={form.command}
              onChange={(e) => onChange({ command: e.target.value })}
            />
          </label>
        ) : (
          <label className="hook-form-wide">
            URL (the same JSON is POSTed)
            <input className="mono" data-testid="hook-form-url" value={form.url} onChange={(e) => onChange({ url: e.target.value })} />
          </label>
        )}
        <label>
          Timeout (s)
          <input
            data-testid="hook-form-timeout"
            inputMode="decimal"
            placeholder="60"
            value={form.timeout}
            onChange={(e) => onChange({ timeout: e.target.value })}
          />
        </label>
        <label>
          If (a permission rule)
          <input
            className="mono"
            data-testid="hook-form-if"
            placeholder="Bash(git *)"
            value={form.ifRule}
            onChange={(e) => onChange({ ifRule: e.target.value })}
          />
        </label>
      </div>
      {error !== null && (
        <p className="error" data-testid="hook-form-error" role="alert">
          {error}
        </p>
      )}
      <div className="rule-form-row">
        <button type="button" data-testid="hook-form-save" onClick={onSave}>
          {editing ? "Save" : "Add and save"}
        </button>
        <button type="button" data-testid="hook-form-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {children}
    </section>
  );
}
