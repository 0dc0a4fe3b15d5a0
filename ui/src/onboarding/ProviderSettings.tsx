import type { AppSettings } from "../generated/protocol";
import { ProviderForm } from "./ProviderForm";
import { useProviderSetup } from "./useProviderSetup";

interface Props {
  settings: AppSettings;
  keychainUnavailable: string | null;
  onSaved(settings: AppSettings): void;
}

/** Settings → Provider: the first run's choice, changed later. */
export function ProviderSettings({ settings, keychainUnavailable, onSaved }: Props) {
  const [state, actions] = useProviderSetup(settings);
  return (
    <section className="provider-settings" data-testid="provider-settings">
      <h3>Provider</h3>
      <ProviderForm state={state} actions={actions} keychainUnavailable={keychainUnavailable} />
      <button
        type="button"
        data-testid="provider-save"
        disabled={state.busy}
        onClick={() =>
          void actions.save(settings).then((saved) => {
            if (saved !== null) onSaved(saved);
          })
        }
      >
        Save provider
      </button>
    </section>
  );
}
