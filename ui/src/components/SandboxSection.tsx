import type { Project, SandboxEntry, SandboxFlag } from "../generated/protocol";
import { fixText, unavailableReasonText } from "../sandbox/describe";
import { useSandboxState } from "../state/sandbox";

interface Props {
  /** Known projects, offered to show their files' settings too. */
  projects?: Project[] | null;
}

function FlagRow({ name, flag, testId }: { name: string; flag: SandboxFlag; testId: string }) {
  return (
    <tr data-testid={testId} data-value={flag.value ? "yes" : "no"}>
      <th scope="row" className="mono">
        {name}
      </th>
      <td>{flag.value ? "true" : "false"}</td>
      <td className="muted mono small">{flag.file ?? "default"}</td>
    </tr>
  );
}

function EntryRows({ name, entries, testId }: { name: string; entries: SandboxEntry[]; testId: string }) {
  if (entries.length === 0) {
    return (
      <tr data-testid={testId} data-count={0}>
        <th scope="row" className="mono">
          {name}
        </th>
        <td className="muted">none</td>
        <td />
      </tr>
    );
  }
  return (
    <>
      {entries.map((e, i) => (
        <tr key={`${e.value}:${e.file}`} data-testid={testId} data-count={entries.length}>
          <th scope="row" className="mono">
            {i === 0 ? name : ""}
          </th>
          <td className="mono">{e.value}</td>
          <td className="muted mono small">{e.file}</td>
        </tr>
      ))}
    </>
  );
}

/** Settings → Sandbox: whether bubblewrap runs here (and how to fix it), and the `sandbox` settings in force with their files. */
export function SandboxSection({ projects = null }: Props) {
  const [{ state, projectId, checking, error }, actions] = useSandboxState();
  const unavailable = state?.unavailable ?? null;
  const fix = unavailable === null ? null : fixText(unavailable.fix);
  return (
    <section className="sandbox-settings" data-testid="sandbox-settings">
      <h3>Bash sandbox</h3>
      {error !== null && (
        <p className="error" data-testid="sandbox-error" role="alert">
          {error}
        </p>
      )}
      {state !== null && (
        <>
          <p
            className={unavailable === null ? "tool-available" : "tool-unavailable"}
            data-testid="sandbox-availability"
            data-available={unavailable === null ? "yes" : "no"}
            data-reason={unavailable?.reason ?? ""}
          >
            {unavailable === null
              ? `Bubblewrap runs here${state.bwrap_version === null ? "" : ` (${state.bwrap_version})`}: sandboxed commands are confined.`
              : `The sandbox cannot run here: ${unavailableReasonText(unavailable.reason)}. Commands ask as usual.`}
          </p>
          {fix !== null && (
            <p data-testid="sandbox-settings-fix">To fix: {fix}</p>
          )}
          {unavailable !== null && (
            <p className="muted small mono" data-testid="sandbox-settings-detail">
              {unavailable.detail}
            </p>
          )}
          {state.bwrap !== null && <p className="muted small">bwrap: {state.bwrap}</p>}
        </>
      )}
      <div className="sandbox-controls">
        {projects !== null && projects.length > 0 && (
          <label>
            Project{" "}
            <select
              data-testid="sandbox-project"
              value={projectId ?? ""}
              onChange={(e) => actions.chooseProject(e.target.value === "" ? null : Number(e.target.value))}
            >
              <option value="">None (user settings only)</option>
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.path}
                </option>
              ))}
            </select>
          </label>
        )}{" "}
        <button type="button" data-testid="sandbox-recheck" disabled={checking} onClick={() => void actions.recheck()}>
          Check again
        </button>
      </div>
      {state !== null && (
        <>
          <table className="sandbox-table" aria-label="Sandbox settings in force">
            <thead>
              <tr>
                <th scope="col">Setting</th>
                <th scope="col">Value</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              <FlagRow name="sandbox.enabled" flag={state.settings.enabled} testId="sandbox-enabled" />
              <FlagRow
                name="sandbox.autoAllowBashIfSandboxed"
                flag={state.settings.auto_allow}
                testId="sandbox-auto-allow"
              />
              <EntryRows
                name="sandbox.excludedCommands"
                entries={state.settings.excluded_commands}
                testId="sandbox-excluded"
              />
              <EntryRows
                name="sandbox.filesystem.allowWrite"
                entries={state.settings.allow_write}
                testId="sandbox-allow-write"
              />
              <EntryRows name="sandbox.filesystem.denyRead" entries={state.settings.deny_read} testId="sandbox-deny-read" />
              <EntryRows
                name="sandbox.network.allowedDomains"
                entries={state.settings.allowed_domains}
                testId="sandbox-domains"
              />
            </tbody>
          </table>
          {state.settings.forced && (
            <p className="muted small" data-testid="sandbox-forced">
              The managed policy turns the sandbox on; no other file can turn it off.
            </p>
          )}
          {state.problems.length > 0 && (
            <ul className="sandbox-problems" aria-label="Problems in sandbox settings">
              {state.problems.map((p) => (
                <li key={`${p.file}:${p.line}:${p.column}:${p.message}`} className="error small" data-testid="sandbox-problem">
                  <span className="mono">
                    {p.file}:{p.line}:{p.column}
                  </span>{" "}
                  {p.message}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
