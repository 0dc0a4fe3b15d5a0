import type { McpValueDraft } from "../generated/protocol";
import { emptyValue, type FieldErrors } from "./form";

interface Props {
  /** `env` or `headers` (the field path prefix). */
  list: "env" | "headers";
  values: McpValueDraft[];
  errors: FieldErrors;
  onChange(values: McpValueDraft[]): void;
}

function FieldError({ errors, field }: { errors: FieldErrors; field: string }) {
  const problem = errors[field];
  if (problem === undefined) return null;
  return (
    <span className="mcp-field-error" data-testid={`mcp-form-error-${field}`} role="alert">
      {problem}
    </span>
  );
}

/** Env variables or headers: name, value, and "secret" (a password field whose value goes to the keychain). */
export function ValueRows({ list, values, errors, onChange }: Props) {
  const set = (i: number, patch: Partial<McpValueDraft>) =>
    onChange(values.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const noun = list === "env" ? "variable" : "header";
  return (
    <fieldset className="mcp-values">
      <legend>{list === "env" ? "Environment" : "Headers"}</legend>
      {values.map((v, i) => (
        <div key={i} className="mcp-value-row">
          <input
            aria-label={`${noun} name`}
            placeholder={list === "env" ? "NAME" : "Header-Name"}
            data-testid={`mcp-form-value-name-${i}`}
            value={v.name}
            onChange={(e) => set(i, { name: e.target.value })}
          />
          <input
            aria-label={`${noun} value`}
            type={v.secret ? "password" : "text"}
            autoComplete="off"
            placeholder={v.secret && v.stored ? "•••••• stored in keychain (type to replace)" : "value"}
            data-testid={`mcp-form-value-value-${i}`}
            value={v.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <label>
            <input
              type="checkbox"
              data-testid={`mcp-form-value-secret-${i}`}
              checked={v.secret}
              onChange={(e) => set(i, { secret: e.target.checked })}
            />{" "}
            secret
          </label>
          <button type="button" aria-label={`remove ${noun}`} onClick={() => onChange(values.filter((_, j) => j !== i))}>
            ✕
          </button>
          <FieldError errors={errors} field={`${list}[${i}].name`} />
          <FieldError errors={errors} field={`${list}[${i}].value`} />
        </div>
      ))}
      <button type="button" data-testid="mcp-form-add-value" onClick={() => onChange([...values, emptyValue()])}>
        Add {noun}
      </button>
    </fieldset>
  );
}

export { FieldError };
