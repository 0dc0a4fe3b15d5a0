// Built-in tools the session left out of its pool, and why (its
// `tools_unavailable`): e.g. WebSearch without a search provider.

import type { UnavailableTool } from "../generated/protocol";

export function UnavailableTools({ tools }: { tools: readonly UnavailableTool[] }) {
  if (tools.length === 0) return null;
  return (
    <section className="panel" data-testid="tools-unavailable" aria-label="Unavailable tools">
      <h3>Unavailable tools</h3>
      <ul className="small">
        {tools.map((t) => (
          <li key={t.name} data-testid="tool-unavailable" data-tool={t.name} data-reason={t.reason}>
            <span className="mono">{t.name}</span> <span className="muted">— {t.message}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
