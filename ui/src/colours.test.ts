// Issue 23 item 5, "light and dark everywhere": every colour the app draws
// comes from the one set of theme variables in styles.css, so that a screen
// cannot stay light (or dark) when the theme changes. jsdom computes no
// styles, so these hold the stylesheets' text (the e2e suite screenshots the
// pixels): no literal colour outside the variables' definitions, every
// colour variable given a light and a dark value, and the theme chosen by
// `color-scheme` on the document element alone.

import { describe, expect, it } from "vitest";

import { rules, SHEETS } from "./testStylesheets";

/** The CSS named colours (CSS Color 4), which are literal colours too. */
const NAMED = (
  "aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown burlywood " +
  "cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray " +
  "darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen " +
  "darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray dimgrey dodgerblue " +
  "firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod gray green greenyellow grey honeydew " +
  "hotpink indianred indigo ivory khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan " +
  "lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray " +
  "lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine mediumblue " +
  "mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise mediumvioletred " +
  "midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid " +
  "palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum powderblue purple " +
  "rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue " +
  "slateblue slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet wheat white " +
  "whitesmoke yellow yellowgreen"
).split(" ");

const LITERALS: [string, RegExp][] = [
  ["hex", /#[0-9a-f]{3,8}(?![\w-])/gi],
  ["function", /(?<![\w-])(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(/gi],
  ["named", new RegExp(`(?<![\\w-])(?:${NAMED.join("|")})(?![\\w-])`, "gi")],
];

/** The literal colours in a CSS value (strings removed first: `content: "…"`). */
function literalColours(value: string): string[] {
  const text = value.replace(/"[^"]*"|'[^']*'/g, "");
  return LITERALS.flatMap(([, re]) => [...text.matchAll(re)].map((m) => m[0]));
}

/** Every `property: value` declaration of a stylesheet, with its rule's selector. */
function declarations(css: string): { selector: string; property: string; value: string }[] {
  return rules(css).flatMap(({ selector, body }) =>
    body
      .split(";")
      .map((d) => d.trim())
      .filter((d) => d.includes(":"))
      .map((d) => {
        const colon = d.indexOf(":");
        return { selector, property: d.slice(0, colon).trim(), value: d.slice(colon + 1).trim() };
      }),
  );
}

/** Colour variables that look the same in both themes, by design. */
const SAME_IN_BOTH = [
  // The header bar and the logo: the brand, on its own dark ground in both themes.
  /^--s-brand$/,
  /^--s-brand-edge$/,
  /^--s-brand-ink$/,
  /^--s-on-brand$/,
  /^--s-gold$/,
  // The terminal pane is dark in both themes, and so are its ANSI colours.
  /^--s-term-ink$/,
  /^--s-term-muted$/,
  /^--ansi-/,
];

describe("every colour from the theme", () => {
  it("finds the literal colours it looks for", () => {
    expect(literalColours("1px solid #cfd3e6")).toEqual(["#cfd3e6"]);
    expect(literalColours("0 8px 30px rgba(0, 0, 0, 0.5)")).toEqual(["rgba("]);
    expect(literalColours("white")).toEqual(["white"]);
    expect(literalColours("var(--s-bad-soft)")).toEqual([]);
    expect(literalColours('"red"')).toEqual([]);
    expect(declarations(".a { color: #fff; --x: red }")).toEqual([
      { selector: ".a", property: "color", value: "#fff" },
      { selector: ".a", property: "--x", value: "red" },
    ]);
  });

  it("uses no literal colour in any stylesheet outside the theme variables' definitions", () => {
    const literals = Object.entries(SHEETS).flatMap(([path, css]) =>
      declarations(css)
        .filter((d) => !d.property.startsWith("--"))
        .flatMap((d) => literalColours(d.value).map((c) => `${path}: ${d.selector} { ${d.property}: … ${c} }`)),
    );
    expect(literals).toEqual([]);
  });

  it("gives every colour variable a light and a dark value, unless it is the same in both by design", () => {
    const css = SHEETS["./styles.css"] ?? "";
    const variables = declarations(css).filter((d) => d.property.startsWith("--") && literalColours(d.value).length > 0);
    expect(variables.length).toBeGreaterThan(20);
    const oneValue = variables
      .filter((d) => !/light-dark\(/.test(d.value) && !SAME_IN_BOTH.some((re) => re.test(d.property)))
      .map((d) => `${d.property}: ${d.value}`);
    expect(oneValue).toEqual([]);
    // And the ones kept the same are really one value, not a hidden pair.
    const paired = variables.filter((d) => /light-dark\(/.test(d.value) && SAME_IN_BOTH.some((re) => re.test(d.property)));
    expect(paired.map((d) => d.property)).toEqual([]);
  });

  it("chooses light or dark by color-scheme on the document element only", () => {
    const schemes = Object.entries(SHEETS).flatMap(([path, css]) =>
      declarations(css)
        .filter((d) => d.property === "color-scheme")
        .map((d) => `${path}: ${d.selector} { color-scheme: ${d.value} }`),
    );
    // System follows the OS through `light dark`; a choice pins one of them.
    expect(schemes.sort()).toEqual(
      [
        "./styles.css: :root { color-scheme: light dark }",
        './styles.css: :root[data-theme="dark"] { color-scheme: dark }',
        './styles.css: :root[data-theme="light"] { color-scheme: light }',
      ].sort(),
    );
    // One definition of the dark values: no second copy behind a media query.
    const mediaQueries = Object.entries(SHEETS).filter(([, css]) => /prefers-color-scheme/.test(css.replace(/\/\*[\s\S]*?\*\//g, "")));
    expect(mediaQueries.map(([path]) => path)).toEqual([]);
  });
});

/** Components' sources (not tests), by path, as text. */
const COMPONENTS = Object.entries(
  import.meta.glob(["./**/*.tsx", "!./**/*.test.tsx"], { query: "?raw", import: "default", eager: true }) as Record<string, string>,
);

describe("no component draws with a literal colour", () => {
  it("finds the components", () => {
    expect(COMPONENTS.map(([path]) => path)).toEqual(expect.arrayContaining(["./components/Logo.tsx", "./components/SettingsScreen.tsx"]));
  });

  it("has no colour literal in a quoted value (inline styles, SVG fill and stroke)", () => {
    const quoted = /["'`]\s*(#[0-9a-f]{3,8}|(?:rgba?|hsla?)\([^"'`]*\))\s*["'`]/gi;
    const named = new RegExp(`(?:fill|stroke|color|background|stopColor)\\s*[=:]\\s*\\{?\\s*["'\`](?:${NAMED.join("|")})["'\`]`, "gi");
    const found = COMPONENTS.flatMap(([path, source]) =>
      [...source.matchAll(quoted), ...source.matchAll(named)].map((m) => `${path}: ${m[0]}`),
    );
    expect(found).toEqual([]);
  });
});
