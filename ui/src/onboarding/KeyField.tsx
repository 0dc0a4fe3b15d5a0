import { useApiKeys } from "../state/apiKeys";

interface Props {
  provider: "anthropic" | "openai";
  draft: string;
  onChange(key: string): void;
  optional?: boolean;
}

function where(source: string | null | undefined): string {
  if (source === "keychain") return "a key is stored in the OS keychain";
  if (source === "env") return "a key comes from the environment";
  if (source === null) return "no key yet";
  return "…";
}

/** A key typed into a password field; where the current key comes from (never the key). */
export function KeyField({ provider, draft, onChange, optional = false }: Props) {
  const [keys] = useApiKeys([provider]);
  return (
    <label className="onboarding-field">
      API key{optional ? " (optional)" : ""}{" "}
      <input
        type="password"
        autoComplete="off"
        data-testid="onboarding-key-input"
        value={draft}
        placeholder={keys.status[provider]?.source ? "leave empty to keep it" : ""}
        onChange={(e) => onChange(e.target.value)}
      />{" "}
      <span className="muted" data-testid="onboarding-key-status" data-source={keys.status[provider]?.source ?? "none"}>
        ({where(keys.status[provider]?.source)})
      </span>
    </label>
  );
}
