import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import { SettingsScreen } from "./SettingsScreen";
import { webSearchView } from "./fixtures";

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
});
