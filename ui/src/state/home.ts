// The home screen's state and actions: what the components render and call.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../client";
import type { AppInfo, Project, SessionSummary } from "../generated/protocol";

export interface HomeState {
  info: AppInfo | null;
  projects: Project[] | null;
  error: string | null;
  /** The project whose session view is open, if any. */
  openProject: Project | null;
  /** The stored session to resume in that view, if any. */
  resumeSessionId: string | null;
  /** Stored sessions of every project, newest first. */
  sessions: SessionSummary[];
  /**
   * The top-level screen shown when no project's session view is open; or
   * "rules" over an open session view, which stays open behind it (so rules
   * saved there reach the live session, and "back" returns to it).
   */
  screen: Screen;
  /** The stored session the session browser's reader shows, if any. */
  storedSession: StoredSessionTarget | null;
}

/** A stored session to open in the reader, and the event to scroll to. */
export interface StoredSessionTarget {
  sessionId: string;
  /** The event's position in the session (from 1), as search hits and replays give it. */
  seq: number | null;
  /** Changes on every request, so asking again for the same place scrolls again. */
  nonce: number;
}

/**
 * The app's top-level screens, reached from the header's navigation.
 * Each feature (settings, rules, session browser, MCP) adds one entry here,
 * one in {@link NAVIGATION} and one case in `App`.
 */
export type Screen = "home" | "settings" | "sessions" | "rules" | "mcp";

/** Screens that open over a live session instead of closing it. */
export function isOverSession(screen: Screen): boolean {
  return screen === "rules" || screen === "mcp";
}

/** The header's navigation: one button per screen other than home. */
export const NAVIGATION: { screen: Exclude<Screen, "home">; label: string; testId: string }[] = [
  { screen: "sessions", label: "Sessions", testId: "open-sessions" },
  { screen: "rules", label: "Rules", testId: "open-rules" },
  { screen: "mcp", label: "MCP", testId: "open-mcp" },
  { screen: "settings", label: "Settings", testId: "open-settings" },
];

export interface HomeActions {
  pickAndAddFolder(): Promise<void>;
  /** Adds (if new) and opens the folder at `path`: `gatehouse FOLDER`, or a second launch handing it over. */
  openFolder(path: string): Promise<void>;
  open(project: Project): Promise<void>;
  resume(session: SessionSummary): Promise<void>;
  /**
   * Shows a top-level screen, closing any open session view — except the
   * rule editor and the MCP panel, which open over the session (it stays
   * open behind them, and their edits reach it).
   */
  openScreen(screen: Screen): void;
  goHome(): void;
  /** Leaves the rule editor or the MCP panel: back to the session behind it, else home. */
  leaveOverlay(): void;
  dismissError(): void;
  /**
   * Opens stored session `sessionId` in the session browser's reader,
   * scrolled to event `seq` (from 1) when given — what search hits and
   * the rule replay's list link to.
   */
  openStoredSession(sessionId: string, seq?: number): void;
  /** Closes the reader (back to the session browser's list). */
  closeStoredSession(): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function useHome(): [HomeState, HomeActions] {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [openProject, setOpenProject] = useState<Project | null>(null);
  const [resumeSessionId, setResumeSessionId] = useState<string | null>(null);
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [screen, setScreen] = useState<Screen>("home");
  const [storedSession, setStoredSession] = useState<StoredSessionTarget | null>(null);

  const refresh = useCallback(async () => {
    setProjects(await backend.listProjects());
    setSessions(await backend.listSessions({ project_path: null, limit: 20 }));
  }, []);

  const openFolder = useCallback(
    async (path: string) => {
      try {
        const project = await backend.addProject(path);
        await refresh();
        setResumeSessionId(null);
        setStoredSession(null);
        setScreen("home");
        setOpenProject(project);
      } catch (err) {
        setError(message(err));
      }
    },
    [refresh],
  );

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
        const stored = await backend.listSessions({ project_path: null, limit: 20 });
        if (!cancelled) setSessions(stored);
        // `gatehouse FOLDER`: that folder's session view, not the home screen.
        if (!cancelled && appInfo.launch_folder !== null) await openFolder(appInfo.launch_folder);
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
  }, [openFolder]);

  const actions: HomeActions = {
    pickAndAddFolder: async () => {
      try {
        const path = await backend.pickFolder();
        if (path === null) return;
        await openFolder(path);
      } catch (err) {
        setError(message(err));
      }
    },
    openFolder,
    open: async (project) => {
      try {
        setResumeSessionId(null);
        setOpenProject(await backend.openProject(project.id));
        await refresh();
      } catch (err) {
        setError(message(err));
      }
    },
    resume: async (session) => {
      try {
        // A session started by the CLI may be in a folder the app has not opened yet.
        const project = await backend.addProject(session.project_path);
        setResumeSessionId(session.id);
        setOpenProject(project);
        await refresh();
      } catch (err) {
        setError(message(err));
      }
    },
    openScreen: (next) => {
      if (!isOverSession(next)) {
        setOpenProject(null);
        setResumeSessionId(null);
      }
      setStoredSession(null);
      setScreen(next);
    },
    goHome: () => {
      setOpenProject(null);
      setResumeSessionId(null);
      setScreen("home");
      void refresh().catch((err: unknown) => setError(message(err)));
    },
    leaveOverlay: () => {
      if (openProject !== null) setScreen("home");
      else actions.goHome();
    },
    dismissError: () => setError(null),
    openStoredSession: (sessionId, seq) => {
      setOpenProject(null);
      setResumeSessionId(null);
      setScreen("sessions");
      setStoredSession((prev) => ({ sessionId, seq: seq ?? null, nonce: (prev?.nonce ?? 0) + 1 }));
    },
    closeStoredSession: () => setStoredSession(null),
  };

  return [
    { info, projects, error, openProject, resumeSessionId, sessions, screen, storedSession },
    actions,
  ];
}
