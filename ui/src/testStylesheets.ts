// The app's stylesheets as text, for the tests that hold rules about them
// (layout.test.tsx: one page box, one set of variables; colours.test.ts:
// every colour from the theme). Vite reads the files from disk (`?raw`).

/** Every stylesheet of the app, by path ("./styles.css", "./mcp/mcp.css", …), as text. */
export const SHEETS = import.meta.glob("./**/*.css", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** `selector { body }` rules of a stylesheet (at-rule bodies flattened), comments removed. */
export function rules(css: string): { selector: string; body: string }[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, "");
  const out: { selector: string; body: string }[] = [];
  const re = /([^{}]+)\{([^{}]*)\}/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push({ selector: (m[1] ?? "").replace(/@media[^{]*$/, "").trim(), body: m[2] ?? "" });
  }
  return out;
}
