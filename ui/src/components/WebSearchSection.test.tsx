import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import type { SaveWebSearchArgs, WebSearchSettings } from "../generated/protocol";
import { webSearchView } from "./fixtures";
import { WebSearchSection } from "./WebSearchSection";

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

/** A backend keeping the provider, URL and key as the real one does. */
function fakeBackend(initial: WebSearchSettings, refuse: string | null = null) {
  const calls: [string, Record<string, unknown>][] = [];
  let view = initial;
  let keyStored = initial.brave_key.source !== null;
  restore = setTransport({
    invoke: async (command, payload) => {
      const args = payload["args"] as Record<string, unknown>;
      calls.push([command, args]);
      if (command === "set_api_key") {
        keyStored = true;
        return { provider: "brave-search", source: "keychain" };
      }
      if (command === "save_web_search_settings") {
        if (refuse !== null) throw { message: refuse };
        const save = args as unknown as SaveWebSearchArgs;
        const unavailable =
          save.provider === "none" || (save.provider === "brave" && !keyStored)
            ? { name: "WebSearch", reason: "not_configured" as const, message: "needs configuring" }
            : null;
        view = {
          ...view,
          provider: save.provider,
          searxng_url: save.provider === "brave" ? null : save.searxng_url,
          brave_key: { provider: "brave-search", source: keyStored ? "keychain" : null },
          unavailable,
        };
        return view;
      }
      if (command === "web_search_settings") return view;
      throw new Error(`unexpected command ${command}`);
    },
  });
  return calls;
}

describe("WebSearchSection", () => {
  it("shows that WebSearch is unavailable, and why, from the typed field", async () => {
    fakeBackend(webSearchView());
    render(<WebSearchSection />);
    const availability = await screen.findByTestId("web-search-availability");
    expect(availability.getAttribute("data-available")).toBe("no");
    expect(availability.textContent).toContain("no search provider is configured");
    expect((screen.getByTestId("web-search-provider") as HTMLSelectElement).value).toBe("none");
    expect(screen.getByTestId("web-search-file").textContent).toContain("/home/me/.gatehouse/settings.json");
  });

  it("stores the Brave key in the keychain before saving the provider, and clears the field", async () => {
    const calls = fakeBackend(webSearchView());
    render(<WebSearchSection />);
    await screen.findByTestId("web-search-availability");
    fireEvent.change(screen.getByTestId("web-search-provider"), { target: { value: "brave" } });
    const key = screen.getByTestId("web-search-brave-key") as HTMLInputElement;
    expect(key.type).toBe("password");
    expect(screen.getByTestId("web-search-brave-key-status").textContent).toBe("No key is stored.");
    fireEvent.change(key, { target: { value: "bsk-secret-42" } });
    fireEvent.click(screen.getByTestId("web-search-save"));
    await waitFor(() =>
      expect(screen.getByTestId("web-search-availability").getAttribute("data-available")).toBe("yes"),
    );
    expect(calls.map(([c]) => c)).toEqual(["web_search_settings", "set_api_key", "save_web_search_settings"]);
    expect(calls[1]?.[1]).toEqual({ provider: "brave-search", key: "bsk-secret-42" });
    // The key goes to set_api_key only, never with the settings.
    expect(calls[2]?.[1]).toEqual({ provider: "brave", searxng_url: null });
    expect((screen.getByTestId("web-search-brave-key") as HTMLInputElement).value).toBe("");
    expect(screen.getByTestId("web-search-brave-key-status").textContent).toContain("OS keychain");
    expect(document.body.textContent).not.toContain("bsk-secret-42");
  });

  it("saves SearXNG with its URL, trimmed", async () => {
    const calls = fakeBackend(webSearchView({ searxng_url: "http://old:8888/" }));
    render(<WebSearchSection />);
    await screen.findByTestId("web-search-availability");
    fireEvent.change(screen.getByTestId("web-search-provider"), { target: { value: "searxng" } });
    const url = screen.getByTestId("web-search-searxng-url") as HTMLInputElement;
    expect(url.value).toBe("http://old:8888/");
    fireEvent.change(url, { target: { value: "  http://127.0.0.1:8888/  " } });
    fireEvent.click(screen.getByTestId("web-search-save"));
    await waitFor(() =>
      expect(screen.getByTestId("web-search-availability").getAttribute("data-available")).toBe("yes"),
    );
    expect(calls.at(-1)).toEqual([
      "save_web_search_settings",
      { provider: "searxng", searxng_url: "http://127.0.0.1:8888/" },
    ]);
    expect(screen.queryByTestId("web-search-brave-key")).toBeNull();
  });

  it("shows the backend's refusal and keeps the choice", async () => {
    fakeBackend(webSearchView(), "SearXNG needs its instance's URL (such as http://localhost:8888); nothing was saved");
    render(<WebSearchSection />);
    await screen.findByTestId("web-search-availability");
    fireEvent.change(screen.getByTestId("web-search-provider"), { target: { value: "searxng" } });
    fireEvent.click(screen.getByTestId("web-search-save"));
    const error = await screen.findByTestId("web-search-error");
    expect(error.textContent).toContain("SearXNG needs its instance's URL");
    expect((screen.getByTestId("web-search-provider") as HTMLSelectElement).value).toBe("searxng");
    expect(screen.getByTestId("web-search-availability").getAttribute("data-available")).toBe("no");
  });
});
