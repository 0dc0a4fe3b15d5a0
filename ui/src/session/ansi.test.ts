import { describe, expect, it } from "vitest";

import { AnsiLines, ansiToHtml } from "./ansi";

describe("AnsiLines", () => {
  it("keeps converted lines (same objects' html) and adds new ones, keyed by line number", () => {
    const lines = new AnsiLines();
    const first = lines.update("a\nb\npart", 0);
    expect(first).toEqual([
      { key: 0, html: "a", chars: 1 },
      { key: 1, html: "b", chars: 1 },
      { key: 2, html: "part", chars: 4 },
    ]);
    const second = lines.update("a\nb\npartial\nc\n", 0);
    expect(second.map((l) => [l.key, l.html])).toEqual([
      [0, "a"],
      [1, "b"],
      [2, "partial"],
      [3, "c"],
    ]);
  });

  it("carries a colour across lines", () => {
    const lines = new AnsiLines();
    const out = lines.update("\u001b[31mred\nstill red\u001b[0m plain\n", 0);
    expect(out[1]?.html).toBe('<span class="ansi-red-fg">still red</span> plain');
  });

  it("follows the front being dropped: keys stay the stream's line numbers", () => {
    const lines = new AnsiLines();
    lines.update("one\ntwo\nthree\n", 0);
    const out = lines.update("three\nfour\n", 2);
    expect(out.map((l) => [l.key, l.html])).toEqual([
      [2, "three"],
      [3, "four"],
    ]);
  });

  it("escapes HTML", () => {
    expect(ansiToHtml("<b>&</b>")).toBe("&lt;b&gt;&amp;&lt;/b&gt;");
    expect(new AnsiLines().update("<i>x</i>\n", 0)[0]?.html).toBe("&lt;i&gt;x&lt;/i&gt;");
  });
});
