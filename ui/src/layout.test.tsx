// Issue 17 item 10, "one layout grid for every screen". jsdom does no
// layout, so this holds the structure that makes the grid one (the e2e
// suite measures the pixels, tests/e2e/tests/layout.rs): every screen
// renders in the one page container (components/Page.tsx) with its title
// row first; no stylesheet but styles.css sets the page's box or defines a
// theme variable; every variable used is defined there.

import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ReactElement } from "react";

import { BrowserScreen } from "./browser/BrowserScreen";
import { setEventSource, setTransport } from "./client";
import { HomeScreen } from "./components/HomeScreen";
import { SessionView } from "./components/SessionView";
import { SettingsScreen } from "./components/SettingsScreen";
import { McpScreen } from "./mcp/McpScreen";
import { RulesScreen } from "./rules/RulesScreen";
import { rules, SHEETS } from "./testStylesheets";

const restores: (() => void)[] = [];
afterEach(() => {
  cleanup();
  while (restores.length > 0) restores.pop()?.();
});

/** No backend: every command fails, as when the app cannot answer; screens still lay out. */
function offline() {
  restores.push(
    setTransport({
      invoke: async (command) => {
        throw { message: `no backend in this test (${command})` };
      },
    }),
  );
  restores.push(setEventSource({ listen: async () => () => undefined }));
}

const project = { id: 1, path: "/p/demo", name: "demo", added_at_ms: 1, last_opened_ms: 1, trusted_at_ms: null, has_project_settings: false };

const SCREENS: [string, () => ReactElement][] = [
  ["home", () => <HomeScreen projects={[]} onOpenFolder={vi.fn()} onOpen={vi.fn()} sessions={[]} onOpenStored={vi.fn()} onResume={vi.fn()} />],
  ["settings", () => <SettingsScreen onBack={vi.fn()} />],
  ["rules", () => <RulesScreen onBack={vi.fn()} onOpenCall={vi.fn()} />],
  ["mcp", () => <McpScreen projects={[project]} onBack={vi.fn()} />],
  ["sessions", () => <BrowserScreen target={null} onOpen={vi.fn()} onClose={vi.fn()} onResume={vi.fn()} onBack={vi.fn()} />],
  [
    "reader",
    () => <BrowserScreen target={{ sessionId: "ses_1", seq: null, nonce: 1 }} onOpen={vi.fn()} onClose={vi.fn()} onResume={vi.fn()} onBack={vi.fn()} />,
  ],
  ["project", () => <SessionView project={project} onBack={vi.fn()} />],
];

describe("one page container", () => {
  it.each(SCREENS)("the %s screen renders inside it, its title row first", async (name, ui) => {
    offline();
    const { container } = render(ui());
    await waitFor(() => expect(container.querySelector("main")).not.toBeNull());
    const mains = container.querySelectorAll("main");
    expect(mains).toHaveLength(1);
    const main = mains[0] as HTMLElement;
    expect(main.parentElement).toBe(container);
    expect(main.classList.contains("page")).toBe(true);
    expect(main.dataset["page"]).toBe(name);
    // The reader's title row is its session bar (the live session's), the others' the shared one.
    const first = main.firstElementChild;
    if (name === "reader") {
      await waitFor(() => expect(main.querySelector(".session-bar, [data-testid=reader-error]")).not.toBeNull());
    } else {
      expect(first?.classList.contains("page-header")).toBe(true);
      expect(first?.querySelector("h2")).not.toBeNull();
    }
    // A screen's controls sit in the row's end, never in a second ad-hoc row.
    expect(main.querySelectorAll(".session-header, .home-header")).toHaveLength(0);
  });
});

describe("one set of theme variables and one page box", () => {
  it("finds the app's stylesheets", () => {
    expect(Object.keys(SHEETS)).toEqual(expect.arrayContaining(["./styles.css", "./session/session.css", "./rules/rules.css", "./mcp/mcp.css", "./browser/browser.css"]));
  });

  it("defines custom properties in styles.css only", () => {
    const copies = Object.entries(SHEETS)
      .filter(([path]) => path !== "./styles.css")
      .flatMap(([path, css]) => rules(css).filter((r) => /(^|;)\s*--[\w-]+\s*:/.test(r.body)).map((r) => `${path}: ${r.selector}`));
    expect(copies).toEqual([]);
  });

  it("uses only variables styles.css defines", () => {
    const defined = new Set([...(SHEETS["./styles.css"] ?? "").matchAll(/(--[\w-]+)\s*:/g)].map((m) => m[1]));
    const undefinedUses = Object.entries(SHEETS).flatMap(([path, css]) =>
      [...css.matchAll(/var\((--[\w-]+)/g)].map((m) => m[1]).filter((v) => !defined.has(v)).map((v) => `${path}: ${v}`),
    );
    expect(undefinedUses).toEqual([]);
  });

  it("lets no screen's stylesheet set the page's width, padding or margin", () => {
    // A screen's root: `main`, `.page…`, or the class a screen gives its Page.
    const roots = ["home", "settings", "session", "rules-screen", "mcp", "browser", "browser-reader"];
    const isRoot = (selector: string) =>
      selector
        .split(",")
        .map((s) => s.trim())
        .some((s) => /^main\b[^ >+~]*$/.test(s) || /^\.page[\w-]*$/.test(s) || roots.some((r) => new RegExp(`^(main)?\\.${r}$`).test(s)));
    const offenders = Object.entries(SHEETS)
      .filter(([path]) => path !== "./styles.css")
      .flatMap(([path, css]) =>
        rules(css)
          .filter((r) => isRoot(r.selector) && /(^|;)\s*(padding|margin|max-width|width)[\w-]*\s*:/.test(r.body))
          .map((r) => `${path}: ${r.selector}`),
      );
    expect(offenders).toEqual([]);
  });
});
