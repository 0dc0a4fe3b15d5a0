import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

import { App } from "./App";
import { setClaudeCodeAskSource, setEventSource, setTransport, setWindowRequestSource } from "./client";
import type { AppInfo, LastProject, Project, StartupState, WindowRequest } from "./generated/protocol";
import { startupState } from "./onboarding/fixtures";
import "./styles.css";

// The screens are lazily loaded chunks; loading them once here keeps their
// module transform out of the tests' wait timeouts (the rule editor's timed
// out at 1 s on a loaded 2-core machine).
beforeAll(async () => {
  await Promise.all([
    import("./rules/RulesScreen"),
    import("./mcp/McpScreen"),
    import("./components/SessionView"),
    import("./components/SettingsScreen"),
  ]);
});

const info = (over: Partial<AppInfo> = {}): AppInfo => ({
  version: "0.1.0",
  data_dir: "/data",
  database_path: "/data/gatehouse.sqlite3",
  smoke: false,
  database_error: null,
  launch_folder: null,
  ...over,
});

/** An in-memory backend speaking the command protocol. */
function fakeBackend(appInfo: AppInfo, picked: string | null, startup: StartupState = startupState()) {
  const projects: Project[] = [];
  const log: string[] = [];
  const restoreEvents = setEventSource({ listen: async () => () => undefined });
  const restoreAsks = setClaudeCodeAskSource({ listen: async () => () => undefined });
  // What the app shell sends: menu items, a second launch's folder.
  const windowListeners = new Set<(request: WindowRequest) => void>();
  const restoreWindow = setWindowRequestSource({
    listen: async (handler) => {
      windowListeners.add(handler);
      return () => windowListeners.delete(handler);
    },
  });
  const sendWindowRequest = async (request: WindowRequest) => {
    // Subscribed once the app has rendered.
    await waitFor(() => expect(windowListeners.size).toBe(1));
    windowListeners.forEach((l) => l(request));
  };
  const restoreTransport = setTransport({
    invoke: async (command, payload) => {
      log.push(command);
      const args = payload["args"] as Record<string, unknown>;
      switch (command) {
        case "app_info":
          return appInfo;
        case "list_projects":
          return [...projects].reverse();
        case "pick_folder":
          return picked;
        case "add_project": {
          const path = String(args["path"]);
          const project = { id: projects.length + 1, path, name: path.split("/").pop() ?? path, added_at_ms: Date.now(), last_opened_ms: Date.now(), trusted_at_ms: null, has_project_settings: false };
          projects.push(project);
          return project;
        }
        case "smoke_report":
        case "forget_last_project":
        case "remove_project":
          return null;
        case "startup_state":
          return startup;
        case "list_sessions":
          return [];
        default:
          throw { message: `unexpected command ${command}` };
      }
    },
  });
  const restore = () => {
    restoreTransport();
    restoreEvents();
    restoreWindow();
    restoreAsks();
  };
  return { log, restore, sendWindowRequest };
}

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

