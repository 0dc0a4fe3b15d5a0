// API key settings: where each provider's key comes from (never the key),
// and the drafts typed into the password fields until they are saved.

import { useCallback, useEffect, useState } from "react";

import { backend } from "../client";
import type { ApiKeyStatus } from "../generated/protocol";

export interface ApiKeysState {
  status: Record<string, ApiKeyStatus | undefined>;
  drafts: Record<string, string>;
  error: string | null;
}

export interface ApiKeysActions {
  edit(provider: string, key: string): void;
  save(provider: string): Promise<void>;
  remove(provider: string): Promise<void>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function useApiKeys(providers: string[]): [ApiKeysState, ApiKeysActions] {
  const [status, setStatus] = useState<Record<string, ApiKeyStatus | undefined>>({});
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const list = providers.join(",");

  const update = useCallback((s: ApiKeyStatus) => {
    setStatus((all) => ({ ...all, [s.provider]: s }));
  }, []);

  useEffect(() => {
    for (const provider of list.split(",")) {
      backend.apiKeyStatus(provider).then(update, (err: unknown) => setError(message(err)));
    }
  }, [list, update]);

  return [
    { status, drafts, error },
    {
      edit: (provider, key) => setDrafts((all) => ({ ...all, [provider]: key })),
      save: async (provider) => {
        try {
          update(await backend.setApiKey(provider, drafts[provider] ?? ""));
          // The key leaves the UI once stored: the field is cleared.
          setDrafts((all) => ({ ...all, [provider]: "" }));
          setError(null);
        } catch (err) {
          setError(message(err));
        }
      },
      remove: async (provider) => {
        try {
          update(await backend.deleteApiKey(provider));
          setError(null);
        } catch (err) {
          setError(message(err));
        }
      },
    },
  ];
}
