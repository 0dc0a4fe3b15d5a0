import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { Script } from "./fixtures/build";
import { foldEvents } from "./model";
import { SandboxNotice } from "./SandboxNotice";

afterEach(cleanup);

function unavailableScript(): Script {
  return new Script().add({
    type: "sandbox_unavailable",
    unavailable: {
      reason: "user_namespaces_disabled",
      detail: "bwrap could not create the sandbox (exit status: 1): bwrap: setting up uid map: Permission denied",
      fix: { kind: "sysctl", key: "kernel.apparmor_restrict_unprivileged_userns", value: "0", current: "1" },
    },
  });
}

describe("SandboxNotice", () => {
  it("says the sandbox is unavailable, why and the fix, from sandbox_unavailable's typed fields", () => {
    render(<SandboxNotice unavailable={foldEvents(unavailableScript().events).sandboxUnavailable} />);
    const notice = screen.getByTestId("sandbox-unavailable");
    expect(notice.dataset.reason).toBe("user_namespaces_disabled");
    expect(notice.textContent).toContain(
      "Sandbox unavailable: unprivileged user namespaces are disabled on this machine; commands ask as usual.",
    );
    expect(screen.getByTestId("sandbox-fix").textContent).toContain(
      "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    );
    expect(screen.getByTestId("sandbox-detail").textContent).toContain("setting up uid map");
  });

  it("names the package when bwrap is missing", () => {
    const s = new Script().add({
      type: "sandbox_unavailable",
      unavailable: { reason: "bwrap_missing", detail: "bwrap (bubblewrap) was not found on PATH", fix: { kind: "install_package", package: "bubblewrap" } },
    });
    render(<SandboxNotice unavailable={foldEvents(s.events).sandboxUnavailable} />);
    expect(screen.getByTestId("sandbox-unavailable").textContent).toContain("bubblewrap (bwrap) is not installed");
    expect(screen.getByTestId("sandbox-fix").textContent).toContain("install the bubblewrap package");
  });

  it("goes away when a settings change turns the sandbox off or it runs", () => {
    const s = unavailableScript().add({ type: "sandbox_settings_read", state: "off", problems: [], reloaded: true });
    const model = foldEvents(s.events);
    render(<SandboxNotice unavailable={model.sandboxUnavailable} problems={model.sandboxProblems} />);
    expect(screen.queryByTestId("sandbox-notice")).toBeNull();
  });

  it("lists problems in the sandbox settings with file:line:column, also when the sandbox runs", () => {
    const s = new Script().add({
      type: "sandbox_settings_read",
      state: "on",
      reloaded: true,
      problems: [
        {
          file: "/work/app/.claude/settings.json",
          line: 2,
          column: 35,
          message: "`sandbox.network.allowUnixSockets` is not supported by Gatehouse and is ignored",
          loses_restrictions: false,
        },
      ],
    });
    const model = foldEvents(s.events);
    render(<SandboxNotice unavailable={model.sandboxUnavailable} problems={model.sandboxProblems} />);
    expect(screen.queryByTestId("sandbox-unavailable")).toBeNull();
    const problem = screen.getByTestId("sandbox-settings-problem");
    expect(problem.textContent).toContain("/work/app/.claude/settings.json:2:35");
    expect(problem.textContent).toContain("sandbox.network.allowUnixSockets");
  });
});
