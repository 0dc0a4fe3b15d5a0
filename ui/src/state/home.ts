// The home screen's state and actions: what the components render and call.
// Start-up happens here and only here (app info, then the start-up state:
// the damaged-database screen, first run, or the project to reopen), so a
// request to open a folder at start joins this flow in one place.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../client";
import type { AppInfo, AppSettings, Project, SessionSummary, StartupState } from "../generated/protocol";

/**
 * What the window shows first: nothing yet, the damaged-database screen,
 * first run, or the app itself.
 */
export type Phase = "loading" | "database" | "onboarding" | "ready";

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
  /** What the window shows first. */
  phase: Phase;
  /** Settings, keychain state and the project to reopen, once loaded. */
  startup: StartupState | null;
  /** The project to reopen whose folder is gone, until removed or located. */
  missingProject: Project | null;
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
  /** First run is over (finished or skipped): shows the project chosen, else home. */
  finishOnboarding(settings: AppSettings, project: Project | null): void;
  /** The settings as saved (Settings, first run). */
  settingsSaved(settings: AppSettings): void;
  /** Forgets the project whose folder is gone. */
  removeMissingProject(): Promise<void>;
  /** Picks the new folder of the project whose folder is gone and opens it. */
  locateMissingProject(): Promise<void>;
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
  const [phase, setPhase] = useState<Phase>("loading");
  const [startup, setStartup] = useState<StartupState | null>(null);
  const [missingProject, setMissingProject] = useState<Project | null>(null);

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
    /** Settings, then the damaged-database screen, first run, or the app with the project to reopen. */
    const start = async (appInfo: AppInfo) => {
      const state = await backend.startupState();
      if (cancelled) return;
      setStartup(state);
      if (state.settings_error !== null) setError(state.settings_error);
      if (appInfo.database_error !== null) {
        setError(appInfo.database_error);
        setProjects([]);
        setPhase("database");
      } else {
        const list = await backend.listProjects();
        if (!cancelled) setProjects(list);
        const stored = await backend.listSessions({ project_path: null, limit: 20 });
        if (!cancelled) setSessions(stored);
        if (cancelled) return;
        if (!state.settings.onboarding_done) {
          setPhase("onboarding");
        } else if (appInfo.launch_folder !== null) {
          // `gatehouse FOLDER`: that folder's session view, not the last project.
          setPhase("ready");
          await openFolder(appInfo.launch_folder);
        } else {
          if (state.last_project.kind === "reopened") setOpenProject(state.last_project.project);
          if (state.last_project.kind === "missing") setMissingProject(state.last_project.project);
          setPhase("ready");
        }
      }
    };
    (async () => {
      const appInfo = await backend.appInfo();
      if (cancelled) return;
      setInfo(appInfo);
      try {
        await start(appInfo);
      } catch (err) {
        if (cancelled) return;
        setError(message(err));
        // Never a blank window: the home screen, with the error above it.
        setPhase((p) => (p === "loading" ? "ready" : p));
        setProjects((p) => p ?? []);
      }
      if (appInfo.smoke) {
        await backend.smokeReport(
          true,
          `UI loaded; backend ${appInfo.version} answered; data dir ${appInfo.data_dir}`,
        );
      }
    })().catch((err: unknown) => {
      if (cancelled) return;
      setError(message(err));
      setPhase((p) => (p === "loading" ? "ready" : p));
      setProjects((p) => p ?? []);
    });
    return () => {
      cancelled = true;
    };
  }, [openFolder]);

  /** Closes the project's view: no project is reopened at the next start. */
  const closeProjectView = () => {
    setOpenProject(null);
    setResumeSessionId(null);
    void backend.forgetLastProject().catch((err: unknown) => setError(message(err)));
  };

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
      if (!isOverSession(next) && openProject !== null) closeProjectView();
      setStoredSession(null);
      setScreen(next);
    },
    goHome: () => {
      if (openProject !== null) closeProjectView();
      setScreen("home");
      void refresh().catch((err: unknown) => setError(message(err)));
    },
    leaveOverlay: () => {
      if (openProject !== null) setScreen("home");
      else actions.goHome();
    },
    dismissError: () => setError(null),
    openStoredSession: (sessionId, seq) => {
      if (openProject !== null) closeProjectView();
      setScreen("sessions");
      setStoredSession((prev) => ({ sessionId, seq: seq ?? null, nonce: (prev?.nonce ?? 0) + 1 }));
    },
    closeStoredSession: () => setStoredSession(null),
    finishOnboarding: (settings, project) => {
      setStartup((prev) => (prev === null ? prev : { ...prev, settings }));
      setPhase("ready");
      setScreen("home");
      if (project !== null) {
        setResumeSessionId(null);
        setOpenProject(project);
      }
      void refresh().catch((err: unknown) => setError(message(err)));
    },
    settingsSaved: (settings) => setStartup((prev) => (prev === null ? prev : { ...prev, settings })),
    removeMissingProject: async () => {
      if (missingProject === null) return;
      try {
        await backend.removeProject(missingProject.id);
        setMissingProject(null);
        await refresh();
      } catch (err) {
        setError(message(err));
      }
    },
    locateMissingProject: async () => {
      if (missingProject === null) return;
      try {
        const path = await backend.pickFolder();
        if (path === null) return;
        const project = await backend.relocateProject(missingProject.id, path);
        setMissingProject(null);
        setResumeSessionId(null);
        setOpenProject(project);
        await refresh();
      } catch (err) {
        setError(message(err));
      }
    },
  };

  return [
    {
      info,
      projects,
      error,
      openProject,
      resumeSessionId,
      sessions,
      screen,
      storedSession,
      phase,
      startup,
      missingProject,
    },
    actions,
  ];
}
