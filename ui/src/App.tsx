import { ErrorBanner } from "./components/ErrorBanner";
import { HomeScreen } from "./components/HomeScreen";
import { Logo } from "./components/Logo";
import { SessionView } from "./components/SessionView";
import { useHome } from "./state/home";

export function App() {
  const [state, actions] = useHome();
  return (
    <div className="app">
      <header className="app-header">
        <h1 onClick={actions.goHome}>
          <Logo />
          Gatehouse
        </h1>
        {state.info && <span className="version">v{state.info.version}</span>}
      </header>
      {state.error !== null && <ErrorBanner message={state.error} onDismiss={actions.dismissError} />}
      {state.openProject ? (
        <SessionView project={state.openProject} onBack={actions.goHome} />
      ) : (
        <HomeScreen
          projects={state.projects}
          onOpenFolder={() => void actions.pickAndAddFolder()}
          onOpen={(project) => void actions.open(project)}
        />
      )}
    </div>
  );
}
