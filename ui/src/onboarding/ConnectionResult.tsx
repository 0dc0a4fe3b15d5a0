import type { ConnectionTest } from "../generated/protocol";

/** The last connection test: passed, or the failure it names (`data-failure`). */
export function ConnectionResult({ test }: { test: ConnectionTest | null }) {
  if (test === null) return null;
  const ok = test.failure === null;
  return (
    <p
      className={ok ? "notice" : "notice notice-warn"}
      role="status"
      data-testid="connection-result"
      data-failure={test.failure ?? "none"}
    >
      {ok ? "Connected: " : "Not connected: "}
      {test.message}
    </p>
  );
}
