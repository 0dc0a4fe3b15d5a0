// Search snippets: the store marks each match with `[` `]` (FTS5's
// snippet()); this splits one into plain and highlighted parts.

/** One piece of a snippet. */
export interface SnippetPart {
  text: string;
  match: boolean;
}

/**
 * Splits `snippet` at its `[` … `]` marks. An unclosed `[` highlights the
 * rest (FTS5 cuts long snippets with `…`, never inside a mark, but the text
 * itself may contain brackets, so nothing here throws).
 */
export function parseSnippet(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let at = 0;
  while (at < snippet.length) {
    const open = snippet.indexOf("[", at);
    if (open < 0) {
      parts.push({ text: snippet.slice(at), match: false });
      break;
    }
    if (open > at) parts.push({ text: snippet.slice(at, open), match: false });
    const close = snippet.indexOf("]", open + 1);
    const end = close < 0 ? snippet.length : close;
    if (end > open + 1) parts.push({ text: snippet.slice(open + 1, end), match: true });
    at = close < 0 ? snippet.length : close + 1;
  }
  return parts;
}
