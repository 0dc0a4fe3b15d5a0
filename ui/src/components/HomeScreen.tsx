import type { Project } from "../generated/protocol";
import { useNow } from "../state/clock";
import { ProjectList } from "./ProjectList";

interface Props {
  projects: Project[] | null;
  onOpenFolder(): void;
  onOpen(project: Project): void;
}

/** Recent projects and the way to add one. */
export function HomeScreen({ projects, onOpenFolder, onOpen }: Props) {
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
    </main>
  );
}
