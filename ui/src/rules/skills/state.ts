// The Skills panel's state: the project's skills as the backend reads them
// (which load, last use, broken folders), read again on demand. Components
// only render this.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../../client";
import type { SkillsView } from "../../generated/protocol";

export interface SkillsPanelState {
  /** The view of the project shown now (null until it is read). */
  view: SkillsView | null;
  error: string | null;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

interface Loaded {
  projectId: number;
  view: SkillsView | null;
  error: string | null;
}

export function useSkills(projectId: number | null): [SkillsPanelState, () => Promise<void>] {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const reload = useCallback(async () => {
    if (projectId === null) return;
    try {
      const view = await backend.skillsView(projectId);
      setLoaded({ projectId, view, error: null });
    } catch (err) {
      setLoaded((prev) => ({ projectId, view: prev?.projectId === projectId ? prev.view : null, error: message(err) }));
    }
  }, [projectId]);
  useEffect(() => {
    void reload();
  }, [reload]);
  // Another project's view is never shown while this one's is read.
  const current = loaded !== null && loaded.projectId === projectId ? loaded : null;
  return [{ view: current?.view ?? null, error: current?.error ?? null }, reload];
}
