// The Hooks view's logic (issue 18 item 5): the form a hook is added or
// edited with, the handler object it writes (Claude Code's layout, other
// keys of an edited handler kept), the edit request, and how lists and test
// results read. Components only render what these return.

import type {
  HookEditRequest,
  HookEntryView,
  HookFileView,
  HookNotRunReason,
  HookTestResult,
  HooksView,
  JsonValue,
} from "../../generated/protocol";

/** Why a listed hook does not run, in words (from the typed reason). */
export const NOT_RUN_LABELS: Record<HookNotRunReason, string> = {
  policy_disables_all: "off: the managed policy sets disableAllHooks",
  managed_hooks_only: "not run: the managed policy allows only its own hooks",
  disabled_by_settings: "off: disableAllHooks is set in the settings",
  untrusted: "not run until the project is trusted",
  disabled: "disabled",
  unknown_event: "not run: Gatehouse does not fire this event",
};

/** The longest timeout the backend accepts (seconds). */
export const MAX_TIMEOUT_SECS = 3600;

/** Where an edited hook is now. */
export interface HookPlace {
  file: string;
  event: string;
  group: number;
  index: number;
}

export interface HookForm {
  /** The hook being edited, or null when adding. */
  editing: HookPlace | null;
  /** The settings file it goes to. */
  file: string;
  event: string;
  matcher: string;
  kind: "command" | "http";
  command: string;
  url: string;
  /** Seconds; empty: the default (60). */
  timeout: string;
  ifRule: string;
  /** The edited handler's other keys (args, headers, disabled, …), kept as written. */
  extra: Record<string, JsonValue>;
}

/** The files hooks can be added to. */
export function editableFiles(view: HooksView): HookFileView[] {
  return view.files.filter((f) => f.editable);
}

/** A new hook's form: a PreToolUse command hook in the project's own settings when it can be edited. */
export function emptyForm(view: HooksView): HookForm {
  const files = editableFiles(view);
  const file = files.find((f) => f.source === "project") ?? files[0];
  return {
    editing: null,
    file: file?.path ?? "",
    event: "PreToolUse",
    matcher: "",
    kind: "command",
    command: "",
    url: "",
    timeout: "",
    ifRule: "",
    extra: {},
  };
}

const OWN_KEYS = new Set(["type", "command", "url", "timeout", "if"]);

/** The form for editing `entry` of `file`, its other keys kept. */
export function formFromEntry(file: string, entry: HookEntryView): HookForm {
  const def: Record<string, JsonValue> =
    entry.definition !== null && typeof entry.definition === "object" && !Array.isArray(entry.definition) ? entry.definition : {};
  const extra: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(def)) if (!OWN_KEYS.has(k) && v !== undefined) extra[k] = v;
  const str = (v: JsonValue | undefined) => (typeof v === "string" ? v : "");
  const timeout = def.timeout;
  return {
    editing: { file, event: entry.event, group: entry.group, index: entry.index },
    file,
    event: entry.event,
    matcher: entry.matcher ?? "",
    kind: entry.handler,
    command: str(def.command),
    url: str(def.url),
    timeout: typeof timeout === "number" ? String(timeout) : "",
    ifRule: str(def.if),
    extra,
  };
}

/** The handler object the form writes, or what is missing. */
export function handlerOf(form: HookForm): { handler: JsonValue } | { error: string } {
  const handler: Record<string, JsonValue> = { type: form.kind };
  const extra = { ...form.extra };
  if (form.kind === "command") {
    delete extra.headers;
    delete extra.secretHeaders;
    const hasArgs = Array.isArray(extra.args) && extra.args.length > 0;
    if (form.command.trim() === "" && !hasArgs) return { error: "A command hook needs a command." };
    if (form.command.trim() !== "") handler.command = form.command;
  } else {
    delete extra.args;
    const url = form.url.trim();
    if (!/^https?:\/\/\S+$/.test(url)) return { error: "An http hook needs an http:// or https:// URL." };
    handler.url = url;
  }
  if (form.timeout.trim() !== "") {
    const secs = Number(form.timeout);
    if (!Number.isFinite(secs) || secs <= 0 || secs > MAX_TIMEOUT_SECS)
      return { error: `The timeout is a number of seconds above 0 and at most ${MAX_TIMEOUT_SECS}.` };
    handler.timeout = secs;
  }
  if (form.ifRule.trim() !== "") handler.if = form.ifRule.trim();
  return { handler: { ...handler, ...extra } };
}

/** The save request of the form (an add, or a replace of the hook being edited). */
export function editOf(form: HookForm, handler: JsonValue): HookEditRequest {
  const matcher = form.matcher.trim() === "" ? null : form.matcher.trim();
  if (form.editing === null) return { kind: "add", event: form.event, matcher, handler };
  const { event, group, index } = form.editing;
  return { kind: "replace", event, group, index, new_event: form.event, matcher, handler };
}

export interface EventGroup {
  event: string;
  hooks: HookEntryView[];
}

/** A file's hooks by event, in file order within each. */
export function eventsOf(file: HookFileView): EventGroup[] {
  const groups: EventGroup[] = [];
  for (const hook of file.hooks) {
    const last = groups[groups.length - 1];
    if (last?.event === hook.event) last.hooks.push(hook);
    else groups.push({ event: hook.event, hooks: [hook] });
  }
  return groups;
}

/** How a test run ended: "exit 0", "signal 9", "did not answer in time", "did not start". */
export function exitText(result: HookTestResult): string {
  if (result.timed_out) return "did not answer in time";
  if (result.signal !== null) return `signal ${result.signal}`;
  if (result.exit_code === null) return "did not start";
  return `exit ${result.exit_code}`;
}

export type TestVerdict = "allow" | "ask" | "deny" | "block" | "error" | "none";

/** What the test run's answer means for the call. */
export function verdictOf(result: HookTestResult): TestVerdict {
  const o = result.outcome;
  if (o.blocked) return "block";
  if (o.decision !== null) return o.decision;
  if (o.error !== null) return "error";
  return "none";
}

export const VERDICT_LABELS: Record<TestVerdict, string> = {
  allow: "allows the call",
  ask: "asks the user",
  deny: "denies the call",
  block: "blocks the call",
  error: "failed (does not block)",
  none: "says nothing (the rules decide)",
};
