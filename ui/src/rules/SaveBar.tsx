// Unsaved changes: save, discard, undo of the last save, and the choice
// when a file changed on disk since it was loaded (reload or overwrite;
// nothing is overwritten silently).

interface Props {
  dirty: boolean;
  canUndo: boolean;
  conflict: string[] | null;
  status: string | null;
  onSave(overwrite: boolean): void;
  onDiscard(): void;
  onReload(): void;
  onUndo(): void;
}

export function SaveBar({ dirty, canUndo, conflict, status, onSave, onDiscard, onReload, onUndo }: Props) {
  return (
    <div className="rules-savebar" data-testid="rules-savebar">
      {dirty ? (
        <span data-testid="rules-dirty">Unsaved changes</span>
      ) : (
        <span className="muted">No unsaved changes</span>
      )}
      <button type="button" data-testid="rules-save" disabled={!dirty} onClick={() => onSave(false)}>
        Save
      </button>
      <button type="button" data-testid="rules-discard" disabled={!dirty} onClick={onDiscard}>
        Discard
      </button>
      <button type="button" data-testid="rules-undo" disabled={!canUndo} onClick={onUndo}>
        Undo last save
      </button>
      {status !== null && (
        <span className="muted" data-testid="rules-status">
          {status}
        </span>
      )}
      {conflict !== null && (
        <div className="rules-conflict" data-testid="rules-conflict" role="alert">
          Changed on disk since the editor loaded {conflict.length === 1 ? "it" : "them"}:{" "}
          <span className="mono">{conflict.join(", ")}</span>. Nothing was written.
          <button type="button" data-testid="rules-reload" onClick={onReload}>
            Reload (drop my edits)
          </button>
          <button type="button" data-testid="rules-overwrite" onClick={() => onSave(true)}>
            Overwrite the rule lists
          </button>
        </div>
      )}
    </div>
  );
}
