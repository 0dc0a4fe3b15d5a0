import type { Project } from "../generated/protocol";

interface Props {
  project: Project;
  onBack(): void;
}

/** A project's session view; sessions arrive with the agent loop. */
export function SessionView({ project, onBack }: Props) {
  return (
    <main className="session" data-testid="session-view">
      <section className="session-header">
        <button type="button" onClick={onBack} data-testid="back-home">
          ← Projects
        </button>
        <h2 data-testid="session-project-name">{project.name}</h2>
        <span className="project-path">{project.path}</span>
      </section>
      <p className="empty">No session yet.</p>
    </main>
  );
}
