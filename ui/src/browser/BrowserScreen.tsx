/**
 * BrowserScreen — the session browser (issue 11): stored sessions of every
 * project with filters, sort and full-text search; a read-only reader; the
 * import of Claude Code transcripts; housekeeping.
 *
 * Test ids (the e2e suite relies on these): browser-screen ·
 * browser-tab-{sessions,import,housekeeping} · session-search-input,
 * session-search-go, search-count, search-group (data-session-id), search-hit
 * (data-session-id, data-seq), search-snippet · session-row (data-session-id,
 * data-origin, data-selected), session-open, session-select, session-select-all,
 * selection-bar, selection-count, delete-selected, delete-selected-what,
 * delete-selected-confirm, delete-selected-keep, selection-clear, list-sort-group,
 * list-sort, list-direction · stored-session (data-session-id), reader-resume,
 * reader-delete, reader-delete-what, reader-delete-confirm, export-jsonl, export-html, export-result
 * (data-path), filter-tool, filter-decision, filter-errors-only, stats-panel
 * · import-row (data-path), import-select, import-selected, import-all,
 * import-progress (data-done), import-result, import-error, import-problem ·
 * db-size, retention-input, retention-save, vacuum.
 */

import { Search, X } from "lucide-react";
import { useMemo, useState } from "react";

import type { SessionSummary } from "../generated/protocol";
import { sessionLabels } from "../format";
import type { StoredSessionTarget } from "../state/home";
import { backend } from "../client";
import { Page, PageHeader } from "../components/Page";
import { Housekeeping } from "./Housekeeping";
import { ImportPanel } from "./ImportPanel";
import { SearchResults } from "./SearchResults";
import { SessionReader } from "./SessionReader";
import { ListFilters, SelectionBar, SessionTable } from "./SessionList";
import { SEARCH_LIMIT, useHousekeeping, useImport, useSearch, useSessionList } from "./state";
import "./browser.css";

type Tab = "sessions" | "import" | "housekeeping";

const TABS: { tab: Tab; label: string }[] = [
  { tab: "sessions", label: "Sessions" },
  { tab: "import", label: "Import from Claude Code" },
  { tab: "housekeeping", label: "Storage" },
];

function ImportTab({ onImported }: { onImported(): void }) {
  const [state, actions] = useImport(onImported);
  return (
    <ImportPanel
      {...state}
      onScan={() => void actions.scan()}
      onToggle={actions.toggle}
      onImportSelected={() => void actions.importSelected()}
      onImportAll={() => void actions.importAll()}
    />
  );
}

function HousekeepingTab({ onChanged }: { onChanged(): void }) {
  const [state, actions] = useHousekeeping(onChanged);
  return (
    <Housekeeping
      {...state}
      onRetentionDraft={actions.setRetentionDraft}
      onSaveRetention={(apply) => void actions.saveRetention(apply)}
      onVacuum={() => void actions.vacuum()}
    />
  );
}

export interface BrowserScreenProps {
  /** The stored session to show in the reader, if any (App state: `openStoredSession`). */
  target: StoredSessionTarget | null;
  onOpen(sessionId: string, seq?: number): void;
  onClose(): void;
  onResume(session: SessionSummary): void;
  onBack(): void;
}

/** The session browser: list and search, reader, import, housekeeping. */
export function BrowserScreen({ target, onOpen, onClose, onResume, onBack }: BrowserScreenProps) {
  const [tab, setTab] = useState<Tab>("sessions");
  const [list, listActions] = useSessionList();
  const [search, searchActions] = useSearch();
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const labels = useMemo(() => sessionLabels(list.sessions ?? [], "(no prompt)"), [list.sessions]);

  if (target) {
    return (
      <Page name="reader" className="browser-reader" fill>
        <SessionReader
          key={target.sessionId}
          sessionId={target.sessionId}
          seq={target.seq}
          nonce={target.nonce}
          onBack={() => {
            onClose();
            listActions.refresh();
          }}
          onResume={onResume}
          onOpenSession={(id) => onOpen(id)}
          onDeleted={() => {
            backend.deleteSessions([target.sessionId]).then(
              () => {
                onClose();
                listActions.refresh();
              },
              (err: unknown) => setDeleteError(err instanceof Error ? err.message : String(err)),
            );
          }}
        />
        {deleteError !== null && (
          <p className="error" role="alert">
            {deleteError}
          </p>
        )}
      </Page>
    );
  }

  return (
    <Page name="sessions" className="browser" testId="browser-screen">
      <PageHeader title="Sessions" back={{ label: "Back", testId: "browser-back", onClick: onBack }}>
        <nav className="browser-tabs" aria-label="Session browser">
          {TABS.map((t) => (
            <button key={t.tab} type="button" data-testid={`browser-tab-${t.tab}`} aria-current={tab === t.tab ? "page" : undefined} onClick={() => setTab(t.tab)}>
              {t.label}
            </button>
          ))}
        </nav>
      </PageHeader>
      {tab === "sessions" && (
        <>
          <form
            className="session-search"
            role="search"
            onSubmit={(e) => {
              e.preventDefault();
              void searchActions.run();
            }}
          >
            <Search size={16} aria-hidden="true" />
            <input
              type="search"
              data-testid="session-search-input"
              aria-label="Search every session"
              placeholder="Search prompts, replies, tool inputs and outputs"
              value={search.text}
              onChange={(e) => searchActions.setText(e.target.value)}
            />
            <button type="submit" data-testid="session-search-go" disabled={search.searching}>
              Search
            </button>
            {search.hits !== null && (
              <button type="button" data-testid="session-search-clear" onClick={searchActions.clear} title="Back to the list">
                <X size={14} aria-hidden="true" /> Clear
              </button>
            )}
          </form>
          {search.error !== null && (
            <p className="error" role="alert" data-testid="search-error">
              {search.error}
            </p>
          )}
          {search.hits !== null ? (
            <SearchResults hits={search.hits} sessions={list.sessions} limit={SEARCH_LIMIT} onOpen={(hit) => onOpen(hit.session_id, hit.seq)} />
          ) : (
            <>
              <ListFilters query={list.query} facets={list.facets} onChange={listActions.setQuery} />
              {list.error !== null && (
                <p className="error" role="alert">
                  {list.error}
                </p>
              )}
              {list.sessions === null ? (
                <p className="muted">Loading…</p>
              ) : (
                <>
                  <SelectionBar
                    listed={list.sessions.map((s) => s.id)}
                    selected={list.selected}
                    labels={labels}
                    onDelete={(ids) => void listActions.remove(ids)}
                    onClear={listActions.clearSelection}
                  />
                  <SessionTable
                    sessions={list.sessions}
                    labels={labels}
                    selected={list.selected}
                    onOpen={(s) => onOpen(s.id)}
                    onToggle={listActions.toggleSelected}
                    onToggleAll={listActions.toggleAll}
                  />
                </>
              )}
            </>
          )}
        </>
      )}
      {tab === "import" && <ImportTab onImported={listActions.refresh} />}
      {tab === "housekeeping" && <HousekeepingTab onChanged={listActions.refresh} />}
    </Page>
  );
}
