// The MCP server form's model: drafts, edits and validation as you type.
// The rules mirror gatehouse-mcp's `edit::validate` (which checks again on
// save); field paths are the same: `name`, `command`, `url`, `env[i].name`,
// `env[i].value`, `headers[i].name`, `headers[i].value`, `trusted`.

import type {
  McpScope,
  McpServerDraft,
  McpServerEntry,
  McpTransportDraft,
  McpValueDraft,
} from "../generated/protocol";

/** Field path → what is wrong with it. */
export type FieldErrors = Record<string, string>;

/** The scopes the panel can write. */
export type EditableScope = Extract<McpScope, "gatehouse" | "project">;

/** A form being filled in: where it is saved, and what it replaces. */
export interface ServerForm {
  scope: EditableScope;
  /** The name before this edit; `null` when adding. */
  originalName: string | null;
  draft: McpServerDraft;
}

/** A new, empty stdio server. */
export function emptyDraft(): McpServerDraft {
  return {
    name: "",
    transport: { type: "stdio", command: "", args: [], env: [] },
    disabled: false,
    trusted: false,
  };
}

/** The form for editing an entry (its draft as written). */
export function formFor(entry: McpServerEntry): ServerForm | null {
  if (entry.draft === null || (entry.scope !== "gatehouse" && entry.scope !== "project")) return null;
  return { scope: entry.scope, originalName: entry.name, draft: entry.draft };
}

/** The env variables (stdio) or headers (HTTP) of a draft. */
export function valuesOf(transport: McpTransportDraft): McpValueDraft[] {
  return transport.type === "stdio" ? transport.env : transport.headers;
}

/** The draft with its env variables or headers replaced. */
export function withValues(draft: McpServerDraft, values: McpValueDraft[]): McpServerDraft {
  const t = draft.transport;
  return {
    ...draft,
    transport: t.type === "stdio" ? { ...t, env: values } : { ...t, headers: values },
  };
}

/** Switches transport, keeping the name and flags (values do not carry over). */
export function withTransport(draft: McpServerDraft, type: McpTransportDraft["type"]): McpServerDraft {
  if (draft.transport.type === type) return draft;
  const transport: McpTransportDraft =
    type === "stdio"
      ? { type: "stdio", command: "", args: [], env: [] }
      : { type: "http", url: "", headers: [] };
  return { ...draft, transport };
}

/** Arguments typed one per line (empty lines are kept while typing; see {@link cleanDraft}). */
export function parseArgs(text: string): string[] {
  return text.split("\n");
}

/** The draft as saved: empty argument lines dropped. */
export function cleanDraft(draft: McpServerDraft): McpServerDraft {
  const t = draft.transport;
  return t.type === "stdio" ? { ...draft, transport: { ...t, args: t.args.filter((a) => a !== "") } } : draft;
}

/** A new env variable or header row. */
export function emptyValue(): McpValueDraft {
  return { name: "", value: "", secret: false, stored: false };
}

function checkServerName(name: string): string | null {
  if (name === "") return "enter a name";
  const bad = [...name].find((c) => !/[A-Za-z0-9_.-]/.test(c));
  if (bad !== undefined) return `\`${bad}\` is not allowed: use letters, digits, \`_\`, \`-\` and \`.\``;
  if (name.includes("__")) return "may not contain `__` (it separates server and tool in tool names)";
  return null;
}

function checkEnvName(name: string): string | null {
  if (name === "") return "enter a variable name";
  if (!/^[A-Za-z_]/.test(name)) return "must start with a letter or `_`";
  if (!/^[A-Za-z0-9_]+$/.test(name)) return "use letters, digits and `_` only";
  return null;
}

function checkHeaderName(name: string): string | null {
  if (name === "") return "enter a header name";
  const bad = [...name].find((c) => !/[A-Za-z0-9!#$%&'*+\-.^_`|~]/.test(c));
  return bad === undefined ? null : `\`${bad}\` is not allowed in a header name`;
}

/**
 * Every problem of a form, by field. `taken` are the names already used in
 * the same file (other than the one being edited).
 */
export function validate(form: ServerForm, taken: string[]): FieldErrors {
  const errors: FieldErrors = {};
  const { draft } = form;
  const nameProblem = checkServerName(draft.name);
  if (nameProblem !== null) errors["name"] = nameProblem;
  else if (draft.name !== form.originalName && taken.includes(draft.name))
    errors["name"] = `there is already a server named \`${draft.name}\` in this file`;
  const t = draft.transport;
  if (t.type === "stdio") {
    if (t.command.trim() === "") errors["command"] = "enter the program to run";
  } else {
    const url = t.url.trim();
    if (url === "") errors["url"] = "enter the server's URL";
    else if (!/^(https?:\/\/|\$\{)/.test(url)) errors["url"] = "must start with http:// or https://";
  }
  const list = t.type === "stdio" ? "env" : "headers";
  const seen: string[] = [];
  valuesOf(t).forEach((v, i) => {
    const key = t.type === "stdio" ? v.name : v.name.toLowerCase();
    const problem = t.type === "stdio" ? checkEnvName(v.name) : checkHeaderName(v.name);
    if (problem !== null) errors[`${list}[${i}].name`] = problem;
    else if (seen.includes(key)) errors[`${list}[${i}].name`] = `\`${v.name}\` is listed twice`;
    seen.push(key);
    if (t.type === "http" && /[\r\n]/.test(v.value))
      errors[`${list}[${i}].value`] = "a header value cannot contain line breaks";
    if (!v.secret && v.stored && v.value === "")
      errors[`${list}[${i}].value`] = "type the value to keep in the file, or keep it secret";
    if (v.secret && v.value === "" && !v.stored)
      errors[`${list}[${i}].value`] = "enter the secret value (it is stored in the OS keychain)";
  });
  if (draft.trusted && form.scope !== "gatehouse")
    errors["trusted"] =
      "only servers in Gatehouse's own list can be trusted (a project cannot trust its own servers)";
  return errors;
}
