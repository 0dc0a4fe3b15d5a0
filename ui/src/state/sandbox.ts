// Settings → Sandbox: the backend's typed SandboxState (whether bubblewrap
// runs here, why not and the fix, the settings in force with their files)
// for the chosen project, loaded on mount and on change; "Check again"
// asks the backend to run bwrap again instead of using its cached probe.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../client";
import type { SandboxState } from "../generated/protocol";

export interface SandboxSectionState {
  state: SandboxState | null;
  /** The project whose files are read too (null: user and managed settings only). */
  projectId: number | null;
  checking: boolean;
  error: string | null;
}

export interface SandboxSectionActions {
  chooseProject(projectId: number | null): void;
  recheck(): Promise<void>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function useSandboxState(): [SandboxSectionState, SandboxSectionActions] {
  const [state, setState] = useState<SandboxState | null>(null);
  const [projectId, setProjectId] = useState<number | null>(null);
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const loaded = useCallback((next: SandboxState) => {
    setState(next);
    setError(null);
  }, []);
  const failed = useCallback((err: unknown) => setError(message(err)), []);

  useEffect(() => {
    backend.sandboxState(projectId, false).then(loaded, failed);
  }, [loaded, failed, projectId]);

  const recheck = async () => {
    setChecking(true);
    try {
      loaded(await backend.sandboxState(projectId, true));
    } catch (err: unknown) {
      failed(err);
    } finally {
      setChecking(false);
    }
  };

  return [
    { state, projectId, checking, error },
    {
      chooseProject: setProjectId,
      recheck,
    },
  ];
}
