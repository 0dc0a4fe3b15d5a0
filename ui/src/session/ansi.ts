// ANSI-coloured output to HTML, incrementally and line by line. A live Bash
// pane gets a new chunk up to 20 times a second; re-rendering its whole kept
// output each time makes the webview re-break every line of it (measured:
// hundreds of ms per update for 50 KB under load). Here every line is its
// own block element keyed by its line number in the stream, converted once:
// an update adds the new lines and leaves the others' DOM and layout alone.

import { AnsiUp } from "ansi_up";

/** One rendered line, keyed by its number in the stream. */
export interface HtmlLine {
  key: number;
  html: string;
  /** Characters of the line's text, without its line break. */
  chars: number;
}

function converter(): AnsiUp {
  const c = new AnsiUp();
  // Colours as classes: the theme decides what they look like.
  c.use_classes = true;
  return c;
}

/** ANSI text as HTML (ansi_up escapes the text). */
export function ansiToHtml(text: string): string {
  return converter().ansi_to_html(text);
}

/** Converts a stream's kept text to lines of HTML, each complete line once. */
export class AnsiLines {
  private live = converter();
  private lines = new Map<number, { text: string; html: string }>();
  /** The highest line number converted by the live converter. */
  private lastLive = -1;

  /**
   * The lines of `text`, whose first line is line `firstLine` of the stream
   * (lines before it were dropped). Complete lines are converted once, in
   * order, by a converter that carries colours across lines; the last,
   * unfinished line is converted on each call and kept only once complete.
   */
  update(text: string, firstLine: number): HtmlLine[] {
    const parts = text.split("\n");
    const partial = parts.pop() ?? "";
    const out: HtmlLine[] = [];
    for (let i = 0; i < parts.length; i++) {
      const n = firstLine + i;
      const line = parts[i] as string;
      let entry = this.lines.get(n);
      if (!entry || entry.text !== line) {
        // A line past the last converted continues the stream's colours; an
        // earlier one that changed (trimmed at the front) starts plain.
        const html = n > this.lastLive ? this.live.ansi_to_html(line) : converter().ansi_to_html(line);
        if (n > this.lastLive) this.lastLive = n;
        entry = { text: line, html };
        this.lines.set(n, entry);
      }
      out.push({ key: n, html: entry.html, chars: line.length });
    }
    for (const n of this.lines.keys()) if (n < firstLine || n >= firstLine + parts.length) this.lines.delete(n);
    if (partial.length > 0) out.push({ key: firstLine + parts.length, html: converter().ansi_to_html(partial), chars: partial.length });
    return out;
  }
}
