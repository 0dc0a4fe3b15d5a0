import { ClaudeCodeGuardSection } from "../claudeCode/ClaudeCodeGuardSection";
import type { AppSettings, Project, StartupState } from "../generated/protocol";
import { DataFolder } from "../onboarding/DataFolder";
import { ProviderSettings } from "../onboarding/ProviderSettings";
import { SessionDefaults } from "../onboarding/SessionDefaults";
import { useApiKeys } from "../state/apiKeys";
import { Page, PageHeader } from "./Page";
import { SandboxSection } from "./SandboxSection";
import { ThemeChoice } from "./ThemeChoice";
import { WebSearchSection } from "./WebSearchSection";

interface Props {
  onBack(): void;
  /** The app's settings and keychain state; their sections are left out until loaded. */
  startup?: StartupState | null | undefined;
  /** The data directory shown read-only. */
  dataDir?: string | undefined;
  onSettingsSaved?(settings: AppSettings): void;
  /** Recent projects, offered for guarding one project's Claude Code. */
  projects?: Project[] | null;
}

const PROVIDERS: { id: string; label: string }[] = [
  { id: "anthropic", label: "Anthropic" },
  { id: "openai", label: "OpenAI-compatible" },
];

function describe(source: string | null | undefined): string {
  if (source === "keychain") return "•••••••• (stored in the OS keychain)";
  if (source === "env") return "•••••••• (from the environment)";
  if (source === "settings") return "•••••••• (from settings)";
  if (source === null) return "Not set";
  return "…";
}

/** API keys (typed into password fields, kept only in the OS keychain), the web search provider, the Bash sandbox and Claude Code's guard. */
export function SettingsScreen({
  onBack,
  startup = null,
  dataDir,
  onSettingsSaved = () => undefined,
  projects = null,
}: Props) {
  const [state, actions] = useApiKeys(PROVIDERS.map((p) => p.id));
  return (
    <Page name="settings" className="settings" testId="settings">
      <PageHeader title="Settings" back={{ label: "Back", testId: "settings-back", onClick: onBack }} />
      <ThemeChoice />
      {startup !== null && (
        <>
          <ProviderSettings
            settings={startup.settings}
            keychainUnavailable={startup.keychain_unavailable}
            onSaved={onSettingsSaved}
          />
          <SessionDefaults settings={startup.settings} onSaved={onSettingsSaved} />
        </>
      )}
      <h3>API keys</h3>
      {state.error !== null && (
        <p className="error" data-testid="settings-error" role="alert">
          {state.error}
        </p>
      )}
      {PROVIDERS.map(({ id, label }) => (
        <form
          key={id}
          className="api-key"
          onSubmit={(e) => {
            e.preventDefault();
            void actions.save(id);
          }}
        >
          <label>
            {label}{" "}
            <input
              type="password"
              autoComplete="off"
              data-testid={`api-key-input-${id}`}
              value={state.drafts[id] ?? ""}
              onChange={(e) => actions.edit(id, e.target.value)}
            />
          </label>
          <button type="submit" data-testid={`api-key-save-${id}`}>
            Save
          </button>
          <button type="button" data-testid={`api-key-delete-${id}`} onClick={() => void actions.remove(id)}>
            Delete
          </button>
          <span className="key-status" data-testid={`key-status-${id}`}>
            {describe(state.status[id]?.source)}
          </span>
        </form>
      ))}
      <WebSearchSection />
      <SandboxSection projects={projects} />
      <ClaudeCodeGuardSection projects={projects} />
      {dataDir !== undefined && <DataFolder dataDir={dataDir} />}
    </Page>
  );
}
