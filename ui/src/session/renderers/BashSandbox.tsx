import type { BashSandboxUse, SandboxConnection, SandboxDenial } from "../../generated/protocol";
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
        text:
          `sandboxed · ${networkLabel(use)} · writable: ${use.writable_roots.join(", ")}` +
          (use.reports_blocked_writes ? "" : " · refused writes not reported"),
        confined: true,
        title: use.reports_blocked_writes
          ? null
          : "gatehouse-sandbox-exec is not installed beside Gatehouse: writes outside the writable folders are still refused, but not listed here",
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

/** A path shown relative to the command's folder when it is inside it. */
function shownPath(path: string, cwd: string | null): string {
  if (cwd === null) return path;
  const base = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return path.startsWith(base) && path.length > base.length ? path.slice(base.length) : path;
}

/** One refusal in words, from its typed kind. */
function denialText(d: SandboxDenial, cwd: string | null): string {
  switch (d.kind) {
    case "write":
      return `write to ${shownPath(d.target, cwd)}`;
    case "network":
      return `network (${d.target} socket)`;
  }
}

/** What the sandbox refused the command (writes, sockets), read from its syscalls (never from its output). */
export function BashBlocked({
  denials,
  omitted,
  cwd,
}: {
  denials: readonly SandboxDenial[] | undefined;
  omitted: number | undefined;
  cwd: string | null;
}) {
  const more = omitted ?? 0;
  if ((!denials || denials.length === 0) && more === 0) return null;
  return (
    <div className="bash-blocked small bad" data-testid="bash-blocked">
      blocked:{" "}
      {(denials ?? []).map((d, i) => (
        <span key={i} data-kind={d.kind} title={`${d.syscall} ${d.target}`}>
          {i > 0 ? " · " : ""}
          {denialText(d, cwd)}
        </span>
      ))}
      {more > 0 ? <span>{` · ${more} more`}</span> : null}
    </div>
  );
}
