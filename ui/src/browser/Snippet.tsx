import { parseSnippet } from "./snippet";

/** A search snippet with its matches highlighted (`<mark>`). */
export function Snippet({ text }: { text: string }) {
  return (
    <span className="snippet" data-testid="search-snippet">
      {parseSnippet(text).map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
    </span>
  );
}
