// Additional working directories: the ones in force, and each editable
// settings file's `additionalDirectories` with add / remove.

import { useState } from "react";

import { SOURCE_LABELS, type Target } from "./model";

interface Props {
  inForce: string[];
  targets: Target[];
  directories: Record<string, string[]>;
  onAdd(target: string, dir: string): void;
  onRemove(target: string, index: number): void;
}

export function DirectoriesPanel({ inForce, targets, directories, onAdd, onRemove }: Props) {
  const files = targets.filter((t) => t.path !== null && (t.editable || (directories[t.key] ?? []).length > 0));
  return (
    <section className="rules-panel" data-testid="rule-directories">
      <h3>Additional directories</h3>
      <p className="muted">
        In force: {inForce.length === 0 ? "none (the project folder only)" : inForce.join(", ")}
      </p>
      {files.map((t) => (
        <DirectoryList
          key={t.key}
          target={t}
          dirs={directories[t.key] ?? []}
          onAdd={(d) => onAdd(t.key, d)}
          onRemove={(i) => onRemove(t.key, i)}
        />
      ))}
    </section>
  );
}

function DirectoryList({
  target,
  dirs,
  onAdd,
  onRemove,
}: {
  target: Target;
  dirs: string[];
  onAdd(dir: string): void;
  onRemove(index: number): void;
}) {
  const [draft, setDraft] = useState("");
  return (
    <div className="dir-list">
      <div className="muted">
        {SOURCE_LABELS[target.source]} · <span className="mono">{target.path}</span>
      </div>
      <ul>
        {dirs.map((d, i) => (
          <li key={`${d}-${i}`} className="mono">
            {d}{" "}
            {target.editable && (
              <button type="button" onClick={() => onRemove(i)}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {target.editable && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onAdd(draft);
            setDraft("");
          }}
        >
          <input className="mono" placeholder="../shared or ~/notes" value={draft} onChange={(e) => setDraft(e.target.value)} />
          <button type="submit" disabled={draft.trim() === ""}>
            Add directory
          </button>
        </form>
      )}
    </div>
  );
}
