import type { SearchProviderKind } from "../generated/protocol";
import { useWebSearchSettings } from "../state/webSearch";

const PROVIDERS: { id: SearchProviderKind; label: string }[] = [
  { id: "none", label: "None" },
  { id: "brave", label: "Brave Search" },
  { id: "searxng", label: "SearXNG" },
];

function keyText(source: string | null | undefined): string {
  if (source === "keychain") return "A key is stored in the OS keychain.";
  if (source === "env") return "A key comes from BRAVE_SEARCH_API_KEY.";
  return "No key is stored.";
}

/** Settings → Web search: the provider WebSearch uses, and whether it is available. */
export function WebSearchSection() {
  const [{ settings, draft, saving, error }, actions] = useWebSearchSettings();
  return (
    <section className="web-search-settings" data-testid="web-search-settings">
      <h3>Web search</h3>
      {error !== null && (
        <p className="error" data-testid="web-search-error" role="alert">
          {error}
        </p>
      )}
      {settings !== null && (
        <p
          className={settings.unavailable === null ? "tool-available" : "tool-unavailable"}
          data-testid="web-search-availability"
          data-available={settings.unavailable === null ? "yes" : "no"}
        >
          {settings.unavailable === null
            ? "WebSearch is available to new sessions."
            : `WebSearch is unavailable: ${settings.unavailable.message}`}
        </p>
      )}
      <form
        className="api-key"
        onSubmit={(e) => {
          e.preventDefault();
          void actions.save();
        }}
      >
        <label>
          Provider{" "}
          <select
            data-testid="web-search-provider"
            value={draft.provider}
            onChange={(e) => actions.edit({ provider: e.target.value as SearchProviderKind })}
          >
            {PROVIDERS.map(({ id, label }) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {draft.provider === "brave" && (
          <>
            <label>
              Brave Search API key{" "}
              <input
                type="password"
                autoComplete="off"
                data-testid="web-search-brave-key"
                value={draft.braveKey}
                onChange={(e) => actions.edit({ braveKey: e.target.value })}
              />
            </label>
            <span className="key-status" data-testid="web-search-brave-key-status">
              {keyText(settings?.brave_key.source)}
            </span>
          </>
        )}
        {draft.provider === "searxng" && (
          <label>
            SearXNG URL{" "}
            <input
              type="url"
              placeholder="http://localhost:8888"
              data-testid="web-search-searxng-url"
              value={draft.searxngUrl}
              onChange={(e) => actions.edit({ searxngUrl: e.target.value })}
            />
          </label>
        )}
        <button type="submit" data-testid="web-search-save" disabled={saving}>
          Save
        </button>
      </form>
      {settings !== null && (
        <p className="muted" data-testid="web-search-file">
          Saved in {settings.settings_file}; sessions started after saving use it.
        </p>
      )}
    </section>
  );
}
