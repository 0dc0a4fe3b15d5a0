import type { ProviderSetupActions, ProviderSetupState } from "./useProviderSetup";
import { ConnectionResult } from "./ConnectionResult";
import { KeychainNotice } from "./KeychainNotice";
import { KeyField } from "./KeyField";

interface Props {
  state: ProviderSetupState;
  actions: ProviderSetupActions;
  keychainUnavailable: string | null;
}

const CHOICES = [
  { kind: "anthropic", label: "Anthropic", hint: "Claude models; your API key goes to the OS keychain." },
  { kind: "openai", label: "OpenAI-compatible server", hint: "Ollama, vLLM, LM Studio… at a URL you give." },
  { kind: "demo", label: "Offline demo", hint: "A recorded session on a sample project; no account needed." },
] as const;

/** The provider's fields: which one, its address, key, model, and a connection test. */
export function ProviderForm({ state, actions, keychainUnavailable }: Props) {
  return (
    <div className="provider-form">
      <fieldset className="provider-choice" data-testid="provider-choice">
        <legend>Provider</legend>
        {CHOICES.map((c) => (
          <label key={c.kind}>
            <input
              type="radio"
              name="provider"
              value={c.kind}
              data-testid={`provider-choice-${c.kind}`}
              checked={state.kind === c.kind}
              onChange={() => actions.choose(c.kind)}
            />{" "}
            {c.label} <span className="muted">— {c.hint}</span>
          </label>
        ))}
      </fieldset>
      {state.kind === "demo" ? (
        <p className="muted" data-testid="demo-note">
          The demo plays only in the sample project, created in the next step; your own folders need a real
          provider.
        </p>
      ) : (
        <>
          <KeychainNotice reason={keychainUnavailable} provider={state.kind} />
          <label className="onboarding-field">
            {state.kind === "openai" ? "Server URL" : "API URL (optional)"}{" "}
            <input
              data-testid="provider-url"
              placeholder={state.kind === "openai" ? "http://127.0.0.1:11434/v1" : "https://api.anthropic.com"}
              value={state.kind === "openai" ? state.openaiUrl : state.anthropicUrl}
              onChange={(e) => actions.setUrl(e.target.value)}
            />
          </label>
          <KeyField
            key={state.kind}
            provider={state.kind}
            draft={state.keyDraft}
            onChange={actions.editKey}
            optional={state.kind === "openai"}
          />
          <label className="onboarding-field">
            Model{" "}
            {state.test !== null && state.test.models.length > 0 ? (
              <select data-testid="provider-model-select" value={state.model} onChange={(e) => actions.setModel(e.target.value)}>
                {state.test.models.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            ) : (
              <input data-testid="provider-model-input" value={state.model} onChange={(e) => actions.setModel(e.target.value)} />
            )}
          </label>
          <button type="button" data-testid="provider-test" disabled={state.busy} onClick={() => void actions.test()}>
            {state.kind === "openai" ? "Connect and list models" : "Test the connection"}
          </button>
          <ConnectionResult test={state.test} />
        </>
      )}
      {state.error !== null && (
        <p className="error" role="alert" data-testid="provider-error">
          {state.error}
        </p>
      )}
    </div>
  );
}
