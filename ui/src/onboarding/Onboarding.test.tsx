import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import type { AppSettings, ConnectionTest, Project } from "../generated/protocol";
import { DatabaseProblem } from "./DatabaseProblem";
import { Onboarding } from "./Onboarding";
import { startupState } from "./fixtures";

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

const sample: Project = {
  id: 1,
  path: "/data/sample-project",
  name: "sample-project",
  added_at_ms: 1,
  last_opened_ms: 1,
  trusted_at_ms: null,
  has_project_settings: true,
};

/** A backend answering the first-run commands; `test` is what a connection test returns. */
function fake(test: ConnectionTest) {
  const calls: [string, Record<string, unknown>][] = [];
  let stored: string | null = null;
  restore = setTransport({
    invoke: async (command, payload) => {
      const args = payload["args"] as Record<string, unknown>;
      calls.push([command, args]);
      switch (command) {
        case "api_key_status":
          return { provider: args["provider"], source: stored };
        case "set_api_key":
          stored = "keychain";
          return { provider: args["provider"], source: stored };
        case "test_provider_connection":
          return test;
        case "save_app_settings":
          return args["settings"];
        case "create_sample_project":
          return sample;
        case "pick_folder":
          return null;
        default:
          throw { message: `unexpected command ${command}` };
      }
    },
  });
  return calls;
}

function renderOnboarding(over: Parameters<typeof startupState>[0] = {}, keychain: string | null = null) {
  const done: [AppSettings, Project | null][] = [];
  render(
    <Onboarding
      startup={{ ...startupState({ onboarding_done: false, ...over }), keychain_unavailable: keychain }}
      projects={[]}
      onDone={(settings, project) => done.push([settings, project])}
    />,
  );
  return done;
}

