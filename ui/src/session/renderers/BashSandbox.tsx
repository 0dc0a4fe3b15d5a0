import type { BashSandboxUse } from "../../generated/protocol";

/** One line on how a Bash command relates to the sandbox (issue 24), from the typed `started` field. */
export function sandboxLabel(use: BashSandboxUse): { text: string; confined: boolean; title: string | null } {
  switch (use.state) {
    case "sandboxed":
      return {
        text: `sandboxed · network ${use.network} · writable: ${use.writable_roots.join(", ")}`,
        confined: true,
        title: null,
      };
    case "excluded":
      return { text: "not sandboxed (sandbox.excludedCommands)", confined: false, title: null };
    case "disabled_by_call":
      return { text: "not sandboxed (dangerouslyDisableSandbox, allowed by you)", confined: false, title: null };
    case "unavailable":
      return { text: "not sandboxed: the sandbox is unavailable", confined: false, title: use.reason };
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
