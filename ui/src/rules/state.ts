// The rule editor's state and actions: the project, the loaded view, the
// draft with unsaved edits, live validation, lint, the tester, replay,
// save (with the conflict choice) and undo. Components only render this.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { backend, onRulesReplayProgress } from "../client";
import type {
  JsonValue,
  PermissionDecision,
  PermissionMode,
  Project,
  ReplayScope,
  RuleList,
  RuleProblem,
  RuleValidation,
  RulesReplayReport,
  RulesView,
} from "../generated/protocol";
import {
  type Draft,
  type DraftRule,
  type Target,
  editsOf,
  initialDraft,
  isDirty,
  newRuleId,
  targets as targetsOf,
} from "./model";

/** How long typing must pause before the backend is asked (ms). */
export const DEBOUNCE_MS = 150;

export interface RuleForm {
  text: string;
  list: RuleList;
  target: string;
  /** The rule being edited, or null when adding. */
  editingId: string | null;
  validation: RuleValidation | null;
}

export interface TesterState {
  tool: string;
  input: string;
  mode: PermissionMode;
  decision: PermissionDecision | null;
  error: string | null;
}

export type ScopeKind = ReplayScope["kind"];

export interface ReplayState {
  scope: ScopeKind;
  sessionId: string;
  since: string;
  until: string;
  running: boolean;
  progress: { done: number; total: number } | null;
  report: RulesReplayReport | null;
  error: string | null;
}

export interface RulesEditorState {
  projects: Project[] | null;
  projectId: number | null;
  view: RulesView | null;
  draft: Draft | null;
  targets: Target[];
  dirty: boolean;
  problems: RuleProblem[];
  error: string | null;
  /** Files changed on disk since they were loaded (save refused until the user chooses). */
  conflict: string[] | null;
  status: string | null;
  form: RuleForm;
  tester: TesterState;
  replay: ReplayState;
}

