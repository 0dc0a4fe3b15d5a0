// The rule editor's pure logic: the draft (every rule of every source with
// unsaved changes), turning it into the backend's `RuleEdits`, grouping for
// display, matching lint problems to rules. No React, no backend calls.

import type {
  RuleEdits,
  RuleFileEdit,
  RuleList,
  RuleProblem,
  RuleSource,
  RulesView,
  SessionRulesEdit,
} from "../generated/protocol";

/** Where a rule lives: a settings file or a session's rules in SQLite. */
export interface Target {
  /** `file:<path>` or `session:<id>`. */
  key: string;
  source: RuleSource;
  /** What the user sees: the file path or the session's title. */
  label: string;
  path: string | null;
  sessionId: string | null;
  editable: boolean;
  lockReason: string | null;
  fingerprint: string;
}

/** One rule in the draft. */
export interface DraftRule {
  /** Stable within a draft (for React keys and edits). */
  id: string;
  target: string;
  list: RuleList;
  text: string;
  /** Stored calls it decided in the last 30 days (0 for new rules). */
  decided30d: number;
}

export interface Draft {
  rules: DraftRule[];
  /** Additional directories per file target. */
  directories: Record<string, string[]>;
}

export const LISTS: RuleList[] = ["deny", "ask", "allow"];

export const SOURCE_LABELS: Record<RuleSource, string> = {
  policy: "Managed policy",
  flag: "Launch flags",
  local: "Local project",
  project: "Project",
  user: "User",
  session: "Session",
  skill: "Skill (while it runs)",
};

export function fileKey(path: string): string {
  return `file:${path}`;
}

export function sessionKey(id: string): string {
  return `session:${id}`;
}

/** Every place a rule can live, highest precedence first. */
export function targets(view: RulesView): Target[] {
  const files: Target[] = view.files.map((f) => ({
    key: fileKey(f.path),
    source: f.source,
    label: f.path,
    path: f.path,
    sessionId: null,
    editable: f.editable,
    lockReason: f.lock_reason,
    fingerprint: f.fingerprint,
  }));
  const sessions: Target[] = view.sessions.map((s) => ({
    key: sessionKey(s.session_id),
    source: "session",
    label: s.title ?? s.session_id,
    path: null,
    sessionId: s.session_id,
    editable: true,
    lockReason: null,
    fingerprint: "",
  }));
  return [...files, ...sessions];
}

/** The draft as loaded: the rules as saved. */
export function initialDraft(view: RulesView): Draft {
  const rules: DraftRule[] = [];
  let n = 0;
  for (const f of view.files) {
    for (const r of f.rules) {
      rules.push({ id: `r${n++}`, target: fileKey(f.path), list: r.list, text: r.text, decided30d: r.decided_30d });
    }
  }
  for (const s of view.sessions) {
    for (const r of s.rules) {
      rules.push({
        id: `r${n++}`,
        target: sessionKey(s.session_id),
        list: r.list,
        text: r.text,
        decided30d: r.decided_30d,
      });
    }
  }
  const directories: Record<string, string[]> = {};
  for (const f of view.files) directories[fileKey(f.path)] = [...f.additional_directories];
  return { rules, directories };
}

let nextId = 0;

/** A new rule id, distinct from loaded ones. */
export function newRuleId(): string {
  nextId += 1;
  return `new${nextId}`;
}

function listsOf(draft: Draft, target: string): Record<RuleList, string[]> {
  const out: Record<RuleList, string[]> = { allow: [], ask: [], deny: [] };
  for (const r of draft.rules) if (r.target === target) out[r.list].push(r.text);
  return out;
}

