// Settings → Web search: the provider and SearXNG's URL as the backend
// reads them from ~/.gatehouse/settings.json, the drafts being edited, and
// whether WebSearch is available (the typed `unavailable` the sessions
// report as `tools_unavailable`). Brave Search's key goes from its password
// field to the keychain (`set_api_key`, account `brave-search`) and is
// cleared from the UI once stored.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../client";
import type { SearchProviderKind, WebSearchSettings } from "../generated/protocol";

/** The keychain account of Brave Search's key. */
export const BRAVE_ACCOUNT = "brave-search";

export interface WebSearchDraft {
  provider: SearchProviderKind;
  searxngUrl: string;
  braveKey: string;
}

export interface WebSearchState {
  settings: WebSearchSettings | null;
  draft: WebSearchDraft;
  saving: boolean;
  error: string | null;
}

export interface WebSearchActions {
  edit(change: Partial<WebSearchDraft>): void;
  save(): Promise<void>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

const EMPTY: WebSearchDraft = { provider: "none", searxngUrl: "", braveKey: "" };

function draftOf(settings: WebSearchSettings): WebSearchDraft {
  return { provider: settings.provider, searxngUrl: settings.searxng_url ?? "", braveKey: "" };
}

export function useWebSearchSettings(): [WebSearchState, WebSearchActions] {
  const [settings, setSettings] = useState<WebSearchSettings | null>(null);
  const [draft, setDraft] = useState<WebSearchDraft>(EMPTY);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const loaded = useCallback((next: WebSearchSettings) => {
    setSettings(next);
    setDraft(draftOf(next));
  }, []);

  useEffect(() => {
    backend.webSearchSettings().then(loaded, (err: unknown) => setError(message(err)));
  }, [loaded]);

  return [
    { settings, draft, saving, error },
    {
      edit: (change) => setDraft((current) => ({ ...current, ...change })),
      save: async () => {
        setSaving(true);
        try {
          // The key first: a provider saved without its key would be
          // unavailable for nothing.
          if (draft.provider === "brave" && draft.braveKey.trim() !== "") {
            await backend.setApiKey(BRAVE_ACCOUNT, draft.braveKey);
          }
          const url = draft.searxngUrl.trim();
          loaded(await backend.saveWebSearchSettings(draft.provider, url === "" ? null : url));
          setError(null);
        } catch (err) {
          setError(message(err));
          // The key never stays in the UI, stored or not.
          setDraft((current) => ({ ...current, braveKey: "" }));
        } finally {
          setSaving(false);
        }
      },
    },
  ];
}
