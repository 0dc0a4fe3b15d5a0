import type { ClaudeDiscovery, ImportFileResult, ImportProgress } from "../generated/protocol";
import { formatBytes } from "../session/format";
import { plural } from "../format";

/** The share of an import done, 0–1 (bytes, else files). */
export function progressFraction(progress: ImportProgress | null): number {
  if (!progress) return 0;
  if (progress.bytes_total > 0) return Math.min(1, progress.bytes_done / progress.bytes_total);
  return progress.files_total > 0 ? Math.min(1, progress.files_done / progress.files_total) : 0;
}

function importedLabel(size: number, imported: number | null): string {
  if (imported === null) return "not imported";
  if (imported >= size) return "imported";
  return `${formatBytes(size - imported)} new`;
}

/** One file's result: outcome and counts, or its error; skipped lines with file:line. */
function ResultRow({ result }: { result: ImportFileResult }) {
  if (result.error !== null || !result.report) {
    return (
      <li className="import-result bad" data-testid="import-error">
        <span className="mono">{result.path}</span>: {result.error ?? "no report"}
      </li>
    );
  }
  const r = result.report;
  return (
    <li className="import-result" data-testid="import-result" data-outcome={r.outcome} data-session-id={r.session_id}>
      <span className="mono">{r.path}</span> — {r.outcome}, {plural(r.events, "event")} from {plural(r.lines, "line")}
      {r.skipped_lines > 0 && (
        <>
          , {r.skipped_lines} skipped
          <ul className="problems">
            {r.problems.map((p) => (
              <li key={`${p.path}:${p.line}`} data-testid="import-problem" className="mono small">
                {p.path}:{p.line}: {p.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </li>
  );
}

/** Claude Code transcripts found, the selection, progress and results. */
export function ImportPanel({
  discovery,
  selected,
  importing,
  progress,
  results,
  error,
  onScan,
  onToggle,
  onImportSelected,
  onImportAll,
}: {
  discovery: ClaudeDiscovery | null;
  selected: ReadonlySet<string>;
  importing: boolean;
  progress: ImportProgress | null;
  results: readonly ImportFileResult[] | null;
  error: string | null;
  onScan(): void;
  onToggle(path: string): void;
  onImportSelected(): void;
  onImportAll(): void;
}) {
  const found = discovery?.transcripts ?? [];
  const fraction = progressFraction(progress);
  return (
    <section className="import-panel" data-testid="import-panel">
      <p className="muted">
        Claude Code transcripts under <span className="mono" data-testid="import-root">{discovery?.root ?? "…"}</span>{" "}
        <button type="button" className="link" data-testid="import-scan" onClick={onScan} disabled={importing}>
          Scan again
        </button>
      </p>
      {error !== null && (
        <p className="error" role="alert" data-testid="import-panel-error">
          {error}
        </p>
      )}
      {discovery && found.length === 0 && <p className="empty">No transcripts found there.</p>}
      {found.length > 0 && (
        <table className="import-table">
          <tbody>
            {found.map((t) => (
              <tr key={t.path} data-testid="import-row" data-path={t.path} data-session-id={t.session_id}>
                <td>
                  <input type="checkbox" aria-label={`Select ${t.path}`} data-testid="import-select" checked={selected.has(t.path)} onChange={() => onToggle(t.path)} disabled={importing} />
                </td>
                <td className="mono small">
                  {t.project_dir}/{t.path.split("/").pop()}
                  {t.parent_session_id !== null && <span className="badge">sub-agent</span>}
                </td>
                <td className="small">{formatBytes(t.size_bytes)}</td>
                <td className="small" data-testid="import-status">
                  {importedLabel(t.size_bytes, t.imported_bytes)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="import-actions">
        <button type="button" data-testid="import-selected" disabled={importing || selected.size === 0} onClick={onImportSelected}>
          Import selected ({selected.size})
        </button>
        <button type="button" className="primary" data-testid="import-all" disabled={importing || found.length === 0} onClick={onImportAll}>
          Import all
        </button>
      </div>
      {(importing || progress) && (
        <div className="import-progress" data-testid="import-progress" data-done={importing ? "false" : "true"}>
          <progress max={1} value={fraction} />
          <span className="small muted">
            {progress ? `${progress.files_done}/${progress.files_total} files · ${formatBytes(progress.bytes_done)} of ${formatBytes(progress.bytes_total)}` : "Starting…"}
          </span>
        </div>
      )}
      {results && (
        <ul className="import-results" data-testid="import-results">
          {results.map((r) => (
            <ResultRow key={r.path} result={r} />
          ))}
        </ul>
      )}
    </section>
  );
}
