import { lazy, Suspense } from "react";

import { ClaudeCodeAsks } from "./claudeCode/ClaudeCodeAsks";
import { ErrorBanner } from "./components/ErrorBanner";
import { HomeScreen } from "./components/HomeScreen";
import { Logo } from "./components/Logo";
import { DatabaseProblem } from "./onboarding/DatabaseProblem";
import { MissingProject } from "./onboarding/MissingProject";
import { Onboarding } from "./onboarding/Onboarding";
import { startDefaults } from "./onboarding/startDefaults";
import { ShortcutsOverlay } from "./shortcuts/ShortcutsOverlay";
import { useShortcutsOverlay } from "./shortcuts/useShortcutsOverlay";
import { isOverSession, NAVIGATION, useHome } from "./state/home";
import { useWindowRequests } from "./state/windowRequests";

// Screens other than home are their own chunks, loaded when first opened.
const SettingsScreen = lazy(() =>
  import("./components/SettingsScreen").then((module) => ({ default: module.SettingsScreen })),
);
const BrowserScreen = lazy(() =>
  import("./browser/BrowserScreen").then((module) => ({ default: module.BrowserScreen })),
);
const McpScreen = lazy(() => import("./mcp/McpScreen").then((module) => ({ default: module.McpScreen })));
// The project view too: its start form and live-session state are not needed
// until a project is opened.
const SessionView = lazy(() =>
  import("./components/SessionView").then((module) => ({ default: module.SessionView })),
);
const RulesScreen = lazy(() => import("./rules/RulesScreen").then((module) => ({ default: module.RulesScreen })));

export function App() {
  const [state, actions] = useHome();
  const shortcuts = useShortcutsOverlay();
  useWindowRequests({
    openFolder: (path) => void actions.openFolder(path),
    pickFolder: () => void actions.pickAndAddFolder(),
    showShortcuts: shortcuts.show,
  });
  return (
    <div className="app">
      <header className="app-header">
        <h1 onClick={actions.goHome}>
          <Logo />
          Gatehouse
        </h1>
        {state.info && <span className="version">v{state.info.version}</span>}
        {/* First run and the damaged-database screen come before the app's screens. */}
        {state.phase === "ready" && (
        <nav className="app-nav" aria-label="Screens">
          {NAVIGATION.map((item) => (
            <button
              key={item.screen}
              type="button"
              data-testid={item.testId}
              aria-current={state.screen === item.screen && (!state.openProject || isOverSession(item.screen)) ? "page" : undefined}
              onClick={() => actions.openScreen(item.screen)}
            >
              {item.label}
            </button>
          ))}
        </nav>
        )}
      </header>
      {state.error !== null && (
        <div className="page-banner">
          <ErrorBanner message={state.error} onDismiss={actions.dismissError} />
        </div>
      )}
      {state.missingProject !== null && state.phase === "ready" && (
        <div className="page-banner">
          <MissingProject
            project={state.missingProject}
            onRemove={() => void actions.removeMissingProject()}
            onLocate={() => void actions.locateMissingProject()}
          />
        </div>
      )}
      {state.phase === "loading" ? (
        <p className="muted page" data-testid="app-loading">
          Loading…
        </p>
      ) : state.phase === "database" && state.info !== null ? (
        <DatabaseProblem info={state.info} />
      ) : state.phase === "onboarding" && state.startup !== null ? (
        <Onboarding startup={state.startup} projects={state.projects ?? []} onDone={actions.finishOnboarding} />
      ) : (
      <Suspense fallback={<p className="muted" data-testid="screen-loading">Loading…</p>}>
        {state.openProject && (
          // Hidden, not closed, while the rule editor or the MCP panel is over it.
          <div className="session-host" hidden={isOverSession(state.screen)}>
            <SessionView
              key={`${state.openProject.id}:${state.resumeSessionId ?? ""}`}
              project={state.openProject}
              resumeSessionId={state.resumeSessionId}
              onBack={actions.goHome}
              onOpenStored={(sessionId) => actions.openStoredSession(sessionId)}
              onOpenSettings={() => actions.openScreen("settings")}
              defaults={
                state.startup === null
                  ? undefined
                  : startDefaults(state.startup.settings, state.openProject, state.startup.sample_project_path)
              }
            />
          </div>
        )}
        {state.screen === "rules" ? (
          <RulesScreen
            onBack={actions.leaveOverlay}
            onOpenCall={actions.openStoredSession}
            projectId={state.openProject?.id ?? null}
          />
        ) : state.screen === "mcp" ? (
          <McpScreen projects={state.projects} onBack={actions.leaveOverlay} />
        ) : state.openProject ? null : state.screen === "settings" ? (
          <SettingsScreen
            onBack={actions.goHome}
            startup={state.startup}
            dataDir={state.info?.data_dir}
            onSettingsSaved={actions.settingsSaved}
            projects={state.projects}
          />
        ) : state.screen === "sessions" ? (
          <BrowserScreen
            target={state.storedSession}
            onOpen={actions.openStoredSession}
            onClose={actions.closeStoredSession}
            onResume={(session) => void actions.resume(session)}
            onBack={actions.goHome}
          />
        ) : (
          <HomeScreen
            projects={state.projects}
            onOpenFolder={() => void actions.pickAndAddFolder()}
            onOpen={(project) => void actions.open(project)}
            sessions={state.sessions}
            onOpenStored={(sessionId) => actions.openStoredSession(sessionId)}
            onResume={(session) => void actions.resume(session)}
          />
        )}
      </Suspense>
      )}
      {shortcuts.open && <ShortcutsOverlay onClose={shortcuts.close} />}
      <ClaudeCodeAsks />
    </div>
  );
}
