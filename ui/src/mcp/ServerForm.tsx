import { useState } from "react";

import type { McpTransportDraft } from "../generated/protocol";
import { parseArgs, withTransport, withValues, type FieldErrors, type ServerForm as Form } from "./form";
import { FieldError, ValueRows } from "./ValueRows";

interface Props {
  form: Form;
  errors: FieldErrors;
  saving: boolean;
  onChange(next: Form): void;
  onSave(): void;
  onCancel(): void;
}

/** Add or edit a server (stdio: command, args, env; HTTP: url, headers), validated as you type. */
export function ServerForm({ form, errors, saving, onChange, onSave, onCancel }: Props) {
  const { draft } = form;
  const t = draft.transport;
  const setDraft = (next: Form["draft"]) => onChange({ ...form, draft: next });
  const setTransport = (next: McpTransportDraft) => setDraft({ ...draft, transport: next });
  const invalid = Object.keys(errors).length > 0;
  // A new server's empty fields are not mistakes yet: their errors show
  // once the field was edited or left (Save stays disabled meanwhile).
  const [touched, setTouched] = useState<ReadonlySet<string>>(() => new Set(form.originalName === null ? [] : ["name", "command", "url"]));
  const touch = (field: string) => setTouched((prev) => (prev.has(field) ? prev : new Set(prev).add(field)));
  const shown: FieldErrors = Object.fromEntries(
    Object.entries(errors).filter(([field]) => !["name", "command", "url"].includes(field) || touched.has(field)),
  );
  return (
    <form
      className="mcp-form"
      data-testid="mcp-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSave();
      }}
    >
      <h3>{form.originalName === null ? "Add a server" : `Edit ${form.originalName}`}</h3>
      <label>
        Saved in{" "}
        <select
          data-testid="mcp-form-scope"
          value={form.scope}
          disabled={form.originalName !== null}
          onChange={(e) => onChange({ ...form, scope: e.target.value === "project" ? "project" : "gatehouse" })}
        >
          <option value="gatehouse">Gatehouse (~/.gatehouse/mcp.json)</option>
          <option value="project">This project (.mcp.json, needs approval)</option>
        </select>
      </label>
      <label>
        Name{" "}
        <input
          data-testid="mcp-form-name"
          value={draft.name}
          onBlur={() => touch("name")}
          onChange={(e) => {
            touch("name");
            setDraft({ ...draft, name: e.target.value });
          }}
        />
      </label>
      <FieldError errors={shown} field="name" />
      <label>
        Transport{" "}
        <select
          data-testid="mcp-form-transport"
          value={t.type}
          onChange={(e) => setDraft(withTransport(draft, e.target.value === "http" ? "http" : "stdio"))}
        >
          <option value="stdio">stdio (a local command)</option>
          <option value="http">HTTP (streamable)</option>
        </select>
      </label>
      {t.type === "stdio" ? (
        <>
          <label>
            Command{" "}
            <input
              data-testid="mcp-form-command"
              value={t.command}
              onBlur={() => touch("command")}
              onChange={(e) => {
                touch("command");
                setTransport({ ...t, command: e.target.value });
              }}
            />
          </label>
          <FieldError errors={shown} field="command" />
          <label>
            Arguments (one per line){" "}
            <textarea
              data-testid="mcp-form-args"
              rows={3}
              value={t.args.join("\n")}
              onChange={(e) => setTransport({ ...t, args: parseArgs(e.target.value) })}
            />
          </label>
        </>
      ) : (
        <>
          <label>
            URL{" "}
            <input
              data-testid="mcp-form-url"
              value={t.url}
              onBlur={() => touch("url")}
              onChange={(e) => {
                touch("url");
                setTransport({ ...t, url: e.target.value });
              }}
            />
          </label>
          <FieldError errors={shown} field="url" />
        </>
      )}
      <ValueRows
        list={t.type === "stdio" ? "env" : "headers"}
        values={t.type === "stdio" ? t.env : t.headers}
        errors={shown}
        onChange={(values) => setDraft(withValues(draft, values))}
      />
      <label>
        <input type="checkbox" data-testid="mcp-form-disabled" checked={draft.disabled} onChange={(e) => setDraft({ ...draft, disabled: e.target.checked })} />{" "}
        Disabled
      </label>
      <label>
        <input type="checkbox" data-testid="mcp-form-trusted" checked={draft.trusted} onChange={(e) => setDraft({ ...draft, trusted: e.target.checked })} />{" "}
        Trust its tool annotations (read-only tools run without asking)
      </label>
      <FieldError errors={shown} field="trusted" />
      <div className="mcp-actions">
        <button type="submit" data-testid="mcp-form-save" disabled={invalid || saving}>
          {saving ? "Saving…" : "Save"}
        </button>
        <button type="button" data-testid="mcp-form-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
