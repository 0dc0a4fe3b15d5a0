import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import type { McpPanel, McpServerEntry, McpServerProbe, Project } from "../generated/protocol";
import { advice, usesOAuth } from "./help";
import { McpScreen } from "./McpScreen";

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

const project: Project = {
  id: 1,
  path: "/p/widget",
  name: "widget",
  added_at_ms: 0,
  last_opened_ms: 0,
  trusted_at_ms: null,
  has_project_settings: false,
};

const fs: McpServerEntry = {
  name: "fs",
  scope: "gatehouse",
  file: "/home/u/.gatehouse/mcp.json",
  transport: "stdio",
  summary: "node fs.js",
  disabled: false,
  trusted: false,
  approval: "not_needed",
  draft: {
    name: "fs",
    transport: { type: "stdio", command: "node", args: ["fs.js"], env: [{ name: "TOKEN", value: "", secret: true, stored: true }] },
    disabled: false,
    trusted: false,
  },
};

const web: McpServerEntry = {
  name: "web",
  scope: "project",
  file: "/p/widget/.mcp.json",
  transport: "http",
  summary: "https://h/mcp",
  disabled: false,
  trusted: false,
  approval: "pending",
  draft: null,
};

function fake(panel: McpPanel, initialProbes: McpServerProbe[]) {
  let probes = initialProbes;
  const calls: [string, Record<string, unknown>][] = [];
  restore = setTransport({
    invoke: async (command, payload) => {
      const args = payload["args"] as Record<string, unknown>;
      calls.push([command, args]);
      if (command === "mcp_probe") return probes;
      if (command === "mcp_sign_in") {
        // The next probe sees the server signed in.
        probes = probes.map((p) => (p.name === args["server"] ? { ...p, state: "connected", message: null } : p));
        return { server: args["server"], url: "https://h/mcp", issuer: "https://h", scopes: [], signed_in: true };
      }
      if (command === "mcp_sign_out") return { server: args["server"], url: "https://h/mcp", signed_out: true };
      return panel;
    },
  });
  return calls;
}

