/** The environment variable each keyed provider reads (display only; the backend looks it up). */
const ENV_NAMES: Record<string, string> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" };

/** The OS keychain cannot be used: say why, and offer the environment route. */
export function KeychainNotice({ reason, provider }: { reason: string | null; provider: "anthropic" | "openai" }) {
  if (reason === null) return null;
  return (
    <p className="notice notice-warn" role="status" data-testid="keychain-unavailable">
      The OS keychain cannot be used ({reason}), so a key typed here cannot be kept. Set{" "}
      <code>{ENV_NAMES[provider]}</code> in the environment Gatehouse starts from instead, then start it again.
    </p>
  );
}
