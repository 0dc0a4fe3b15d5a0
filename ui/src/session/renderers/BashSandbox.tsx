import type { BashSandboxUse, SandboxConnection } from "../../generated/protocol";
import { unavailableReasonText } from "../../sandbox/describe";
import { formatBytes } from "../format";

/** What a sandboxed command's network is, from the typed fields. */
function networkLabel(use: Extract<BashSandboxUse, { state: "sandboxed" }>): string {
  switch (use.network) {
    case "off":
      return "network off";
    case "proxy":
      return `network only ${(use.allowed_domains ?? []).join(", ")}`;
  }
}

/** One line on how a Bash command relates to the sandbox (issue 24), from the typed `started` field. */
export function sandboxLabel(use: BashSandboxUse): { text: string; confined: boolean; title: string | null } {
  switch (use.state) {
    case "sandboxed":
      return {
        text: `sandboxed · ${networkLabel(use)} · writable: ${use.writable_roots.join(", ")}`,
        confined: true,
        title: null,
      };
    case "excluded":
      return { text: "not sandboxed (sandbox.excludedCommands)", confined: false, title: null };
    case "disabled_by_call":
      return { text: "not sandboxed (dangerouslyDisableSandbox, allowed by you)", confined: false, title: null };
    case "unavailable":
      return {
        text:
          use.why === undefined
            ? "not sandboxed: the sandbox is unavailable"
            : `not sandboxed: the sandbox is unavailable (${unavailableReasonText(use.why.reason)})`,
        confined: false,
        title: use.reason,
      };
  }
}

/** The sandbox line of a Bash call; nothing when the session's sandbox is off. */
export function BashSandbox({ use }: { use: BashSandboxUse | null | undefined }) {
  if (!use) return null;
  const label = sandboxLabel(use);
  return (
    <div
      className={`bash-sandbox small ${label.confined ? "muted" : "bad"}`}
      data-testid="bash-sandbox"
      data-state={use.state}
      title={label.title ?? undefined}
    >
      {label.text}
    </div>
  );
}

/** The connections the sandbox's proxy was asked for: host, allowed or blocked, bytes each way. */
export function BashNetwork({ connections }: { connections: readonly SandboxConnection[] | undefined }) {
  if (!connections || connections.length === 0) return null;
  return (
    <div className="bash-network small muted" data-testid="bash-network">
      network:{" "}
      {connections.map((c, i) => (
        <span
          key={i}
          className={c.allowed && !c.error ? undefined : "bad"}
          data-allowed={c.allowed}
          title={c.error ?? undefined}
        >
          {i > 0 ? " · " : ""}
          {c.allowed
            ? `${c.host}:${c.port} ↑${formatBytes(c.bytes_up)} ↓${formatBytes(c.bytes_down)}${c.error ? " (failed)" : ""}`
            : `blocked: ${c.host}:${c.port}`}
        </span>
      ))}
    </div>
  );
}