describe("McpScreen", () => {
  it("shows state, tools with annotations, the log, secrets masked, and approve and sign-in places", async () => {
    const calls = fake({ project_path: "/p/widget", servers: [fs, web], problems: [] }, [
      {
        name: "fs",
        state: "connected",
        message: null,
        tools: [
          { name: "read", qualified_name: "mcp__fs__read", description: "", read_only: true, destructive: false, open_world: false },
          { name: "rm", qualified_name: "mcp__fs__rm", description: "", read_only: false, destructive: true, open_world: false },
        ],
        stderr: ["started"],
      },
      { name: "web", state: "needs_auth", message: "https://h/mcp refused the credentials", tools: [], stderr: [] },
    ]);
    render(<McpScreen projects={[project]} onBack={() => undefined} />);
    const card = await screen.findByText("fs");
    const fsCard = card.closest("[data-testid=mcp-server]") as HTMLElement;
    await waitFor(() => expect(within(fsCard).getByTestId("mcp-server-state").dataset["state"]).toBe("connected"));
    const tools = within(fsCard).getAllByTestId("mcp-tool");
    expect(tools.map((t) => t.dataset["name"])).toEqual(["mcp__fs__read", "mcp__fs__rm"]);
    expect(tools[0]?.textContent).toContain("read-only");
    expect(tools[1]?.textContent).toContain("destructive");
    expect(within(fsCard).getByTestId("mcp-stderr").textContent).toContain("started");
    expect(within(fsCard).getByTestId("mcp-secret").textContent).toBe("TOKEN: •••••• stored in keychain");

    const webCard = screen.getByText("web").closest("[data-testid=mcp-server]") as HTMLElement;
    expect(within(webCard).getByTestId("mcp-server-state").textContent).toBe("Needs sign-in");
    expect(within(webCard).getByTestId("mcp-server-message").textContent).toContain("refused the credentials");
    expect(within(webCard).getByTestId("mcp-sign-in-slot")).toBeTruthy();
    expect(within(webCard).queryByTestId("mcp-edit")).toBeNull();
    fireEvent.click(within(webCard).getByTestId("mcp-approve"));
    await waitFor(() => expect(calls.some(([c]) => c === "mcp_approve_server")).toBe(true));
    expect(calls.find(([c]) => c === "mcp_approve_server")?.[1]).toEqual({
      project_path: "/p/widget",
      scope: "project",
      name: "web",
    });
  });

  it("signs in to a needs-auth OAuth server, probes again, and offers sign-out once connected", async () => {
    const calls = fake({ project_path: "/p/widget", servers: [web], problems: [] }, [
      { name: "web", state: "needs_auth", message: "needs sign-in", tools: [], stderr: [] },
    ]);
    render(<McpScreen projects={[project]} onBack={() => undefined} />);
    fireEvent.click(await screen.findByTestId("mcp-sign-in"));
    await waitFor(() => expect(screen.getByTestId("mcp-notice").textContent).toContain("Signed in to web"));
    expect(calls.find(([c]) => c === "mcp_sign_in")?.[1]).toEqual({ project: "/p/widget", server: "web" });
    await waitFor(() => expect(screen.getByTestId("mcp-server-state").dataset["state"]).toBe("connected"));
    expect(calls.filter(([c]) => c === "mcp_probe").length).toBe(2);
    fireEvent.click(screen.getByTestId("mcp-sign-out"));
    await waitFor(() => expect(screen.getByTestId("mcp-notice").textContent).toContain("Signed out of web"));
    expect(calls.find(([c]) => c === "mcp_sign_out")?.[1]).toEqual({ project: "/p/widget", server: "web" });
  });

  it("asks before removing a server, and points at a log only when there is one", async () => {
    const calls = fake({ project_path: "/p/widget", servers: [fs], problems: [] }, [
      { name: "fs", state: "failed", message: "`node` exited (exit status 1) before it answered as an MCP server.", tools: [], stderr: [] },
    ]);
    render(<McpScreen projects={[project]} onBack={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId("mcp-server-state").dataset["state"]).toBe("failed"));
    const card = screen.getByTestId("mcp-server");
    expect(card.textContent).not.toContain("log below");
    expect(advice("failed", fs, true)).toContain("and its log below");
    fireEvent.click(within(card).getByTestId("mcp-remove"));
    expect(calls.some(([c]) => c === "mcp_remove_server")).toBe(false);
    expect(screen.getByTestId("mcp-remove-confirmation").textContent).toContain("Remove fs from /home/u/.gatehouse/mcp.json?");
    fireEvent.click(screen.getByTestId("mcp-remove-cancel"));
    expect(screen.queryByTestId("mcp-remove-confirmation")).toBeNull();
    fireEvent.click(within(card).getByTestId("mcp-remove"));
    fireEvent.click(screen.getByTestId("mcp-remove-confirm"));
    await waitFor(() => expect(calls.some(([c]) => c === "mcp_remove_server")).toBe(true));
  });

  it("offers no OAuth sign-in to a server with an Authorization header", () => {
    const withHeader: McpServerEntry = {
      ...web,
      draft: {
        name: "web",
        transport: { type: "http", url: "https://h/mcp", headers: [{ name: "Authorization", value: "", secret: true, stored: true }] },
        disabled: false,
        trusted: false,
      },
    };
    expect(usesOAuth(withHeader)).toBe(false);
    expect(usesOAuth(web)).toBe(true);
    expect(usesOAuth(fs)).toBe(false);
  });

  it("validates the form as you type and sends a secret only to the save command", async () => {
    const calls = fake({ project_path: "/p/widget", servers: [fs], problems: [] }, []);
    render(<McpScreen projects={[project]} onBack={() => undefined} />);
    fireEvent.click(await screen.findByTestId("mcp-add-gatehouse"));
    const save = screen.getByTestId("mcp-form-save") as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    // Nothing typed yet: nothing is wrong yet.
    expect(screen.queryByTestId("mcp-form-error-name")).toBeNull();
    expect(screen.queryByTestId("mcp-form-error-command")).toBeNull();
    fireEvent.blur(screen.getByTestId("mcp-form-name"));
    expect(screen.getByTestId("mcp-form-error-name").textContent).toBe("enter a name");
    fireEvent.change(screen.getByTestId("mcp-form-name"), { target: { value: "fs" } });
    expect(screen.getByTestId("mcp-form-error-name").textContent).toContain("already a server named `fs`");
    fireEvent.change(screen.getByTestId("mcp-form-name"), { target: { value: "py" } });
    expect(screen.queryByTestId("mcp-form-error-name")).toBeNull();
    fireEvent.blur(screen.getByTestId("mcp-form-command"));
    expect(screen.getByTestId("mcp-form-error-command")).toBeTruthy();
    fireEvent.change(screen.getByTestId("mcp-form-command"), { target: { value: "python3" } });
    fireEvent.change(screen.getByTestId("mcp-form-args"), { target: { value: "server.py\n--stdio" } });
    fireEvent.click(screen.getByTestId("mcp-form-add-value"));
    fireEvent.change(screen.getByTestId("mcp-form-value-name-0"), { target: { value: "API_KEY" } });
    fireEvent.click(screen.getByTestId("mcp-form-value-secret-0"));
    const value = screen.getByTestId("mcp-form-value-value-0") as HTMLInputElement;
    expect(value.type).toBe("password");
    expect(screen.getByTestId("mcp-form-error-env[0].value").textContent).toContain("OS keychain");
    fireEvent.change(value, { target: { value: "sk-typed-secret" } });
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    await waitFor(() => expect(screen.queryByTestId("mcp-form")).toBeNull());
    const saved = calls.filter(([c]) => c === "mcp_save_server");
    expect(saved).toHaveLength(1);
    expect(saved[0]?.[1]).toEqual({
      project_path: "/p/widget",
      scope: "gatehouse",
      original_name: null,
      draft: {
        name: "py",
        transport: {
          type: "stdio",
          command: "python3",
          args: ["server.py", "--stdio"],
          env: [{ name: "API_KEY", value: "sk-typed-secret", secret: true, stored: false }],
        },
        disabled: false,
        trusted: false,
      },
    });
    // No other command carried the secret, and the page no longer holds it.
    const others = calls.filter(([c]) => c !== "mcp_save_server");
    expect(JSON.stringify(others)).not.toContain("sk-typed-secret");
    expect(document.body.innerHTML).not.toContain("sk-typed-secret");
  });

  it("explains a failed server and edits it in place", async () => {
    fake({ project_path: "/p/widget", servers: [fs], problems: [{ file: "/p/widget/.mcp.json", server: "x", message: "has a `url` but no `type`" }] }, [
      { name: "fs", state: "failed", message: "cannot start `nodee`: No such file", tools: [], stderr: [] },
    ]);
    render(<McpScreen projects={[project]} onBack={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId("mcp-server-state").dataset["state"]).toBe("failed"));
    expect(screen.getByTestId("mcp-server-message").textContent).toBe("cannot start `nodee`: No such file");
    expect(screen.getByText(/Check the command/)).toBeTruthy();
    expect(screen.getByTestId("mcp-problem").textContent).toContain("server `x`");
    fireEvent.click(screen.getByTestId("mcp-edit"));
    expect((screen.getByTestId("mcp-form-command") as HTMLInputElement).value).toBe("node");
    const secret = screen.getByTestId("mcp-form-value-value-0") as HTMLInputElement;
    expect(secret.type).toBe("password");
    expect(secret.value).toBe("");
    expect(secret.placeholder).toContain("stored in keychain");
    // A stored secret may stay as it is.
    expect((screen.getByTestId("mcp-form-save") as HTMLButtonElement).disabled).toBe(false);
  });
});
