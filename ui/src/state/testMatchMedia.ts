// jsdom evaluates no media queries and has no window.matchMedia; this stands
// in for the OS's light/dark preference in tests, and can change it.

type Listener = (event: MediaQueryListEvent) => void;

export interface FakeOsTheme {
  /** Changes the OS's preference and tells the listeners, as the OS would. */
  set(theme: "light" | "dark"): void;
  /** Removes window.matchMedia again. */
  restore(): void;
}

/** Installs window.matchMedia answering `(prefers-color-scheme: dark)` from `theme`. */
export function installMatchMedia(theme: "light" | "dark"): FakeOsTheme {
  let dark = theme === "dark";
  const listeners = new Set<Listener>();
  const saved = Object.getOwnPropertyDescriptor(window, "matchMedia");
  Object.defineProperty(window, "matchMedia", {
    configurable: true,
    writable: true,
    value: (media: string) => {
      if (media !== "(prefers-color-scheme: dark)") throw new Error(`no fake answer for the media query ${media}`);
      return {
        media,
        get matches() {
          return dark;
        },
        addEventListener: (_type: "change", listener: Listener) => listeners.add(listener),
        removeEventListener: (_type: "change", listener: Listener) => listeners.delete(listener),
      } as unknown as MediaQueryList;
    },
  });
  return {
    set(next) {
      dark = next === "dark";
      for (const listener of [...listeners]) listener({ matches: dark, media: "(prefers-color-scheme: dark)" } as MediaQueryListEvent);
    },
    restore() {
      if (saved) Object.defineProperty(window, "matchMedia", saved);
      else delete (window as { matchMedia?: unknown }).matchMedia;
    },
  };
}
