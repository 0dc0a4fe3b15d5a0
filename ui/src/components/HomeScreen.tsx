import type { Project, SessionSummary } from "../generated/protocol";
import { timeAgo } from "../format";
import { useNow } from "../state/clock";
import { ProjectList } from "./ProjectList";

interface Props {
  projects: Project[] | null;
  onOpenFolder(): void;
  onOpen(project: Project): void;
  sessions: SessionSummary[];
  onResume(session: SessionSummary): void;
}

/** Recent projects and the way to add one. */
export function HomeScreen({ projects, onOpenFolder, onOpen, sessions, onResume }: Props) {
  const nowMs = useNow(30_000);
  return (
    <main className="home" data-testid="home">
      <section className="home-header">
        <h2>Recent projects</h2>
        <button type="button" className="primary" data-testid="open-folder" onClick={onOpenFolder}>
          Open folder…
        </button>
      </section>
      {projects === null ? (
        <p className="empty">Loading…</p>
      ) : (
        <ProjectList projects={projects} nowMs={nowMs} onOpen={onOpen} />
      )}
      {sessions.length > 0 && (
        <>
          <h2>Recent sessions</h2>
          <ul className="project-list" data-testid="session-list">
            {sessions.map((s) => (
              <li key={s.id}>
                <button
                  type="button"
                  className="project"
                  data-testid="session-item"
                  data-session-id={s.id}
                  onClick={() => onResume(s)}
                >
                  <span className="project-name">{s.title ?? "(no prompt yet)"}</span>
                  <span className="project-path">
                    {s.project_path} · {s.provider} {s.model} · {s.status}
                  </span>
                  <span className="project-opened">{timeAgo(s.updated_at_ms, nowMs)}</span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </main>
  );
}
