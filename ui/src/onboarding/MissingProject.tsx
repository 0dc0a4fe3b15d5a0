import type { Project } from "../generated/protocol";

interface Props {
  project: Project;
  onRemove(): void;
  onLocate(): void;
}

/** The project open last time is gone from disk: say so, and offer to forget it or find it. */
export function MissingProject({ project, onRemove, onLocate }: Props) {
  return (
    <section className="notice notice-warn missing-project" role="alert" data-testid="missing-project" data-path={project.path}>
      <p>
        The folder of <strong>{project.name}</strong>, <code>{project.path}</code>, is not there any more (moved,
        renamed or on a drive that is not mounted). Its stored sessions are kept.
      </p>
      <button type="button" data-testid="missing-project-locate" onClick={onLocate}>
        Locate the folder…
      </button>
      <button type="button" data-testid="missing-project-remove" onClick={onRemove}>
        Remove from the list
      </button>
    </section>
  );
}
