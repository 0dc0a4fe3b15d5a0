import { useState } from "react";

import { backend } from "../client";
import type { AppInfo } from "../generated/protocol";
import { Page, PageHeader } from "../components/Page";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The database could not be opened (damaged, from a newer Gatehouse,
 * unwritable): what went wrong, the folder it is in, and a fresh start
 * that keeps the old file (renamed with a timestamp) and restarts the app.
 */
export function DatabaseProblem({ info }: { info: AppInfo }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null; kept: string[] | null }>({
    busy: false,
    error: null,
    kept: null,
  });
  const act = (work: () => Promise<string[] | null>) => {
    setState((s) => ({ ...s, busy: true, error: null }));
    work().then(
      (kept) => setState({ busy: false, error: null, kept }),
      (err: unknown) => setState({ busy: false, error: message(err), kept: null }),
    );
  };
  return (
    <Page name="onboarding" className="database-problem" testId="database-problem">
      <PageHeader title="The database could not be opened" />
      <p data-testid="database-error">{info.database_error}</p>
      <p className="muted">
        It is <code>{info.database_path}</code>. Nothing was changed in it. A fresh database starts empty; the old file
        stays in the same folder, renamed with the date, for a newer Gatehouse or a bug report.
      </p>
      <div className="onboarding-actions">
        <button type="button" data-testid="database-open-folder" disabled={state.busy} onClick={() => act(() => backend.openDataDir().then(() => null))}>
          Open the folder
        </button>
        <button
          type="button"
          className="primary"
          data-testid="database-reset"
          disabled={state.busy || state.kept !== null}
          onClick={() => act(() => backend.resetDatabase().then((r) => r.kept_as))}
        >
          Start with a fresh database
        </button>
      </div>
      {state.kept !== null && (
        <p className="notice" role="status" data-testid="database-kept">
          Kept as {state.kept.join(", ")}. Gatehouse restarts now…
        </p>
      )}
      {state.error !== null && (
        <p className="error" role="alert" data-testid="database-action-error">
          {state.error}
        </p>
      )}
    </Page>
  );
}
