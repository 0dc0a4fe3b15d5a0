// The MCP panel. Test ids are the contract with tests/e2e/tests/mcp.rs:
// mcp, mcp-project, mcp-probe, mcp-add-gatehouse, mcp-add-project,
// mcp-server[data-name], mcp-server-state[data-state], mcp-server-message,
// mcp-tool[data-name], mcp-stderr, mcp-edit, mcp-remove, mcp-toggle-disabled,
// mcp-approve, mcp-sign-in-slot, mcp-sign-in, mcp-sign-out, mcp-notice, mcp-form*, mcp-error,
// mcp-problem.

import type { Project } from "../generated/protocol";
import { Page, PageHeader } from "../components/Page";
import { ServerCard } from "./ServerCard";
import { ServerForm } from "./ServerForm";
import { useMcp } from "./state";
import "./mcp.css";

interface Props {
  projects: Project[] | null;
  onBack(): void;
}

/** MCP servers of a project: every source, state, tools, log; add/edit/remove/disable/approve. */
export function McpScreen({ projects, onBack }: Props) {
  const [state, actions] = useMcp(projects);
  const { panel } = state;
  return (
    <Page name="mcp" className="mcp" testId="mcp">
      <PageHeader title="MCP servers" back={{ label: "Back", testId: "mcp-back", onClick: onBack }}>
        {projects !== null && projects.length > 0 && (
          <select
            data-testid="mcp-project"
            aria-label="Project"
            value={state.projectPath ?? ""}
            onChange={(e) => actions.selectProject(e.target.value)}
          >
            {projects.map((p) => (
              <option key={p.id} value={p.path}>
                {p.name}
              </option>
            ))}
          </select>
        )}
        <button type="button" data-testid="mcp-probe" disabled={state.probing || state.projectPath === null} onClick={() => void actions.probe()}>
          {state.probing ? "Connecting…" : "Reconnect"}
        </button>
      </PageHeader>
      <div className="mcp-body">
        {projects !== null && projects.length === 0 && (
          <p data-testid="mcp-no-project">Open a project folder first: MCP servers are listed per project.</p>
        )}
        {state.error !== null && (
          <p className="error" data-testid="mcp-error" role="alert">
            {state.error}{" "}
            <button type="button" onClick={actions.dismissError}>
              Dismiss
            </button>
          </p>
        )}
        {state.notice !== null && (
          <p className="mcp-notice" data-testid="mcp-notice" role="status">
            {state.notice}
          </p>
        )}
        {panel?.problems.map((p, i) => (
          <p key={i} className="error" data-testid="mcp-problem">
            {p.file}
            {p.server !== null ? `: server \`${p.server}\`` : ""}: {p.message}
          </p>
        ))}
        {panel !== null && (
          <>
            <div className="mcp-actions">
              <button type="button" data-testid="mcp-add-gatehouse" onClick={() => actions.startAdd("gatehouse")}>
                Add server
              </button>
              <button type="button" data-testid="mcp-add-project" onClick={() => actions.startAdd("project")}>
                Add to project .mcp.json
              </button>
            </div>
            {state.form !== null && (
              <ServerForm
                form={state.form}
                errors={state.formErrors}
                saving={state.saving}
                onChange={actions.editForm}
                onSave={() => void actions.saveForm()}
                onCancel={actions.cancelForm}
              />
            )}
            {panel.servers.length === 0 ? (
              <p data-testid="mcp-empty">No MCP servers configured for this project.</p>
            ) : (
              <ul className="mcp-servers">
                {panel.servers.map((entry) => (
                  <ServerCard
                    key={`${entry.scope}:${entry.name}`}
                    entry={entry}
                    probe={state.probes[entry.name]}
                    checking={state.probing}
                    onEdit={() => actions.startEdit(entry)}
                    onRemove={() => void actions.remove(entry)}
                    onSetDisabled={(disabled) => void actions.setDisabled(entry, disabled)}
                    onApprove={() => void actions.approve(entry)}
                    signingIn={state.signingIn === entry.name}
                    onSignIn={() => void actions.signIn(entry)}
                    onSignOut={() => void actions.signOut(entry)}
                  />
                ))}
              </ul>
            )}
          </>
        )}
      </div>
    </Page>
  );
}
