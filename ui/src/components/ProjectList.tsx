import type { Project } from "../generated/protocol";
import { timeAgo } from "../format";

interface Props {
  projects: Project[];
  nowMs: number;
  onOpen(project: Project): void;
}

/** The recent-projects list on the home screen. */
export function ProjectList({ projects, nowMs, onOpen }: Props) {
  if (projects.length === 0) {
    return (
      <p className="empty" data-testid="no-projects">
        No projects yet. Open a folder to start.
      </p>
    );
  }
  return (
    <ul className="project-list" data-testid="project-list">
      {projects.map((project) => (
        <li key={project.id}>
          <button
            type="button"
            className="project"
            data-testid="project"
            data-path={project.path}
            onClick={() => onOpen(project)}
          >
            <span className="project-name">{project.name}</span>
            <span className="project-path">{project.path}</span>
            <span className="project-opened">opened {timeAgo(project.last_opened_ms, nowMs)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
