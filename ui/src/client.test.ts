import { afterEach, describe, expect, it } from "vitest";

import { BackendError, backend, setTransport } from "./client";

let restore: (() => void) | null = null;
afterEach(() => restore?.());

describe("typed client", () => {
  it("sends each command's arguments under `args`", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    restore = setTransport({
      invoke: async (command, payload) => {
        calls.push([command, payload]);
        return { id: 7, path: "/p", name: "p", added_at_ms: 1, last_opened_ms: 2 };
      },
    });
    const project = await backend.addProject("/p");
    expect(calls).toEqual([["add_project", { args: { path: "/p" } }]]);
    expect(project.id).toBe(7);
  });

  it("sends MCP sign-in and sign-out with the project and server name", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    restore = setTransport({
      invoke: async (command, payload) => {
        calls.push([command, payload]);
        return command === "mcp_sign_in"
          ? { server: "web", url: "http://h/mcp", issuer: null, scopes: [], reconnected: 1 }
          : { server: "web", url: "http://h/mcp", signed_out: true };
      },
    });
    const signedIn = await backend.mcpSignIn("/p", "web");
    const signedOut = await backend.mcpSignOut("/p", "web");
    expect(calls).toEqual([
      ["mcp_sign_in", { args: { project: "/p", server: "web" } }],
      ["mcp_sign_out", { args: { project: "/p", server: "web" } }],
    ]);
    expect(signedIn.reconnected).toBe(1);
    expect(signedOut.signed_out).toBe(true);
  });

  it("turns a backend CommandError into a BackendError with its message", async () => {
    restore = setTransport({
      invoke: async () => {
        throw { message: "database /d/gatehouse.sqlite3: file is not a database" };
      },
    });
    const failure = backend.listProjects();
    await expect(failure).rejects.toBeInstanceOf(BackendError);
    await expect(failure).rejects.toThrow("file is not a database");
  });
});
