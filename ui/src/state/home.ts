// The home screen's state and actions: what the components render and call.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../client";
import type { AppInfo, Project } from "../generated/protocol";

export interface HomeState {
  info: AppInfo | null;
  projects: Project[] | null;
  error: string | null;
  /** The project whose session view is open, if any. */
  openProject: Project | null;
}

export interface HomeActions {
  pickAndAddFolder(): Promise<void>;
  open(project: Project): Promise<void>;
  goHome(): void;
  dismissError(): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function useHome(): [HomeState, HomeActions] {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [openProject, setOpenProject] = useState<Project | null>(null);

  const refresh = useCallback(async () => {
    setProjects(await backend.listProjects());
  }, []);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      const appInfo = await backend.appInfo();
      if (cancelled) return;
      setInfo(appInfo);
      if (appInfo.database_error !== null) {
        setError(appInfo.database_error);
        setProjects([]);
      } else {
        const list = await backend.listProjects();
        if (!cancelled) setProjects(list);
      }
      if (appInfo.smoke) {
        await backend.smokeReport(
          true,
          `UI loaded; backend ${appInfo.version} answered; data dir ${appInfo.data_dir}`,
        );
      }
    })().catch((err: unknown) => {
      if (!cancelled) setError(message(err));
    });
    return () => {
      cancelled = true;
    };
  }, []);

  const actions: HomeActions = {
    pickAndAddFolder: async () => {
      try {
        const path = await backend.pickFolder();
        if (path === null) return;
        const project = await backend.addProject(path);
        await refresh();
        setOpenProject(project);
      } catch (err) {
        setError(message(err));
      }
    },
    open: async (project) => {
      try {
        setOpenProject(await backend.openProject(project.id));
        await refresh();
      } catch (err) {
        setError(message(err));
      }
    },
    goHome: () => setOpenProject(null),
    dismissError: () => setError(null),
  };

  return [{ info, projects, error, openProject }, actions];
}
