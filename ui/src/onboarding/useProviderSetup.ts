// The provider form's state (first run and Settings → Provider): the kind
// chosen, the addresses typed, a key typed into a password field (sent
// straight to the keychain, then cleared), and the last connection test.
// Every rule (what a test means, what is saved) is the backend's.

import { useState } from "react";

import { backend } from "../client";
import type { AppSettings, ConnectionTest, ProviderSetting } from "../generated/protocol";

export type SetupKind = ProviderSetting["kind"];

export interface ProviderSetupState {
  kind: SetupKind;
  anthropicUrl: string;
  openaiUrl: string;
  /** The key typed, until it is stored (never kept after that). */
  keyDraft: string;
  /** The model chosen for the kind (Anthropic's or the server's). */
  model: string;
  test: ConnectionTest | null;
  busy: boolean;
  error: string | null;
}

export interface ProviderSetupActions {
  choose(kind: SetupKind): void;
  setUrl(url: string): void;
  editKey(key: string): void;
  setModel(model: string): void;
  /** Stores a typed key in the keychain, then tries the provider. */
  test(): Promise<void>;
  /** Saves the provider and its model into `settings`; resolves to them as saved, or null on failure. */
  save(settings: AppSettings): Promise<AppSettings | null>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The setting the form describes. */
export function settingOf(state: ProviderSetupState): ProviderSetting {
  switch (state.kind) {
    case "anthropic":
      return { kind: "anthropic", base_url: state.anthropicUrl.trim() === "" ? null : state.anthropicUrl.trim() };
    case "openai":
      return { kind: "openai", base_url: state.openaiUrl.trim() };
    case "demo":
      return { kind: "demo" };
  }
}

function initial(settings: AppSettings): ProviderSetupState {
  const provider = settings.provider;
  const kind: SetupKind = provider?.kind ?? "anthropic";
  return {
    kind,
    anthropicUrl: provider?.kind === "anthropic" ? (provider.base_url ?? "") : "",
    openaiUrl: provider?.kind === "openai" ? provider.base_url : "http://127.0.0.1:11434/v1",
    keyDraft: "",
    model: kind === "openai" ? settings.default_models.openai : settings.default_models.anthropic,
    test: null,
    busy: false,
    error: null,
  };
}

export function useProviderSetup(settings: AppSettings): [ProviderSetupState, ProviderSetupActions] {
  const [state, setState] = useState<ProviderSetupState>(() => initial(settings));
  const patch = (next: Partial<ProviderSetupState>) => setState((prev) => ({ ...prev, ...next }));

  const actions: ProviderSetupActions = {
    choose: (kind) =>
      patch({
        kind,
        keyDraft: "",
        test: null,
        error: null,
        model: kind === "openai" ? settings.default_models.openai : settings.default_models.anthropic,
      }),
    setUrl: (url) => patch(state.kind === "openai" ? { openaiUrl: url, test: null } : { anthropicUrl: url, test: null }),
    editKey: (key) => patch({ keyDraft: key }),
    setModel: (model) => patch({ model }),
    test: async () => {
      patch({ busy: true, error: null, test: null });
      try {
        if (state.kind !== "demo" && state.keyDraft.trim() !== "") {
          await backend.setApiKey(state.kind, state.keyDraft);
          // The key leaves the UI once stored.
          patch({ keyDraft: "" });
        }
        const test = await backend.testProviderConnection(settingOf(state));
        setState((prev) => ({
          ...prev,
          busy: false,
          test,
          // A server's first model, when none was chosen or the chosen one is not listed.
          model:
            prev.kind === "openai" && test.models.length > 0 && !test.models.includes(prev.model)
              ? (test.models[0] ?? prev.model)
              : prev.model,
        }));
      } catch (err) {
        patch({ busy: false, error: message(err) });
      }
    },
    save: async (current) => {
      patch({ busy: true, error: null });
      try {
        const models = { ...current.default_models };
        if (state.kind === "anthropic") models.anthropic = state.model;
        if (state.kind === "openai") models.openai = state.model;
        const saved = await backend.saveAppSettings({ ...current, provider: settingOf(state), default_models: models });
        patch({ busy: false });
        return saved;
      } catch (err) {
        patch({ busy: false, error: message(err) });
        return null;
      }
    },
  };
  return [state, actions];
}