describe("App", () => {
  it("lists nothing at first, then opens the folder picked and lists it", async () => {
    const fake = fakeBackend(info(), "/home/ana/src/widget");
    restore = fake.restore;
    render(<App />);
    await screen.findByTestId("no-projects");
    fireEvent.click(screen.getByTestId("open-folder"));
    expect(await screen.findByTestId("session-project-name")).toHaveProperty("textContent", "widget");
    fireEvent.click(screen.getByTestId("back-home"));
    const item = await screen.findByTestId("project");
    expect(item.getAttribute("data-path")).toBe("/home/ana/src/widget");
  });

  it("does nothing when the folder dialog is cancelled", async () => {
    const fake = fakeBackend(info(), null);
    restore = fake.restore;
    render(<App />);
    await screen.findByTestId("no-projects");
    fireEvent.click(screen.getByTestId("open-folder"));
    await waitFor(() => expect(fake.log).toContain("pick_folder"));
    expect(fake.log).not.toContain("add_project");
    expect(screen.getByTestId("home")).toBeTruthy();
  });

  it("shows a database error and does not list projects", async () => {
    const fake = fakeBackend(info({ database_error: "database /data/gatehouse.sqlite3: file is not a database" }), null);
    restore = fake.restore;
    render(<App />);
    const banner = await screen.findByTestId("error-banner");
    expect(banner.textContent).toContain("file is not a database");
    expect(fake.log).not.toContain("list_projects");
  });

  it.each([
    ["the rule editor", "open-rules", "rules-screen", "rules-back"],
    ["the MCP panel", "open-mcp", "mcp", "mcp-back"],
  ])("opens %s over an open session, which stays open behind it", async (_, open, shown, back) => {
    const fake = fakeBackend(info(), "/home/ana/src/widget");
    restore = fake.restore;
    render(<App />);
    await screen.findByTestId("no-projects");
    fireEvent.click(screen.getByTestId("open-folder"));
    const name = await screen.findByTestId("session-project-name");
    fireEvent.click(screen.getByTestId(open));
    await screen.findByTestId(shown);
    // The same session view, hidden, not closed.
    expect(screen.getByTestId("session-project-name")).toBe(name);
    expect(name.closest("[hidden]")).not.toBeNull();
    expect(fake.log).not.toContain("close_session");
    fireEvent.click(screen.getByTestId(back));
    await waitFor(() => expect(screen.queryByTestId(shown)).toBeNull());
    expect(screen.getByTestId("session-project-name")).toBe(name);
    expect(name.closest("[hidden]")).toBeNull();
    // Kept mounted in a wrapper with no box of its own: the project page is
    // the app's flex item like every page (it lost the window's height).
    const slot = name.closest(".session-host") as HTMLElement;
    expect(getComputedStyle(slot).display).toBe("contents");
    expect(screen.getByTestId("session-view").classList.contains("page")).toBe(true);
    // Another screen closes the session view.
    fireEvent.click(screen.getByTestId("open-settings"));
    await waitFor(() => expect(screen.queryByTestId("session-project-name")).toBeNull());
  });

  it("opens the folder named on the command line instead of the home screen", async () => {
    const fake = fakeBackend(info({ launch_folder: "/home/ana/src/widget" }), null);
    restore = fake.restore;
    render(<App />);
    expect(await screen.findByTestId("session-project-name")).toHaveProperty("textContent", "widget");
    expect(fake.log).toContain("add_project");
  });

  it("opens a folder a second launch hands over, from any screen", async () => {
    const fake = fakeBackend(info(), null);
    restore = fake.restore;
    render(<App />);
    await screen.findByTestId("no-projects");
    fireEvent.click(screen.getByTestId("open-settings"));
    await fake.sendWindowRequest({ kind: "open_folder", path: "/home/ana/src/gadget" });
    expect(await screen.findByTestId("session-project-name")).toHaveProperty("textContent", "gadget");
  });

  it("opens the folder picker from the menu's Open Folder…", async () => {
    const fake = fakeBackend(info(), "/home/ana/src/widget");
    restore = fake.restore;
    render(<App />);
    await screen.findByTestId("no-projects");
    await fake.sendWindowRequest({ kind: "pick_folder" });
    expect(await screen.findByTestId("session-project-name")).toHaveProperty("textContent", "widget");
    expect(fake.log).toContain("pick_folder");
  });

  it("shows the shortcuts on ? outside text fields and from the menu; Esc closes", async () => {
    const fake = fakeBackend(info(), null);
    restore = fake.restore;
    render(<App />);
    await screen.findByTestId("no-projects");
    fireEvent.keyDown(document.body, { key: "?" });
    const overlay = await screen.findByTestId("shortcuts-overlay");
    expect(overlay.textContent).toContain("Interrupt the running turn");
    expect(document.activeElement).toBe(screen.getByTestId("shortcuts-close"));
    fireEvent.keyDown(overlay, { key: "Escape" });
    expect(screen.queryByTestId("shortcuts-overlay")).toBeNull();
    // Typed into a text field, "?" is a character.
    const field = document.createElement("input");
    document.body.append(field);
    fireEvent.keyDown(field, { key: "?" });
    expect(screen.queryByTestId("shortcuts-overlay")).toBeNull();
    field.remove();
    await fake.sendWindowRequest({ kind: "show_shortcuts" });
    await screen.findByTestId("shortcuts-overlay");
    fireEvent.click(screen.getByTestId("shortcuts-close"));
    expect(screen.queryByTestId("shortcuts-overlay")).toBeNull();
  });

  it("opens on first run, not on the home screen, when onboarding is not done", async () => {
    const fake = fakeBackend(info(), null, startupState({ onboarding_done: false }));
    restore = fake.restore;
    render(<App />);
    await screen.findByTestId("onboarding");
    expect(screen.queryByTestId("home")).toBeNull();
  });

  it("reopens the last project at start, and forgets it when the user goes home", async () => {
    const project: Project = { id: 7, path: "/home/ana/src/widget", name: "widget", added_at_ms: 1, last_opened_ms: 2, trusted_at_ms: null, has_project_settings: false };
    const last: LastProject = { kind: "reopened", project };
    const fake = fakeBackend(info(), null, { ...startupState(), last_project: last });
    restore = fake.restore;
    render(<App />);
    expect(await screen.findByTestId("session-project-name")).toHaveProperty("textContent", "widget");
    expect(fake.log).not.toContain("forget_last_project");
    fireEvent.click(screen.getByTestId("back-home"));
    await screen.findByTestId("home");
    expect(fake.log).toContain("forget_last_project");
  });

  it("says when the last project's folder is gone, and removes it on request", async () => {
    const project: Project = { id: 7, path: "/gone/widget", name: "widget", added_at_ms: 1, last_opened_ms: 2, trusted_at_ms: null, has_project_settings: false };
    const fake = fakeBackend(info(), null, { ...startupState(), last_project: { kind: "missing", project } });
    restore = fake.restore;
    render(<App />);
    const notice = await screen.findByTestId("missing-project");
    expect(notice.getAttribute("data-path")).toBe("/gone/widget");
    expect(screen.getByTestId("home")).toBeTruthy();
    fireEvent.click(screen.getByTestId("missing-project-remove"));
    await waitFor(() => expect(screen.queryByTestId("missing-project")).toBeNull());
    expect(fake.log).toContain("remove_project");
  });

  it("shows a damaged database in the window with its way out, not the home screen", async () => {
    const fake = fakeBackend(info({ database_error: "database /data/gatehouse.sqlite3: file is not a database" }), null);
    restore = fake.restore;
    render(<App />);
    const problem = await screen.findByTestId("database-problem");
    expect(screen.getByTestId("database-error").textContent).toContain("file is not a database");
    expect(problem.textContent).toContain("/data/gatehouse.sqlite3");
    expect(screen.getByTestId("database-reset")).toBeTruthy();
    expect(screen.getByTestId("database-open-folder")).toBeTruthy();
    expect(screen.queryByTestId("home")).toBeNull();
  });

  it("reports back on a smoke launch", async () => {
    const fake = fakeBackend(info({ smoke: true }), null);
    restore = fake.restore;
    render(<App />);
    await waitFor(() => expect(fake.log).toContain("smoke_report"));
  });
});
