import type { Project } from "../generated/protocol";
import { ProjectList } from "../components/ProjectList";
import { useNow } from "../state/clock";

interface Props {
  projects: Project[];
  /** The demo was chosen: the sample project comes first. */
  demo: boolean;
  busy: boolean;
  onPickFolder(): void;
  onOpen(project: Project): void;
  onCreateSample(): void;
  onSkip(): void;
}

/** Step 2: a folder of your own, a recent project, or the sample project for the demo. */
export function ProjectStep({ projects, demo, busy, onPickFolder, onOpen, onCreateSample, onSkip }: Props) {
  const nowMs = useNow(30_000);
  return (
    <section className="onboarding-step" data-testid="onboarding-project">
      <h3>Open a project</h3>
      <p className="muted">The folder the agent works in. Gatehouse asks before it edits anything.</p>
      <div className="onboarding-actions">
        <button type="button" className={demo ? undefined : "primary"} data-testid="onboarding-open-folder" disabled={busy} onClick={onPickFolder}>
          Open folder…
        </button>
        <button type="button" className={demo ? "primary" : undefined} data-testid="onboarding-create-sample" disabled={busy} onClick={onCreateSample}>
          Create the sample project{demo ? " and try the demo" : ""}
        </button>
        <button type="button" data-testid="onboarding-skip-project" disabled={busy} onClick={onSkip}>
          Skip
        </button>
      </div>
      {projects.length > 0 && (
        <>
          <h4>Recent projects</h4>
          <ProjectList projects={projects} nowMs={nowMs} onOpen={onOpen} />
        </>
      )}
    </section>
  );
}