describe("Onboarding", () => {
  it("sends a typed Anthropic key to the keychain, then names the connection's failure", async () => {
    const calls = fake({ failure: "bad_key", message: "Anthropic refused the API key: HTTP 401", models: [] });
    renderOnboarding();
    expect(screen.getByTestId("onboarding-step").textContent).toBe("Step 1 of 3");
    const input = screen.getByTestId("onboarding-key-input") as HTMLInputElement;
    expect(input.type).toBe("password");
    fireEvent.change(input, { target: { value: "sk-ant-secret" } });
    fireEvent.click(screen.getByTestId("provider-test"));
    const result = await screen.findByTestId("connection-result");
    expect(result.getAttribute("data-failure")).toBe("bad_key");
    const order = calls.map(([c]) => c).filter((c) => c === "set_api_key" || c === "test_provider_connection");
    expect(order).toEqual(["set_api_key", "test_provider_connection"]);
    expect(calls.find(([c]) => c === "set_api_key")?.[1]).toEqual({ provider: "anthropic", key: "sk-ant-secret" });
    expect(calls.find(([c]) => c === "test_provider_connection")?.[1]).toEqual({
      provider: { kind: "anthropic", base_url: null },
    });
    expect(input.value).toBe("");
    expect(document.body.textContent).not.toContain("sk-ant-secret");
  });

  it("lists an OpenAI-compatible server's models and saves the one chosen", async () => {
    const calls = fake({ failure: null, message: "2 model(s)", models: ["llama3.1", "qwen2.5-coder"] });
    const done = renderOnboarding();
    fireEvent.click(screen.getByTestId("provider-choice-openai"));
    fireEvent.change(screen.getByTestId("provider-url"), { target: { value: "http://127.0.0.1:11434/v1" } });
    fireEvent.click(screen.getByTestId("provider-test"));
    const select = (await screen.findByTestId("provider-model-select")) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(["llama3.1", "qwen2.5-coder"]);
    expect(select.value).toBe("llama3.1");
    fireEvent.change(select, { target: { value: "qwen2.5-coder" } });
    expect(calls.some(([c]) => c === "set_api_key")).toBe(false);
    fireEvent.click(screen.getByTestId("onboarding-continue"));
    await screen.findByTestId("onboarding-project");
    const saved = calls.find(([c]) => c === "save_app_settings")?.[1]["settings"] as AppSettings;
    expect(saved.provider).toEqual({ kind: "openai", base_url: "http://127.0.0.1:11434/v1" });
    expect(saved.default_models.openai).toBe("qwen2.5-coder");
    expect(saved.onboarding_done).toBe(false);
    expect(done).toEqual([]);
  });

  it("the demo leads to the sample project, and first run is saved as done", async () => {
    const calls = fake({ failure: null, message: "", models: [] });
    const done = renderOnboarding();
    fireEvent.click(screen.getByTestId("provider-choice-demo"));
    expect(screen.getByTestId("demo-note").textContent).toContain("sample project");
    fireEvent.click(screen.getByTestId("onboarding-continue"));
    const create = await screen.findByTestId("onboarding-create-sample");
    expect(create.className).toBe("primary");
    fireEvent.click(create);
    await waitFor(() => expect(done).toHaveLength(1));
    const [settings, project] = done[0] ?? [];
    expect(project).toEqual(sample);
    expect(settings?.onboarding_done).toBe(true);
    expect(settings?.provider).toEqual({ kind: "demo" });
    expect(calls.map(([c]) => c)).toContain("create_sample_project");
  });

  it("every step can be skipped: nothing chosen, first run still over", async () => {
    const calls = fake({ failure: null, message: "", models: [] });
    const done = renderOnboarding();
    fireEvent.click(screen.getByTestId("onboarding-skip-provider"));
    fireEvent.click(await screen.findByTestId("onboarding-skip-project"));
    await waitFor(() => expect(done).toHaveLength(1));
    expect(done[0]?.[1]).toBeNull();
    expect(done[0]?.[0].provider).toBeNull();
    expect(calls.filter(([c]) => c === "save_app_settings")).toHaveLength(1);
  });

  it("a cancelled folder dialog stays on the project step", async () => {
    const calls = fake({ failure: null, message: "", models: [] });
    const done = renderOnboarding();
    fireEvent.click(screen.getByTestId("onboarding-skip-provider"));
    fireEvent.click(await screen.findByTestId("onboarding-open-folder"));
    await waitFor(() => expect(calls.map(([c]) => c)).toContain("pick_folder"));
    expect(done).toEqual([]);
    expect(screen.getByTestId("onboarding-project")).toBeTruthy();
  });

  it("a keychain that cannot be used is said, with the environment route", async () => {
    fake({ failure: null, message: "", models: [] });
    renderOnboarding({}, "no Secret Service on the session bus");
    const notice = screen.getByTestId("keychain-unavailable");
    expect(notice.textContent).toContain("no Secret Service on the session bus");
    expect(notice.textContent).toContain("ANTHROPIC_API_KEY");
  });
});

describe("DatabaseProblem", () => {
  it("opens the folder, or sets the file aside and says where it went", async () => {
    const calls: string[] = [];
    restore = setTransport({
      invoke: async (command) => {
        calls.push(command);
        if (command === "reset_database") return { kept_as: ["/data/gatehouse.sqlite3.damaged-1733480000000"] };
        return null;
      },
    });
    render(
      <DatabaseProblem
        info={{
          version: "0.1.0",
          data_dir: "/data",
          database_path: "/data/gatehouse.sqlite3",
          smoke: false,
          database_error: "database /data/gatehouse.sqlite3: file is not a database",
          launch_folder: null,
        }}
      />,
    );
    fireEvent.click(screen.getByTestId("database-open-folder"));
    await waitFor(() => expect(calls).toEqual(["open_data_dir"]));
    fireEvent.click(screen.getByTestId("database-reset"));
    const kept = await screen.findByTestId("database-kept");
    expect(kept.textContent).toContain("gatehouse.sqlite3.damaged-1733480000000");
    expect((screen.getByTestId("database-reset") as HTMLButtonElement).disabled).toBe(true);
  });
});
