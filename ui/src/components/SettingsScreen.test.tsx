import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import { SettingsScreen } from "./SettingsScreen";
import { claudeCodeGuardView, sandboxStateView, webSearchView } from "./fixtures";
import { startupState } from "../onboarding/fixtures";
import type { AppSettings } from "../generated/protocol";

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

describe("SettingsScreen", () => {
  it("stores a key from the password field, clears it, and shows only where the key is", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    const stored = new Set<string>();
    restore = setTransport({
      invoke: async (command, payload) => {
        const args = payload["args"] as Record<string, unknown>;
        calls.push([command, args]);
        if (command === "web_search_settings") return webSearchView();
        if (command === "claude_code_guard") return claudeCodeGuardView();
        if (command === "sandbox_state") return sandboxStateView();
        const provider = String(args["provider"]);
        if (command === "set_api_key") stored.add(provider);
        if (command === "delete_api_key") stored.delete(provider);
        return { provider, source: stored.has(provider) ? "keychain" : null };
      },
    });
    render(<SettingsScreen onBack={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId("key-status-anthropic").textContent).toBe("Not set"));
    const input = screen.getByTestId("api-key-input-anthropic") as HTMLInputElement;
    expect(input.type).toBe("password");
    fireEvent.change(input, { target: { value: "sk-secret-123" } });
    fireEvent.click(screen.getByTestId("api-key-save-anthropic"));
    await waitFor(() =>
      expect(screen.getByTestId("key-status-anthropic").textContent).toContain("OS keychain"),
    );
    expect(calls.find(([c]) => c === "set_api_key")?.[1]).toEqual({ provider: "anthropic", key: "sk-secret-123" });
    expect(input.value).toBe("");
    expect(document.body.textContent).not.toContain("sk-secret-123");
    fireEvent.click(screen.getByTestId("api-key-delete-anthropic"));
    await waitFor(() => expect(screen.getByTestId("key-status-anthropic").textContent).toBe("Not set"));
  });

  it("keeps the default model per provider, the default mode and shows the data folder with a way to open it", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    restore = setTransport({
      invoke: async (command, payload) => {
        const args = payload["args"] as Record<string, unknown>;
        calls.push([command, args]);
        if (command === "web_search_settings") return webSearchView();
        if (command === "claude_code_guard") return claudeCodeGuardView();
        if (command === "sandbox_state") return sandboxStateView();
        if (command === "save_app_settings") return args["settings"];
        if (command === "open_data_dir") return null;
        return { provider: String(args["provider"]), source: null };
      },
    });
    const saved: AppSettings[] = [];
    render(
      <SettingsScreen
        onBack={() => undefined}
        startup={startupState({ provider: { kind: "demo" } })}
        dataDir="/home/ana/.local/share/gatehouse"
        onSettingsSaved={(s) => saved.push(s)}
      />,
    );
    expect((screen.getByTestId("provider-choice-demo") as HTMLInputElement).checked).toBe(true);
    fireEvent.change(screen.getByTestId("default-model-anthropic"), { target: { value: "claude-opus-4-1" } });
    fireEvent.change(screen.getByTestId("default-mode"), { target: { value: "plan" } });
    fireEvent.click(screen.getByTestId("session-defaults-save"));
    await screen.findByTestId("session-defaults-saved");
    expect(saved[0]?.default_models.anthropic).toBe("claude-opus-4-1");
    expect(saved[0]?.default_mode).toBe("plan");
    expect(saved[0]?.provider).toEqual({ kind: "demo" });
    expect(screen.getByTestId("data-dir").textContent).toBe("/home/ana/.local/share/gatehouse");
    fireEvent.click(screen.getByTestId("open-data-dir"));
    await waitFor(() => expect(calls.map(([c]) => c)).toContain("open_data_dir"));
  });
});
