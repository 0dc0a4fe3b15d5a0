import { memo, type ComponentProps } from "react";
import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";

import { highlight, languageForFence } from "./highlight";

/** A fenced code block, highlighted; inline code as is. */
function Code({ className, children, ...rest }: ComponentProps<"code">) {
  const match = /language-([\w+#-]+)/.exec(className ?? "");
  const text = String(children ?? "");
  if (!match) {
    return (
      <code className={className} {...rest}>
        {children}
      </code>
    );
  }
  const language = languageForFence(match[1] ?? "");
  return (
    <code
      className={`hljs ${className ?? ""}`}
      // highlight.js escapes every character of the source.
      dangerouslySetInnerHTML={{ __html: highlight(text.replace(/\n$/, ""), language) }}
    />
  );
}

/** Links open outside the app's webview and never run script URLs. */
export function Link({ href, children }: ComponentProps<"a">) {
  const safe = href && /^(https?:|mailto:)/i.test(href) ? href : undefined;
  return (
    <a href={safe} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  );
}

/**
 * Assistant text as Markdown (GFM tables, lists, fenced code highlighted).
 * Raw HTML in the text is not rendered (react-markdown's default, no
 * rehype-raw): it shows as text.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml={false} components={{ code: Code, a: Link }}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
