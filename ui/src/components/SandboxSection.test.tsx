import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import type { Project, SandboxState, SandboxStateArgs } from "../generated/protocol";
import { sandboxStateView } from "./fixtures";
import { SandboxSection } from "./SandboxSection";

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

/** A backend answering `sandbox_state` with `answer(args)`, recording the calls. */
function fakeBackend(answer: (args: SandboxStateArgs) => SandboxState) {
  const calls: SandboxStateArgs[] = [];
  restore = setTransport({
    invoke: async (command, payload) => {
      if (command !== "sandbox_state") throw new Error(`unexpected command ${command}`);
      const args = payload["args"] as SandboxStateArgs;
      calls.push(args);
      return answer(args);
    },
  });
  return calls;
}

const project: Project = {
  id: 7,
  path: "/work/app",
  name: "app",
  added_at_ms: 0,
  last_opened_ms: 0,
  trusted_at_ms: null,
  has_project_settings: true,
};

describe("SandboxSection", () => {
  it("shows that bubblewrap runs, its version, and each setting with the file it came from", async () => {
    fakeBackend(() => sandboxStateView());
    render(<SandboxSection />);
    const availability = await screen.findByTestId("sandbox-availability");
    expect(availability.getAttribute("data-available")).toBe("yes");
    expect(availability.textContent).toContain("bubblewrap 0.8.0");
    const enabled = screen.getByTestId("sandbox-enabled");
    expect(enabled.getAttribute("data-value")).toBe("yes");
    expect(enabled.textContent).toContain("/home/me/.claude/settings.json");
    expect(screen.getByTestId("sandbox-auto-allow").textContent).toContain("default");
    expect(screen.getByTestId("sandbox-excluded").textContent).toContain("docker");
    expect(screen.getByTestId("sandbox-domains").getAttribute("data-count")).toBe("0");
  });

  it("says why it cannot run and the sysctl that fixes it, from typed fields, and lists setting errors with file:line", async () => {
    fakeBackend(() =>
      sandboxStateView({
        unavailable: {
          reason: "user_namespaces_disabled",
          detail: "bwrap could not create the sandbox (exit status: 1): bwrap: setting up uid map: Permission denied",
          fix: { kind: "sysctl", key: "kernel.apparmor_restrict_unprivileged_userns", value: "0", current: "1" },
        },
        problems: [
          {
            file: "/home/me/.claude/settings.json",
            line: 4,
            column: 27,
            message: "`sandbox.network.allowUnixSockets` is not supported by Gatehouse and is ignored",
            loses_restrictions: false,
          },
        ],
      }),
    );
    render(<SandboxSection />);
    const availability = await screen.findByTestId("sandbox-availability");
    expect(availability.getAttribute("data-available")).toBe("no");
    expect(availability.getAttribute("data-reason")).toBe("user_namespaces_disabled");
    expect(screen.getByTestId("sandbox-settings-fix").textContent).toContain(
      "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    );
    expect(screen.getByTestId("sandbox-problem").textContent).toContain("/home/me/.claude/settings.json:4:27");
  });

  it("reads a chosen project's files and asks the backend to run bwrap again on Check again", async () => {
    const calls = fakeBackend((args) =>
      sandboxStateView({ project: args.project_id === null ? null : project.path }),
    );
    render(<SandboxSection projects={[project]} />);
    await screen.findByTestId("sandbox-availability");
    fireEvent.change(screen.getByTestId("sandbox-project"), { target: { value: "7" } });
    await waitFor(() => expect(calls.length).toBe(2));
    fireEvent.click(screen.getByTestId("sandbox-recheck"));
    await waitFor(() => expect(calls.length).toBe(3));
    expect(calls).toEqual([
      { project_id: null, recheck: false },
      { project_id: 7, recheck: false },
      { project_id: 7, recheck: true },
    ]);
  });

  it("shows the backend's error", async () => {
    restore = setTransport({
      invoke: async () => {
        throw { message: "no project with id 9" };
      },
    });
    render(<SandboxSection />);
    expect((await screen.findByTestId("sandbox-error")).textContent).toContain("no project with id 9");
  });
});
