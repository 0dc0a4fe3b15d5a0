// The Hooks view's state and actions: the loaded view, the add/edit form,
// saves of one edit at a time (a file changed on disk is a conflict: the
// list is read again and nothing was written), switches, deletes and the
// test run of the form's hook. Components only render this.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../../client";
import type { HookEditRequest, HookEntryView, HookSaveOutcome, HookTestResult, HooksView, JsonValue } from "../../generated/protocol";
import { type HookForm, editOf, emptyForm, formFromEntry, handlerOf } from "./model";

export interface HookTestState {
  tool: string;
  input: string;
  running: boolean;
  result: HookTestResult | null;
  error: string | null;
}

export interface HooksEditorState {
  view: HooksView | null;
  error: string | null;
  /** The file that changed on disk since it was read (the last save wrote nothing). */
  conflict: string | null;
  status: string | null;
  /** The open add/edit form, or null. */
  form: HookForm | null;
  formError: string | null;
  test: HookTestState;
}

export interface HooksEditorActions {
  reload(): Promise<void>;
  openAdd(): void;
  openEdit(file: string, entry: HookEntryView): void;
  setForm(patch: Partial<HookForm>): void;
  cancelForm(): void;
  saveForm(): Promise<void>;
  remove(file: string, entry: HookEntryView): Promise<void>;
  setEnabled(file: string, entry: HookEntryView, enabled: boolean): Promise<void>;
  setTest(patch: Partial<Pick<HookTestState, "tool" | "input">>): void;
  runTest(): Promise<void>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

const INITIAL_TEST: HookTestState = {
  tool: "Bash",
  input: JSON.stringify({ command: "npm test" }, null, 2),
  running: false,
  result: null,
  error: null,
};

export function useHooksEditor(projectId: number | null): [HooksEditorState, HooksEditorActions] {
  const [view, setView] = useState<HooksView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [form, setFormState] = useState<HookForm | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [test, setTestState] = useState<HookTestState>(INITIAL_TEST);

  const load = useCallback(async (id: number) => {
    const loaded = await backend.hooksView(id);
    setView(loaded);
    setError(null);
    setConflict(null);
  }, []);

  useEffect(() => {
    if (projectId === null) return;
    setFormState(null);
    load(projectId).catch((err: unknown) => setError(message(err)));
  }, [projectId, load]);

  const fingerprintOf = (file: string) => view?.files.find((f) => f.path === file)?.fingerprint ?? "";

  /** Writes one edit; true when it was saved. */
  const write = async (file: string, edit: HookEditRequest, done: string): Promise<boolean> => {
    if (projectId === null) return false;
    let outcome: HookSaveOutcome;
    try {
      outcome = await backend.saveHookEdit(projectId, file, fingerprintOf(file), edit, false);
    } catch (err) {
      setError(message(err));
      return false;
    }
    setView(outcome.view);
    setError(null);
    if (outcome.kind === "conflict") {
      setConflict(outcome.file);
      setStatus(null);
      return false;
    }
    setConflict(null);
    setStatus(done);
    return true;
  };

  const actions: HooksEditorActions = {
    reload: async () => {
      if (projectId === null) return;
      await load(projectId).catch((err: unknown) => setError(message(err)));
    },
    openAdd: () => {
      if (!view) return;
      setFormState(emptyForm(view));
      setFormError(null);
      setTestState((t) => ({ ...t, result: null, error: null }));
    },
    openEdit: (file, entry) => {
      setFormState(formFromEntry(file, entry));
      setFormError(null);
      setTestState((t) => ({ ...t, result: null, error: null }));
    },
    setForm: (patch) => setFormState((f) => (f ? { ...f, ...patch } : f)),
    cancelForm: () => {
      setFormState(null);
      setFormError(null);
    },
    saveForm: async () => {
      if (!form) return;
      const built = handlerOf(form);
      if ("error" in built) {
        setFormError(built.error);
        return;
      }
      if (form.file === "") {
        setFormError("Choose the settings file the hook goes to.");
        return;
      }
      const wasEditing = form.editing !== null;
      setFormError(null);
      try {
        const saved = await backend.saveHookEdit(projectId ?? 0, form.file, fingerprintOf(form.file), editOf(form, built.handler), false);
        setView(saved.view);
        if (saved.kind === "conflict") {
          setConflict(saved.file);
          return;
        }
        setConflict(null);
        setFormState(null);
        setStatus(wasEditing ? "Hook saved; open sessions use it from their next call." : "Hook added; open sessions use it from their next call.");
      } catch (err) {
        // The backend names the file and what is wrong (a matcher that does not compile, …).
        setFormError(message(err));
      }
    },
    remove: async (file, entry) => {
      await write(file, { kind: "remove", event: entry.event, group: entry.group, index: entry.index }, "Hook deleted.");
    },
    setEnabled: async (file, entry, enabled) => {
      await write(
        file,
        { kind: "set_enabled", event: entry.event, group: entry.group, index: entry.index, enabled },
        enabled ? "Hook enabled." : "Hook disabled.",
      );
    },
    setTest: (patch) => setTestState((t) => ({ ...t, ...patch })),
    runTest: async () => {
      if (!form || projectId === null) return;
      const built = handlerOf(form);
      if ("error" in built) {
        setTestState((t) => ({ ...t, result: null, error: built.error }));
        return;
      }
      let input: JsonValue;
      try {
        input = JSON.parse(test.input) as JsonValue;
      } catch (err) {
        setTestState((t) => ({ ...t, result: null, error: `The sample input is not JSON: ${message(err)}` }));
        return;
      }
      const event = view?.events.find((e) => e === form.event);
      if (event === undefined) {
        setTestState((t) => ({ ...t, result: null, error: `Gatehouse does not fire ${form.event}: nothing to test.` }));
        return;
      }
      setTestState((t) => ({ ...t, running: true, error: null }));
      try {
        const result = await backend.testHook({
          project_id: projectId,
          event,
          handler: built.handler,
          tool_name: test.tool.trim(),
          tool_input: input,
        });
        setTestState((t) => ({ ...t, running: false, result, error: null }));
      } catch (err) {
        setTestState((t) => ({ ...t, running: false, result: null, error: message(err) }));
      }
    },
  };
  return [{ view, error, conflict, status, form, formError, test }, actions];
}
