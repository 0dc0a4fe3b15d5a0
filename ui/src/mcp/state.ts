// The MCP panel's state and actions: which project, its configured servers,
// the last probe (state, tools, stderr), and the form being edited.
// Components render this and call the actions; no logic lives in them.

import { useCallback, useEffect, useRef, useState } from "react";

import { backend } from "../client";
import type {
  McpPanel,
  McpServerDraft,
  McpServerEntry,
  McpServerProbe,
  Project,
} from "../generated/protocol";
import { cleanDraft, emptyDraft, formFor, validate, type EditableScope, type FieldErrors, type ServerForm } from "./form";

export interface McpState {
  projectPath: string | null;
  panel: McpPanel | null;
  /** The last probe's result by server name. */
  probes: Record<string, McpServerProbe>;
  probing: boolean;
  form: ServerForm | null;
  /** Problems of the form as typed (empty when it can be saved). */
  formErrors: FieldErrors;
  saving: boolean;
  error: string | null;
  /** The server whose OAuth sign-in is waiting for the browser, if any. */
  signingIn: string | null;
  /** The outcome of the last sign-in or sign-out, for people. */
  notice: string | null;
}

export interface McpActions {
  selectProject(path: string): void;
  probe(): Promise<void>;
  startAdd(scope: EditableScope): void;
  startEdit(entry: McpServerEntry): void;
  editForm(next: ServerForm): void;
  cancelForm(): void;
  saveForm(): Promise<void>;
  remove(entry: McpServerEntry): Promise<void>;
  setDisabled(entry: McpServerEntry, disabled: boolean): Promise<void>;
  approve(entry: McpServerEntry): Promise<void>;
  /** Runs the OAuth sign-in (the browser opens), then probes again. */
  signIn(entry: McpServerEntry): Promise<void>;
  /** Deletes the server's OAuth tokens, then probes again. */
  signOut(entry: McpServerEntry): Promise<void>;
  dismissError(): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Names used in the file of `scope` (for the duplicate-name check). */
export function namesIn(panel: McpPanel | null, scope: EditableScope): string[] {
  return (panel?.servers ?? []).filter((s) => s.scope === scope).map((s) => s.name);
}

export function useMcp(projects: Project[] | null): [McpState, McpActions] {
  const [projectPath, setProjectPath] = useState<string | null>(null);
  const [panel, setPanel] = useState<McpPanel | null>(null);
  const [probes, setProbes] = useState<Record<string, McpServerProbe>>({});
  const [probing, setProbing] = useState(false);
  const [form, setForm] = useState<ServerForm | null>(null);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [signingIn, setSigningIn] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // Only the newest probe's answer is shown.
  const probeSeq = useRef(0);

  const probe = useCallback(async (path: string) => {
    const seq = ++probeSeq.current;
    setProbing(true);
    try {
      const result = await backend.mcpProbe(path);
      if (seq !== probeSeq.current) return;
      setProbes(Object.fromEntries(result.map((p) => [p.name, p])));
    } catch (err) {
      if (seq === probeSeq.current) setError(message(err));
    } finally {
      if (seq === probeSeq.current) setProbing(false);
    }
  }, []);

  // The most recently opened project is shown until another is picked.
  const selected = projectPath ?? projects?.[0]?.path ?? null;
  useEffect(() => {
    if (selected === null) return;
    let cancelled = false;
    backend.mcpServers(selected).then(
      (next) => {
        if (cancelled) return;
        setPanel(next);
        void probe(selected);
      },
      (err: unknown) => {
        if (!cancelled) setError(message(err));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [selected, probe]);

  /** A change was written: show the new list, then reconnect. */
  const applied = useCallback(
    async (next: McpPanel) => {
      setPanel(next);
      setError(null);
      await probe(next.project_path);
    },
    [probe],
  );

  const formErrors = form === null ? {} : validate(form, namesIn(panel, form.scope));

  const run = async (work: () => Promise<McpPanel>) => {
    try {
      await applied(await work());
    } catch (err) {
      setError(message(err));
    }
  };

  const ref = (entry: McpServerEntry) => ({
    project_path: selected ?? "",
    scope: entry.scope,
    name: entry.name,
  });

  return [
    { projectPath: selected, panel, probes, probing, form, formErrors, saving, error, signingIn, notice },
    {
      selectProject: (path) => {
        setProjectPath(path);
        setPanel(null);
        setProbes({});
        setForm(null);
      },
      probe: async () => {
        if (selected !== null) await probe(selected);
      },
      startAdd: (scope) => setForm({ scope, originalName: null, draft: emptyDraft() }),
      startEdit: (entry) => setForm(formFor(entry)),
      editForm: (next) => setForm(next),
      cancelForm: () => setForm(null),
      saveForm: async () => {
        if (form === null || selected === null) return;
        if (Object.keys(formErrors).length > 0) return;
        setSaving(true);
        try {
          const draft: McpServerDraft = cleanDraft(form.draft);
          const next = await backend.mcpSaveServer({
            project_path: selected,
            scope: form.scope,
            original_name: form.originalName,
            draft,
          });
          // Secret values leave the UI once stored: the form is closed and
          // the list shows them as "stored in keychain".
          setForm(null);
          await applied(next);
        } catch (err) {
          setError(message(err));
        } finally {
          setSaving(false);
        }
      },
      remove: (entry) => run(() => backend.mcpRemoveServer(ref(entry))),
      setDisabled: (entry, disabled) =>
        run(() => backend.mcpSetServerDisabled({ ...ref(entry), disabled })),
      approve: (entry) => run(() => backend.mcpApproveServer(ref(entry))),
      signIn: async (entry) => {
        if (selected === null) return;
        setSigningIn(entry.name);
        setNotice(null);
        try {
          const result = await backend.mcpSignIn(selected, entry.name);
          setNotice(`Signed in to ${result.server} (${result.url}).`);
          await probe(selected);
        } catch (err) {
          setError(message(err));
        } finally {
          setSigningIn(null);
        }
      },
      signOut: async (entry) => {
        if (selected === null) return;
        setNotice(null);
        try {
          const result = await backend.mcpSignOut(selected, entry.name);
          setNotice(
            result.signed_out
              ? `Signed out of ${result.server}: its tokens were deleted from the keychain.`
              : `${result.server} had no stored sign-in.`,
          );
          await probe(selected);
        } catch (err) {
          setError(message(err));
        }
      },
      dismissError: () => setError(null),
    },
  ];
}
