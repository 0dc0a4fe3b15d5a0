import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { applyStoredTheme, currentThemeChoice, setThemeChoice, storedThemeChoice, systemTheme, THEME_STORAGE_KEY } from "./theme";
import { installMatchMedia } from "./testMatchMedia";

const root = document.documentElement;

beforeEach(() => {
  localStorage.clear();
  root.removeAttribute("data-theme");
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("the theme choice", () => {
  it("puts data-theme on the document element for Light and Dark, and removes it for System", () => {
    setThemeChoice("dark");
    expect(root.getAttribute("data-theme")).toBe("dark");
    expect(currentThemeChoice()).toBe("dark");
    setThemeChoice("light");
    expect(root.getAttribute("data-theme")).toBe("light");
    setThemeChoice("system");
    expect(root.hasAttribute("data-theme")).toBe(false);
    expect(currentThemeChoice()).toBe("system");
  });

  it("is remembered across a restart and applied at start-up", () => {
    expect(setThemeChoice("dark")).toBeNull();
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe("dark");
    // A restart: a fresh document, then what main.tsx does before rendering.
    root.removeAttribute("data-theme");
    applyStoredTheme();
    expect(root.getAttribute("data-theme")).toBe("dark");
    setThemeChoice("system");
    root.setAttribute("data-theme", "light");
    applyStoredTheme();
    expect(root.hasAttribute("data-theme")).toBe(false);
  });

  it("starts on System when nothing was chosen or the stored value is not a choice", () => {
    expect(storedThemeChoice()).toBe("system");
    localStorage.setItem(THEME_STORAGE_KEY, "solarized");
    expect(storedThemeChoice()).toBe("system");
    root.setAttribute("data-theme", "dark");
    applyStoredTheme();
    expect(root.hasAttribute("data-theme")).toBe(false);
  });

  it("still applies a choice when storage refuses it, and says it was not remembered", () => {
    // jsdom's storage never fails; a full or refused webview storage is simulated here.
    vi.spyOn(Storage.prototype, "setItem").mockImplementation(() => {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    });
    vi.spyOn(Storage.prototype, "getItem").mockImplementation(() => {
      throw new DOMException("The operation is insecure.", "SecurityError");
    });
    const error = setThemeChoice("light");
    expect(root.getAttribute("data-theme")).toBe("light");
    expect(error).toMatch(/could not be remembered.*quota/i);
    expect(storedThemeChoice()).toBe("system");
  });

  it("reads the OS's theme from matchMedia, and none when the webview has no matchMedia", () => {
    const os = installMatchMedia("dark");
    expect(systemTheme()).toBe("dark");
    os.set("light");
    expect(systemTheme()).toBe("light");
    os.restore();
    expect(systemTheme()).toBeNull();
  });
});