export interface RulesEditorActions {
  selectProject(id: number): void;
  setForm(patch: Partial<Pick<RuleForm, "text" | "list" | "target">>): void;
  submitForm(): void;
  startEdit(id: string): void;
  cancelEdit(): void;
  deleteRule(id: string): void;
  moveRule(id: string, target: string): void;
  addDirectory(target: string, dir: string): void;
  removeDirectory(target: string, index: number): void;
  setTester(patch: Partial<Pick<TesterState, "tool" | "input" | "mode">>): void;
  setReplay(patch: Partial<Pick<ReplayState, "scope" | "sessionId" | "since" | "until">>): void;
  runReplay(): Promise<void>;
  save(overwrite: boolean): Promise<void>;
  reload(): Promise<void>;
  discard(): void;
  undo(): Promise<void>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

const EMPTY_FORM: RuleForm = { text: "", list: "deny", target: "", editingId: null, validation: null };

/** Milliseconds since the epoch at 00:00 UTC of a `YYYY-MM-DD` day, or null. */
export function dayToMs(day: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}

export function scopeOf(replay: ReplayState): ReplayScope {
  switch (replay.scope) {
    case "all":
      return { kind: "all" };
    case "session":
      return { kind: "session", session_id: replay.sessionId.trim() };
    case "date_range":
      return { kind: "date_range", since_ms: dayToMs(replay.since), until_ms: dayToMs(replay.until) };
    default:
      return { kind: "project" };
  }
}

/** The first editable file target of the project's own settings, else any editable one. */
function defaultTarget(all: Target[]): string {
  const preferred = all.find((t) => t.editable && t.source === "project") ?? all.find((t) => t.editable);
  return preferred?.key ?? "";
}

/** `initialProjectId`: the project to show first (the open session's), else the first listed. */
export function useRulesEditor(initialProjectId: number | null = null): [RulesEditorState, RulesEditorActions] {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [projectId, setProjectId] = useState<number | null>(initialProjectId);
  const [view, setView] = useState<RulesView | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [editProblems, setEditProblems] = useState<RuleProblem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<string[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [form, setFormState] = useState<RuleForm>(EMPTY_FORM);
  const [tester, setTesterState] = useState<TesterState>({
    tool: "Bash",
    input: JSON.stringify({ command: "npm test" }, null, 2),
    mode: "default",
    decision: null,
    error: null,
  });
  const [replay, setReplayState] = useState<ReplayState>({
    scope: "project",
    sessionId: "",
    since: "",
    until: "",
    running: false,
    progress: null,
    report: null,
    error: null,
  });
  const replayId = useRef(0);

  const targets = useMemo(() => (view ? targetsOf(view) : []), [view]);
  const edits = useMemo(() => (view && draft ? editsOf(view, draft) : null), [view, draft]);
  const dirty = edits !== null && isDirty(edits);
  // The edits as a string: effects rerun when their content changes, not their identity.
  const editsKey = JSON.stringify(edits);

  const load = useCallback(async (id: number) => {
    const loaded = await backend.rulesView(id);
    setView(loaded);
    setDraft(initialDraft(loaded));
    setEditProblems(null);
    setConflict(null);
    setFormState((f) => ({ ...EMPTY_FORM, list: f.list, target: defaultTarget(targetsOf(loaded)) }));
  }, []);

  useEffect(() => {
    let cancelled = false;
    backend.listProjects().then(
      (list) => {
        if (cancelled) return;
        setProjects(list);
        const first = list[0];
        if (first) setProjectId((current) => current ?? first.id);
      },
      (err: unknown) => setError(message(err)),
    );
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => {
    if (projectId === null) return;
    load(projectId).catch((err: unknown) => setError(message(err)));
  }, [projectId, load]);

  // Validation as the rule is typed.
  useEffect(() => {
    if (projectId === null || form.text.trim() === "") return;
    let cancelled = false;
    const timer = setTimeout(() => {
      backend.validateRule(projectId, form.text).then(
        (validation) => {
          if (!cancelled) setFormState((f) => (f.text === form.text ? { ...f, validation } : f));
        },
        (err: unknown) => !cancelled && setError(message(err)),
      );
    }, DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [projectId, form.text]);

  // Lint of the edited rules (the view's problems while nothing changed).
  useEffect(() => {
    if (projectId === null || edits === null || !isDirty(edits)) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      backend.checkRuleEdits(projectId, edits).then(
        (problems) => !cancelled && setEditProblems(problems),
        (err: unknown) => !cancelled && setError(message(err)),
      );
    }, DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // `edits` is represented by `editsKey`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [projectId, editsKey]);

  // The tester, live: the call is decided again whenever it or the rules change.
  useEffect(() => {
    if (projectId === null || edits === null || tester.tool.trim() === "") return;
    let input: JsonValue;
    try {
      input = JSON.parse(tester.input) as JsonValue;
    } catch (err) {
      const why = message(err);
      const timer = setTimeout(() => setTesterState((t) => ({ ...t, decision: null, error: `The input is not JSON: ${why}` })), 0);
      return () => clearTimeout(timer);
    }
    let cancelled = false;
    const timer = setTimeout(() => {
      backend
        .testRuleCall({ project_id: projectId, edits, tool: tester.tool.trim(), input, mode: tester.mode })
        .then(
          (decision) => !cancelled && setTesterState((t) => ({ ...t, decision, error: null })),
          (err: unknown) => !cancelled && setTesterState((t) => ({ ...t, decision: null, error: message(err) })),
        );
    }, DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // `edits` is represented by `editsKey`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [projectId, editsKey, tester.tool, tester.input, tester.mode]);

  const updateRules = (change: (rules: DraftRule[]) => DraftRule[]) => {
    setStatus(null);
    setDraft((d) => (d ? { ...d, rules: change(d.rules) } : d));
  };

  const actions: RulesEditorActions = {
    selectProject: (id) => {
      setStatus(null);
      setReplayState((r) => ({ ...r, report: null, progress: null, error: null }));
      setProjectId(id);
    },
    setForm: (patch) =>
      setFormState((f) => ({
        ...f,
        ...patch,
        validation: patch.text !== undefined && patch.text !== f.text ? null : f.validation,
      })),
    submitForm: () => {
      const text = form.text.trim();
      if (text === "" || form.validation === null || form.validation.error !== null || form.target === "") return;
      if (form.editingId !== null) {
        const id = form.editingId;
        updateRules((rules) => rules.map((r) => (r.id === id ? { ...r, text, list: form.list, target: form.target } : r)));
      } else {
        updateRules((rules) => [...rules, { id: newRuleId(), target: form.target, list: form.list, text, decided30d: 0 }]);
      }
      setFormState((f) => ({ ...EMPTY_FORM, list: f.list, target: f.target }));
    },
    startEdit: (id) => {
      const rule = draft?.rules.find((r) => r.id === id);
      if (!rule) return;
      setFormState({ text: rule.text, list: rule.list, target: rule.target, editingId: id, validation: null });
    },
    cancelEdit: () => setFormState((f) => ({ ...EMPTY_FORM, list: f.list, target: f.target })),
    deleteRule: (id) => updateRules((rules) => rules.filter((r) => r.id !== id)),
    moveRule: (id, target) => updateRules((rules) => rules.map((r) => (r.id === id ? { ...r, target } : r))),
    addDirectory: (target, dir) => {
      if (dir.trim() === "") return;
      setDraft((d) =>
        d ? { ...d, directories: { ...d.directories, [target]: [...(d.directories[target] ?? []), dir.trim()] } } : d,
      );
    },
    removeDirectory: (target, index) =>
      setDraft((d) =>
        d
          ? {
              ...d,
              directories: { ...d.directories, [target]: (d.directories[target] ?? []).filter((_, i) => i !== index) },
            }
          : d,
      ),
    setTester: (patch) => setTesterState((t) => ({ ...t, ...patch })),
    setReplay: (patch) => setReplayState((r) => ({ ...r, ...patch })),
    runReplay: async () => {
      if (projectId === null || edits === null) return;
      replayId.current += 1;
      const id = `replay-${Date.now()}-${replayId.current}`;
      setReplayState((r) => ({ ...r, running: true, progress: null, report: null, error: null }));
      const stop = await onRulesReplayProgress((p) => {
        if (p.replay_id === id) setReplayState((r) => ({ ...r, progress: { done: p.done, total: p.total } }));
      });
      try {
        const report = await backend.replayRuleEdits({
          project_id: projectId,
          edits,
          scope: scopeOf(replay),
          replay_id: id,
          limit: null,
        });
        setReplayState((r) => ({
          ...r,
          running: false,
          report,
          progress: { done: report.total, total: Math.max(report.total, r.progress?.total ?? 0) },
        }));
      } catch (err) {
        setReplayState((r) => ({ ...r, running: false, error: message(err) }));
      } finally {
        stop();
      }
    },
    save: async (overwrite) => {
      if (projectId === null || edits === null) return;
      try {
        const outcome = await backend.saveRuleEdits(projectId, edits, overwrite);
        if (outcome.kind === "conflict") {
          setConflict(outcome.files);
          return;
        }
        await load(projectId);
        const what = [...outcome.files, ...outcome.sessions.map((s) => `session ${s}`)];
        setStatus(what.length > 0 ? `Saved: ${what.join(", ")}` : "Nothing to save");
      } catch (err) {
        setError(message(err));
      }
    },
    reload: async () => {
      if (projectId === null) return;
      try {
        await load(projectId);
        setStatus("Reloaded from disk; unsaved edits were dropped");
      } catch (err) {
        setError(message(err));
      }
    },
    discard: () => {
      if (view) setDraft(initialDraft(view));
      setEditProblems(null);
      setStatus(null);
    },
    undo: async () => {
      if (projectId === null) return;
      try {
        const outcome = await backend.undoRulesSave(projectId, false);
        if (outcome.kind === "conflict") {
          setError(`Cannot undo: changed on disk since the save: ${outcome.files.join(", ")}`);
          return;
        }
        await load(projectId);
        setStatus("Undid the last save");
      } catch (err) {
        setError(message(err));
      }
    },
  };

  return [
    {
      projects,
      projectId,
      view,
      draft,
      targets,
      dirty,
      problems: dirty ? (editProblems ?? view?.problems ?? []) : (view?.problems ?? []),
      error,
      conflict,
      status,
      form,
      tester,
      replay,
    },
    actions,
  ];
}
