// The light/dark choice (Settings → Appearance): System, Light or Dark.
//
// styles.css writes every colour as light-dark(LIGHT, DARK) under
// `color-scheme: light dark`, so with no choice the app follows the OS. A
// choice is `data-theme="light"|"dark"` on the document element, which pins
// `color-scheme`; "System" is the attribute's absence. The document element
// is the one place the current choice lives: this module reads it back
// rather than keeping a second copy.
//
// The choice is remembered in the webview's localStorage. It is a UI-only
// preference the backend never needs, and localStorage is readable
// synchronously before the first render (main.tsx applies it before React
// renders, so a chosen theme never flashes the other one); WebKitGTK keeps it
// in the app's data directory across restarts.

import { useCallback, useState, useSyncExternalStore } from "react";

export type ThemeChoice = "system" | "light" | "dark";

/** The choices, in the order Settings shows them. */
export const THEME_CHOICES: readonly ThemeChoice[] = ["system", "light", "dark"];

/** Where the choice is remembered (localStorage). */
export const THEME_STORAGE_KEY = "gatehouse.theme";

const DARK_QUERY = "(prefers-color-scheme: dark)";

function isThemeChoice(value: unknown): value is ThemeChoice {
  return typeof value === "string" && (THEME_CHOICES as readonly string[]).includes(value);
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The remembered choice; "system" when none was made, when the stored value
 * is not one of the choices (a newer or damaged value: the OS's theme is the
 * safe reading), or when storage cannot be read.
 */
export function storedThemeChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(THEME_STORAGE_KEY);
    return isThemeChoice(value) ? value : "system";
  } catch {
    return "system";
  }
}

/** The choice in effect: the document element's `data-theme`, or "system". */
export function currentThemeChoice(root: HTMLElement = document.documentElement): ThemeChoice {
  const value = root.getAttribute("data-theme");
  return value === "light" || value === "dark" ? value : "system";
}

/** Puts a choice on the document element: `data-theme` for Light and Dark, none for System. */
export function applyThemeChoice(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", choice);
}

/** At start-up, before the first render: the remembered choice, applied. */
export function applyStoredTheme(): void {
  applyThemeChoice(storedThemeChoice());
}

const listeners = new Set<() => void>();

/**
 * Applies a choice and remembers it. Returns why it could not be remembered
 * (storage full or refused), or null; the choice applies either way.
 */
export function setThemeChoice(choice: ThemeChoice): string | null {
  applyThemeChoice(choice);
  for (const listener of listeners) listener();
  try {
    localStorage.setItem(THEME_STORAGE_KEY, choice);
    return null;
  } catch (err) {
    return `The theme applies now but could not be remembered for the next start: ${message(err)}`;
  }
}

function subscribeChoice(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The OS's theme now, or null when the webview cannot say (no matchMedia). */
export function systemTheme(): "light" | "dark" | null {
  if (typeof window.matchMedia !== "function") return null;
  return window.matchMedia(DARK_QUERY).matches ? "dark" : "light";
}

function subscribeSystem(listener: () => void): () => void {
  if (typeof window.matchMedia !== "function") return () => undefined;
  const query = window.matchMedia(DARK_QUERY);
  query.addEventListener("change", listener);
  return () => query.removeEventListener("change", listener);
}

export interface ThemeState {
  choice: ThemeChoice;
  /** What "System" means right now, following the OS as it changes; null when unknown. */
  system: "light" | "dark" | null;
  /** Why the last choice could not be remembered, or null. */
  error: string | null;
}

/** The theme choice, the OS's theme, and the action that chooses. */
export function useTheme(): [ThemeState, (choice: ThemeChoice) => void] {
  const choice = useSyncExternalStore(subscribeChoice, () => currentThemeChoice());
  const system = useSyncExternalStore(subscribeSystem, systemTheme);
  const [error, setError] = useState<string | null>(null);
  const choose = useCallback((next: ThemeChoice) => setError(setThemeChoice(next)), []);
  return [{ choice, system, error }, choose];
}
