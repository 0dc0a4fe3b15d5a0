// Formatting shared by the session components.

import type { DecisionReason, JsonValue, NotAppliedRule, TraceOutcome, TraceStage, TraceStep } from "../generated/protocol";
import { mcpParts, type ToolCall } from "./model";
import { MODE_LABELS } from "./modes";

/** "850 ms", "4.2 s", "3 m 05 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${m} m ${String(s).padStart(2, "0")} s`;
}

/** "0:07", "1:02:03": a running clock. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = h > 0 ? String(m).padStart(2, "0") : String(m);
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

/** "512 B", "12.3 KB", "104.9 MB". */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`;
  if (n < 1_000_000_000) return `${(n / 1_000_000).toFixed(1)} MB`;
  return `${(n / 1_000_000_000).toFixed(2)} GB`;
}

/** A field of an input object, as a string. */
export function field(input: JsonValue, key: string): string | null {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return null;
  const v = input[key];
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return null;
}

/** The last path components, for compact display. */
export function shortPath(path: string, project: string | null = null): string {
  if (project && path.startsWith(project.endsWith("/") ? project : `${project}/`)) {
    return path.slice(project.length).replace(/^\//, "");
  }
  return path;
}

/** One line saying what a call does: the command, the path, the pattern. */
export function callSummary(call: Pick<ToolCall, "name" | "input">, project: string | null = null): string {
  const input = call.input;
  switch (call.name) {
    case "Bash":
      return field(input, "command") ?? "";
    case "Read":
    case "Edit":
    case "MultiEdit":
    case "Write":
      return shortPath(field(input, "file_path") ?? "", project);
    case "NotebookEdit":
      return shortPath(field(input, "notebook_path") ?? "", project);
    case "Grep": {
      const where = field(input, "path") ?? field(input, "glob");
      return `${field(input, "pattern") ?? ""}${where ? ` in ${shortPath(where, project)}` : ""}`;
    }
    case "Glob":
      return field(input, "pattern") ?? "";
    case "WebFetch":
      return field(input, "url") ?? "";
    case "WebSearch":
      return field(input, "query") ?? "";
    case "TaskOutput":
    case "TaskStop":
      return field(input, "task_id") ?? "";
    case "Agent":
    case "Task": {
      const description = field(input, "description");
      const type = field(input, "subagent_type") ?? "general-purpose";
      return description ? `${type}: ${description}` : type;
    }
    case "TodoWrite":
      return todoSummary(input);
    case "AskUserQuestion":
      return questionSummary(input);
    case "ExitPlanMode":
      return (field(input, "plan") ?? "").split("\n").find((l) => l.trim() !== "")?.replace(/^#+\s*/, "") ?? "";
    case "EnterPlanMode":
      return "plan mode";
    case "Skill": {
      const args = field(input, "args");
      return `${field(input, "skill") ?? ""}${args ? ` ${args}` : ""}`;
    }
  }
  const mcp = mcpParts(call.name);
  if (mcp) return `${mcp.server} · ${mcp.tool}`;
  const json = JSON.stringify(input);
  return json.length > 120 ? `${json.slice(0, 119)}…` : json;
}

/** A skill's name from its SKILL.md path (the folder, as Claude Code names skills). */
function skillName(file: string | null): string {
  const parts = (file ?? "").split("/").filter((p) => p !== "");
  return parts.at(-2) ?? "(unknown)";
}

/** A decision reason in words. */
export function describeReason(reason: DecisionReason): string {
  switch (reason.kind) {
    case "rule":
      if (reason.source === "skill") return `Allowed by skill ${skillName(reason.file)} (${reason.rule} in its allowed-tools)`;
      return `Rule ${reason.rule} (${reason.source} settings${reason.file ? `, ${reason.file}` : ""})`;
    case "hook":
      return `Hook ${reason.hook}${reason.message ? `: ${reason.message}` : ""}`;
    case "mode":
      return `Permission mode: ${MODE_LABELS[reason.mode]}`;
    case "safety_check":
      return `Safety check: ${reason.message}`;
    case "working_directory":
      return `Outside the working directories: ${reason.path}`;
    case "tool_check":
      return reason.message;
    case "user_answer":
      return `You answered: ${reason.answer}`;
    case "default":
      return reason.message;
  }
}

/** Pretty JSON for display. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "null";
}

/** Each stage of a permission decision, in plain words. */
const STAGE_WORDS: Record<TraceStage, string> = {
  deny_rules: "Deny rules",
  ask_rules: "Ask rules",
  allow_rules: "Allow rules",
  tool_check: "The tool's own check",
  shell_analysis: "Command analysis",
  safety_checks: "Protected files",
  mode: "Mode",
  settings: "Settings files",
  destructive: "Destructive tools",
  default: "Otherwise",
  hook: "Hook",
  user_answer: "Your answer",
  imported: "Claude Code",
  claude_code_hook: "Gatehouse, for Claude Code",
  claude_code_terminal: "You, in Claude Code's terminal",
  other: "Other check",
};

const OUTCOME_WORDS: Record<TraceOutcome, string> = {
  allow: "allows",
  ask: "asks",
  deny: "denies",
  passthrough: "no objection",
  skipped: "not needed",
};

const RULE_STAGES: ReadonlySet<TraceStage> = new Set(["deny_rules", "ask_rules", "allow_rules"]);

/**
 * One step of a decision trace in plain words, from its typed stage and
 * outcome: "Deny rules: none matched", "Mode: allows — …". The engine's
 * detail follows, except where it only repeats the outcome.
 */
export function traceStepWords(step: TraceStep): { stage: string; outcome: string; detail: string | null } {
  const stage = STAGE_WORDS[step.stage];
  // A rule that matched but does not apply (an untrusted project's allow):
  // never "none matched".
  if (step.not_applied) return { stage, outcome: "matched, not applied", detail: notApplied(step.not_applied) };
  if (RULE_STAGES.has(step.stage)) {
    if (step.outcome === "passthrough") return { stage, outcome: "none matched", detail: null };
    if (step.outcome === "skipped") return { stage, outcome: "not needed", detail: null };
    return { stage, outcome: `matched, ${OUTCOME_WORDS[step.outcome]}`, detail: step.detail || null };
  }
  return { stage, outcome: OUTCOME_WORDS[step.outcome], detail: step.detail || null };
}

/** "allowed by `.claude/settings.local.json` — not applied: project not trusted", from the typed fields. */
export function notApplied(rule: NotAppliedRule): string {
  const file = rule.file ? rule.file.replace(/:\d+:\d+$/, "") : rule.source;
  const why = rule.why === "project_not_trusted" ? "project not trusted" : "managed policy allows only its own rules";
  return `\`${rule.rule}\` allowed by ${file} — not applied: ${why}`;
}

/** TodoWrite in one line: "3 todos · 1 done · now: Running the tests". */
export function todoSummary(input: JsonValue): string {
  const todos = input !== null && typeof input === "object" && !Array.isArray(input) ? input.todos : undefined;
  if (!Array.isArray(todos)) return "";
  const items = todos.filter((t): t is { [key: string]: JsonValue } => t !== null && typeof t === "object" && !Array.isArray(t));
  const done = items.filter((t) => t.status === "completed").length;
  const now = items.find((t) => t.status === "in_progress");
  const active = now && typeof now.activeForm === "string" ? ` · now: ${now.activeForm}` : "";
  return `${items.length} todo${items.length === 1 ? "" : "s"} · ${done} done${active}`;
}

/** AskUserQuestion in one line: its headers. */
function questionSummary(input: JsonValue): string {
  const questions = input !== null && typeof input === "object" && !Array.isArray(input) ? input.questions : undefined;
  if (!Array.isArray(questions)) return "";
  return questions
    .map((q) => (q !== null && typeof q === "object" && !Array.isArray(q) && typeof q.header === "string" ? q.header : "?"))
    .join(" · ");
}
