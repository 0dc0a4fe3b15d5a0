// The rule editor's Hooks view (issue 18 item 5): every settings-file hook
// of the project by source and event, which run (an untrusted project's are
// listed, not run), malformed entries with file:line:col, add / edit /
// delete / switch, and a test run. State and logic: ./state.ts, ./model.ts.
//
// Test ids are the contract with tests/e2e/tests/hooks.rs: hooks-view,
// hooks-trust, hooks-problem, hooks-add, hooks-status, hooks-conflict,
// hook-file (data-source), hook-row (data-event, data-command, data-runs),
// hook-not-run (data-reason), hook-toggle, hook-edit, hook-delete,
// hook-form, hook-form-*, hook-test-run, hook-test-result (data-verdict).

import { HookFiles } from "./HookFiles";
import { HookForm } from "./HookForm";
import { HookTestPanel } from "./HookTestPanel";
import { editableFiles } from "./model";
import { useHooksEditor } from "./state";
import "./hooks.css";

export function HooksPanel({ projectId }: { projectId: number | null }) {
  const [state, actions] = useHooksEditor(projectId);
  const { view, form } = state;
  return (
    <div className="hooks-view" data-testid="hooks-view">
      {state.error !== null && (
        <p className="error" data-testid="hooks-error" role="alert">
          {state.error}
        </p>
      )}
      {view && (
        <>
          <p className="rules-facts">
            <span data-testid="hooks-trust" data-trusted={view.trusted}>
              {view.trusted
                ? "Trusted project: its project and local hooks run."
                : "Untrusted project: its project and local hooks are listed, not run, until you trust it."}
            </span>
          </p>
          <div className="rules-savebar">
            <button type="button" data-testid="hooks-add" disabled={editableFiles(view).length === 0} onClick={actions.openAdd}>
              Add a hook
            </button>
            <button type="button" data-testid="hooks-reload" onClick={() => void actions.reload()}>
              Reload
            </button>
            {state.status !== null && (
              <span className="muted" data-testid="hooks-status">
                {state.status}
              </span>
            )}
            {state.conflict !== null && (
              <p className="rules-conflict" data-testid="hooks-conflict" role="alert">
                {state.conflict} changed on disk since it was read; nothing was written. The list shows the file as it is now: make the change again.
              </p>
            )}
          </div>
          {view.problems.length > 0 && (
            <ul className="rules-file-problems">
              {view.problems.map((p, i) => (
                <li key={i} className="error" data-testid="hooks-problem">
                  {p.file}:{p.line}:{p.column}: {p.message}
                </li>
              ))}
            </ul>
          )}
          {form && (
            <HookForm
              form={form}
              files={editableFiles(view)}
              events={view.events}
              error={state.formError}
              onChange={actions.setForm}
              onSave={() => void actions.saveForm()}
              onCancel={actions.cancelForm}
            >
              <HookTestPanel
                test={state.test}
                projectPath={view.project.path}
                onChange={actions.setTest}
                onRun={() => void actions.runTest()}
              />
            </HookForm>
          )}
          <HookFiles
            files={view.files}
            onEdit={actions.openEdit}
            onDelete={(file, entry) => void actions.remove(file, entry)}
            onSetEnabled={(file, entry, enabled) => void actions.setEnabled(file, entry, enabled)}
          />
        </>
      )}
    </div>
  );
}
