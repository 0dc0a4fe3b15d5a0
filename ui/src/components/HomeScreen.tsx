import type { Project, SessionSummary } from "../generated/protocol";
import { plural, sessionLabels, sessionStateLabel, timeAgo } from "../format";
import { SessionLabelView } from "./SessionLabelView";
import { useNow } from "../state/clock";
import { Page, PageHeader } from "./Page";
import { ProjectList } from "./ProjectList";

interface Props {
  projects: Project[] | null;
  onOpenFolder(): void;
  onOpen(project: Project): void;
  sessions: SessionSummary[];
  /** Shows a stored session read-only (the session browser's reader). */
  onOpenStored(sessionId: string): void;
  /** Continues a stored session (an explicit button: opening only looks). */
  onResume(session: SessionSummary): void;
}

/** Recent projects and the way to add one. */
export function HomeScreen({ projects, onOpenFolder, onOpen, sessions, onOpenStored, onResume }: Props) {
  const nowMs = useNow(30_000);
  const labels = sessionLabels(sessions);
  return (
    <Page name="home" className="home" testId="home">
      <PageHeader title="Recent projects">
        <button type="button" className="primary" data-testid="open-folder" onClick={onOpenFolder}>
          Open folder…
        </button>
      </PageHeader>
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
              <li key={s.id} className="stored-session-row">
                <button
                  type="button"
                  className="project"
                  data-testid="session-item"
                  data-session-id={s.id}
                  title="Show this session (read-only)"
                  onClick={() => onOpenStored(s.id)}
                >
                  <SessionLabelView label={labels.get(s.id)} className="project-name" />
                  <span className="project-path">
                    {s.project_path} · {s.provider} {s.model} · {sessionStateLabel(s)} · {plural(s.event_count, "event")}
                  </span>
                  <span className="project-opened">{timeAgo(s.updated_at_ms, nowMs)}</span>
                </button>
                {s.origin === "gatehouse" && (
                  <button type="button" data-testid="session-item-resume" data-session-id={s.id} onClick={() => onResume(s)}>
                    Resume
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </Page>
  );
}
