import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import type { SandboxConnection, SandboxDenial } from "../../generated/protocol";
import { Script, must } from "../fixtures/build";
import { foldEvents } from "../model";
import { BashView } from "./BashView";

afterEach(cleanup);

function bashWith(
  started: Record<string, unknown>,
  network?: SandboxConnection[],
  blocked?: { denials: SandboxDenial[]; omitted: number },
) {
  const s = new Script().request(1).queue("b", "Bash", { command: "make" }).start("b", 0, false).allow("b");
  s.progress("b", { kind: "started", pid: 7, cwd: "/p", description: null, output_path: "/d/b.log", ...started });
  if (network) s.progress("b", { kind: "network", connections: network });
  if (blocked) s.progress("b", { kind: "blocked", ...blocked });
  s.complete("b", "done", "ok", 10);
  return must(foldEvents(s.events).calls.get("b"), "b");
}

describe("BashView's sandbox line", () => {
  it("says a command ran sandboxed, with its writable roots and network, from the typed field", () => {
    const use = { state: "sandboxed", writable_roots: ["/p", "/cache"], network: "off", reports_blocked_writes: true };
    render(<BashView call={bashWith({ sandbox: use })} />);
    const line = screen.getByTestId("bash-sandbox");
    expect(line.dataset.state).toBe("sandboxed");
    expect(line.textContent).toBe("sandboxed · network off · writable: /p, /cache");
    expect(line.getAttribute("title")).toBeNull();
  });

  it("says when refused writes cannot be reported (the helper is missing, or an older event)", () => {
    render(<BashView call={bashWith({ sandbox: { state: "sandboxed", writable_roots: ["/p"], network: "off" } })} />);
    const line = screen.getByTestId("bash-sandbox");
    expect(line.textContent).toBe("sandboxed · network off · writable: /p · refused writes not reported");
    expect(line.getAttribute("title")).toContain("gatehouse-sandbox-exec");
  });

  it("lists the writes and sockets the sandbox refused, relative to the command's folder, from the typed progress", () => {
    const use = { state: "sandboxed", writable_roots: ["/p"], network: "off", reports_blocked_writes: true };
    const denials: SandboxDenial[] = [
      { kind: "write", target: "/p/.git/config", syscall: "openat" },
      { kind: "write", target: "/etc/hosts", syscall: "openat" },
      { kind: "write", target: "/pp/x", syscall: "unlinkat" },
      { kind: "network", target: "AF_INET", syscall: "socket" },
    ];
    render(<BashView call={bashWith({ sandbox: use }, undefined, { denials, omitted: 2 })} />);
    const line = screen.getByTestId("bash-blocked");
    expect(line.textContent).toBe(
      "blocked: write to .git/config · write to /etc/hosts · write to /pp/x · network (AF_INET socket) · 2 more",
    );
    expect(line.querySelector("span")?.getAttribute("title")).toBe("openat /p/.git/config");
  });

  it("shows no blocked line when nothing was refused", () => {
    const use = { state: "sandboxed", writable_roots: ["/p"], network: "off", reports_blocked_writes: true };
    render(<BashView call={bashWith({ sandbox: use })} />);
    expect(screen.queryByTestId("bash-blocked")).toBeNull();
  });

  it("says when a command ran outside and why, with the reason on hover when unavailable", () => {
    render(<BashView call={bashWith({ sandbox: { state: "unavailable", reason: "bwrap was not found on PATH" } })} />);
    const line = screen.getByTestId("bash-sandbox");
    expect(line.dataset.state).toBe("unavailable");
    expect(line.getAttribute("title")).toBe("bwrap was not found on PATH");
  });

  it("names why it was unavailable from the typed reason when the call carries it", () => {
    const why = { reason: "bwrap_missing", detail: "bwrap (bubblewrap) was not found on PATH", fix: { kind: "install_package", package: "bubblewrap" } };
    render(<BashView call={bashWith({ sandbox: { state: "unavailable", reason: "ignored words", why } })} />);
    expect(screen.getByTestId("bash-sandbox").textContent).toBe(
      "not sandboxed: the sandbox is unavailable (bubblewrap (bwrap) is not installed)",
    );
  });

  it("says which domains the proxy lets through", () => {
    const use = {
      state: "sandboxed",
      writable_roots: ["/p"],
      network: "proxy",
      allowed_domains: ["docs.rs", "*.crates.io"],
      reports_blocked_writes: true,
    };
    render(<BashView call={bashWith({ sandbox: use })} />);
    expect(screen.getByTestId("bash-sandbox").textContent).toBe(
      "sandboxed · network only docs.rs, *.crates.io · writable: /p",
    );
    expect(screen.queryByTestId("bash-network")).toBeNull();
  });

  it("lists the proxy's connections, allowed with their bytes and blocked ones, from the typed progress", () => {
    const use = { state: "sandboxed", writable_roots: ["/p"], network: "proxy", allowed_domains: ["docs.rs"] };
    const connections: SandboxConnection[] = [
      { host: "docs.rs", port: 443, allowed: true, bytes_up: 517, bytes_down: 12_400 },
      { host: "evil.test", port: 80, allowed: false, bytes_up: 0, bytes_down: 0 },
    ];
    render(<BashView call={bashWith({ sandbox: use }, connections)} />);
    const line = screen.getByTestId("bash-network");
    expect(line.textContent).toBe("network: docs.rs:443 ↑517 B ↓12.4 KB · blocked: evil.test:80");
    const spans = line.querySelectorAll("span");
    expect([...spans].map((s) => s.dataset.allowed)).toEqual(["true", "false"]);
  });

  it("shows nothing when the session's sandbox is off", () => {
    render(<BashView call={bashWith({})} />);
    expect(screen.queryByTestId("bash-sandbox")).toBeNull();
  });
});
