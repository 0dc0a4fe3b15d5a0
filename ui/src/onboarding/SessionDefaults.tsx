import { useState } from "react";

import { backend } from "../client";
import type { AppSettings, PermissionMode } from "../generated/protocol";
import { MODE_LABELS, MODES } from "../session/modes";

interface Props {
  settings: AppSettings;
  onSaved(settings: AppSettings): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Settings → New sessions: the model per provider and the permission mode the start form begins with. */
export function SessionDefaults({ settings, onSaved }: Props) {
  const [draft, setDraft] = useState(settings.default_models);
  const [mode, setMode] = useState<PermissionMode>(settings.default_mode);
  const [status, setStatus] = useState<{ saved: boolean; error: string | null }>({ saved: false, error: null });
  const save = () =>
    backend.saveAppSettings({ ...settings, default_models: draft, default_mode: mode }).then(
      (saved) => {
        setDraft(saved.default_models);
        setStatus({ saved: true, error: null });
        onSaved(saved);
      },
      (err: unknown) => setStatus({ saved: false, error: message(err) }),
    );
  return (
    <section className="session-defaults" data-testid="session-defaults">
      <h3>New sessions</h3>
      <label className="onboarding-field">
        Anthropic model{" "}
        <input
          data-testid="default-model-anthropic"
          value={draft.anthropic}
          onChange={(e) => setDraft({ ...draft, anthropic: e.target.value })}
        />
      </label>
      <label className="onboarding-field">
        OpenAI-compatible model{" "}
        <input data-testid="default-model-openai" value={draft.openai} onChange={(e) => setDraft({ ...draft, openai: e.target.value })} />
      </label>
      <label className="onboarding-field">
        Permission mode{" "}
        <select data-testid="default-mode" value={mode} onChange={(e) => setMode(e.target.value as PermissionMode)}>
          {MODES.map((m) => (
            <option key={m} value={m}>
              {MODE_LABELS[m]}
            </option>
          ))}
        </select>
      </label>
      <button type="button" data-testid="session-defaults-save" onClick={() => void save()}>
        Save
      </button>
      {status.saved && (
        <span className="muted" role="status" data-testid="session-defaults-saved">
          Saved.
        </span>
      )}
      {status.error !== null && (
        <p className="error" role="alert" data-testid="session-defaults-error">
          {status.error}
        </p>
      )}
    </section>
  );
}
