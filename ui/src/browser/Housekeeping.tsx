import type { StorageInfo } from "../generated/protocol";
import { formatBytes } from "../session/format";
import { plural } from "../format";

/** Database size, retention and VACUUM. */
export function Housekeeping({
  info,
  retentionDraft,
  busy,
  note,
  error,
  onRetentionDraft,
  onSaveRetention,
  onVacuum,
}: {
  info: StorageInfo | null;
  retentionDraft: string;
  busy: boolean;
  note: string | null;
  error: string | null;
  onRetentionDraft(text: string): void;
  onSaveRetention(apply: boolean): void;
  onVacuum(): void;
}) {
  const u = info?.usage;
  return (
    <section className="housekeeping" data-testid="housekeeping">
      {error !== null && (
        <p className="error" role="alert" data-testid="housekeeping-error">
          {error}
        </p>
      )}
      {note !== null && <p data-testid="housekeeping-note">{note}</p>}
      {u && (
        <dl className="usage">
          <dt>Database</dt>
          <dd data-testid="db-size" data-bytes={u.database_bytes}>
            {formatBytes(u.database_bytes)}
          </dd>
          <dt>Write-ahead log</dt>
          <dd>{formatBytes(u.wal_bytes)}</dd>
          <dt>Reclaimable by VACUUM</dt>
          <dd data-testid="db-reclaimable">{formatBytes(u.reclaimable_bytes)}</dd>
          <dt>Session files</dt>
          <dd>{formatBytes(u.session_files_bytes)}</dd>
          <dt>Sessions · events</dt>
          <dd data-testid="db-counts">
            {u.sessions} · {u.events}
          </dd>
        </dl>
      )}
      <form
        className="retention"
        onSubmit={(e) => {
          e.preventDefault();
          onSaveRetention(false);
        }}
      >
        <label>
          Delete sessions{" "}
          <input data-testid="retention-input" inputMode="numeric" size={5} placeholder="never" value={retentionDraft} onChange={(e) => onRetentionDraft(e.target.value)} />{" "}
          days after their last activity
        </label>
        <span className="muted small" data-testid="retention-meaning">
          {retentionMeaning(retentionDraft)}
        </span>
        <button type="submit" data-testid="retention-save" disabled={busy}>
          Save
        </button>
        <button type="button" data-testid="retention-apply" disabled={busy} onClick={() => onSaveRetention(true)}>
          Save and delete older sessions now
        </button>
      </form>
      <button type="button" data-testid="vacuum" disabled={busy} onClick={onVacuum}>
        Compact the database (VACUUM)
      </button>
    </section>
  );
}

/** What the retention field means as typed: "Kept forever." for an empty one. */
export function retentionMeaning(draft: string): string {
  const text = draft.trim();
  if (text === "") return "Empty: sessions are kept forever.";
  const days = Number(text);
  if (!Number.isInteger(days) || days <= 0) return "Enter a whole number of days, or leave it empty to keep sessions forever.";
  return `Sessions idle for more than ${plural(days, "day")} are deleted.`;
}