function same(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The changed targets of `draft` against what was loaded, as the backend wants them. */
export function editsOf(view: RulesView, draft: Draft): RuleEdits {
  const loaded = initialDraft(view);
  const files: RuleFileEdit[] = [];
  for (const f of view.files) {
    const key = fileKey(f.path);
    const now = listsOf(draft, key);
    const before = listsOf(loaded, key);
    const dirs = draft.directories[key] ?? [];
    const changed =
      LISTS.some((l) => !same(now[l], before[l])) || !same(dirs, loaded.directories[key] ?? []);
    if (changed) {
      files.push({
        path: f.path,
        base_fingerprint: f.fingerprint,
        allow: now.allow,
        ask: now.ask,
        deny: now.deny,
        additional_directories: dirs,
      });
    }
  }
  const sessions: SessionRulesEdit[] = [];
  for (const s of view.sessions) {
    const key = sessionKey(s.session_id);
    const now = listsOf(draft, key);
    const before = listsOf(loaded, key);
    if (LISTS.some((l) => !same(now[l], before[l]))) {
      sessions.push({ session_id: s.session_id, allow: now.allow, ask: now.ask, deny: now.deny });
    }
  }
  return { files, sessions };
}

export function isDirty(edits: RuleEdits): boolean {
  return edits.files.length > 0 || edits.sessions.length > 0;
}

/** The tool a rule names (`Bash(ls)` → `Bash`, `mcp__s__t` → `mcp__s__t`). */
export function toolOf(text: string): string {
  const open = text.indexOf("(");
  return (open === -1 ? text : text.slice(0, open)).trim() || "(empty)";
}

export interface ToolGroup {
  tool: string;
  lists: { list: RuleList; rules: DraftRule[] }[];
}

/** Rules grouped by tool (alphabetically), then by deny / ask / allow. */
export function groupRules(rules: DraftRule[]): ToolGroup[] {
  const byTool = new Map<string, DraftRule[]>();
  for (const r of rules) {
    const tool = toolOf(r.text);
    byTool.set(tool, [...(byTool.get(tool) ?? []), r]);
  }
  return [...byTool.keys()]
    .sort((a, b) => a.localeCompare(b))
    .map((tool) => {
      const list = byTool.get(tool) ?? [];
      return {
        tool,
        lists: LISTS.map((l) => ({ list: l, rules: list.filter((r) => r.list === l) })).filter(
          (g) => g.rules.length > 0,
        ),
      };
    });
}

/** The lint problems about `rule` (same file, list and text). */
export function problemsFor(rule: DraftRule, target: Target | undefined, problems: RuleProblem[]): RuleProblem[] {
  return problems.filter(
    (p) =>
      p.rule === rule.text &&
      p.list === rule.list &&
      (target?.path === null || target?.path === undefined || p.file === target.path),
  );
}

/** Splits `text` around the error span for highlighting (character offsets). */
export function splitAtSpan(text: string, start: number, end: number): [string, string, string] {
  const chars = [...text];
  const s = Math.max(0, Math.min(start, chars.length));
  const e = Math.max(s, Math.min(end, chars.length));
  const marked = chars.slice(s, e).join("");
  // An error at the very end (a missing `)`) still shows a mark.
  return [chars.slice(0, s).join(""), marked === "" ? " " : marked, chars.slice(e).join("")];
}

/** Completions for a rule being typed: tool names that start with what is typed. */
export function completions(text: string, toolNames: string[]): string[] {
  if (text.trim() === "" || text.includes("(")) return [];
  const typed = text.trim().toLowerCase();
  return toolNames.filter((t) => t.toLowerCase().startsWith(typed) && t !== text).slice(0, 12);
}

/** Default tester input for a tool. */
export function sampleInput(tool: string, projectPath: string): string {
  switch (tool) {
    case "Bash":
      return JSON.stringify({ command: "npm test" }, null, 2);
    case "Read":
    case "Edit":
    case "Write":
      return JSON.stringify({ file_path: `${projectPath}/README.md` }, null, 2);
    case "WebFetch":
      return JSON.stringify({ url: "https://example.com", prompt: "summarise" }, null, 2);
    default:
      return "{}";
  }
}

/** A place's short name for compact menus: "Project · settings.json", "Session · fix the…". */
export function targetShortLabel(target: Target): string {
  const name = target.path !== null ? (target.path.split(/[\\/]/).pop() ?? target.path) : target.label;
  const short = name.length > 28 ? `${name.slice(0, 27)}…` : name;
  return `${SOURCE_LABELS[target.source]} · ${short}`;
}

/**
 * The rules a filter box's text keeps: every word (case-insensitive) in the
 * rule's text, its list (deny/ask/allow) or where it lives (source, file).
 */
export function filterRules(rules: DraftRule[], targets: Target[], text: string): DraftRule[] {
  const words = text.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
  if (words.length === 0) return rules;
  const byKey = new Map(targets.map((t) => [t.key, t]));
  return rules.filter((rule) => {
    const target = byKey.get(rule.target);
    const haystack = [rule.text, rule.list, target ? SOURCE_LABELS[target.source] : "", target?.label ?? ""].join("\n").toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}
