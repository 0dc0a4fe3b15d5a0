import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { setTransport } from "../client";
import { THEME_STORAGE_KEY } from "../state/theme";
import { type FakeOsTheme, installMatchMedia } from "../state/testMatchMedia";
import { SettingsScreen } from "./SettingsScreen";
import { ThemeChoice } from "./ThemeChoice";

const root = document.documentElement;
let os: FakeOsTheme | null = null;
let restoreTransport: (() => void) | null = null;

beforeEach(() => {
  localStorage.clear();
  root.removeAttribute("data-theme");
});
afterEach(() => {
  cleanup();
  os?.restore();
  os = null;
  restoreTransport?.();
  restoreTransport = null;
});

const radio = (id: string) => screen.getByTestId(id) as HTMLInputElement;

describe("ThemeChoice", () => {
  it("switches the document between System, Light and Dark and remembers the choice", () => {
    render(<ThemeChoice />);
    expect(radio("theme-system").checked).toBe(true);
    fireEvent.click(radio("theme-dark"));
    expect(root.getAttribute("data-theme")).toBe("dark");
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe("dark");
    expect(radio("theme-dark").checked).toBe(true);
    fireEvent.click(radio("theme-light"));
    expect(root.getAttribute("data-theme")).toBe("light");
    expect(radio("theme-light").checked).toBe(true);
    fireEvent.click(radio("theme-system"));
    expect(root.hasAttribute("data-theme")).toBe(false);
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe("system");
    expect(radio("theme-system").checked).toBe(true);
  });

  it("shows the remembered choice when it opens again", () => {
    const first = render(<ThemeChoice />);
    fireEvent.click(radio("theme-dark"));
    first.unmount();
    render(<ThemeChoice />);
    expect(radio("theme-dark").checked).toBe(true);
  });

  it("on System, leaves the theme to the OS and shows what the OS uses as it changes", () => {
    os = installMatchMedia("dark");
    render(<ThemeChoice />);
    expect(root.hasAttribute("data-theme")).toBe(false);
    expect(screen.getByTestId("theme-system-now").dataset["themeNow"]).toBe("dark");
    act(() => os?.set("light"));
    expect(screen.getByTestId("theme-system-now").dataset["themeNow"]).toBe("light");
    // The OS changing never writes a choice: the document still follows it.
    expect(root.hasAttribute("data-theme")).toBe(false);
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBeNull();
  });

  it("is on the Settings screen under its own Appearance heading", () => {
    restoreTransport = setTransport({
      invoke: async (_command, payload) => ({ provider: String((payload["args"] as Record<string, unknown>)["provider"]), source: null }),
    });
    render(<SettingsScreen onBack={() => undefined} />);
    const control = screen.getByTestId("theme-choice");
    const section = control.closest("section");
    expect(section).not.toBeNull();
    expect(within(section as HTMLElement).getByRole("heading", { level: 3 }).textContent).toBe("Appearance");
    expect(within(control).getAllByRole("radio").map((r) => (r as HTMLInputElement).value)).toEqual(["system", "light", "dark"]);
    fireEvent.click(radio("theme-dark"));
    expect(root.getAttribute("data-theme")).toBe("dark");
  });
});
