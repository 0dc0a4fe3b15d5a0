// main.tsx applies the remembered theme before React's first render, so a
// chosen theme never flashes the other one. jsdom does not paint, so the
// order is observed at the render call: react-dom's createRoot is replaced
// by a recorder (the only stand-in here; the theme code is the real one).

import { beforeEach, describe, expect, it, vi } from "vitest";

import { THEME_STORAGE_KEY } from "./state/theme";

const seen = vi.hoisted(() => ({ themeAtRender: [] as (string | null)[] }));

vi.mock("react-dom/client", () => ({
  createRoot: () => ({
    render: () => seen.themeAtRender.push(document.documentElement.getAttribute("data-theme")),
  }),
}));

beforeEach(() => {
  document.body.innerHTML = '<div id="root"></div>';
  document.documentElement.removeAttribute("data-theme");
  seen.themeAtRender = [];
  vi.resetModules();
});

describe("start-up", () => {
  it("puts the remembered theme on the document before the first render", async () => {
    localStorage.setItem(THEME_STORAGE_KEY, "dark");
    await import("./main");
    expect(seen.themeAtRender).toEqual(["dark"]);
  });

  it("leaves the document to the OS when System is remembered", async () => {
    localStorage.setItem(THEME_STORAGE_KEY, "system");
    await import("./main");
    expect(seen.themeAtRender).toEqual([null]);
  });
});
