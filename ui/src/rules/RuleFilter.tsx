// The rule list's filter box: the text, how many rules it keeps of all.

import { plural } from "../format";

interface Props {
  text: string;
  shown: number;
  total: number;
  onChange(text: string): void;
}

export function RuleFilter({ text, shown, total, onChange }: Props) {
  const filtering = text.trim() !== "";
  return (
    <div className="rules-filter" role="search">
      <label htmlFor="rules-filter-input">Filter rules</label>
      <input
        id="rules-filter-input"
        type="search"
        data-testid="rules-filter"
        placeholder="rule text, deny/ask/allow, file…"
        value={text}
        onChange={(e) => onChange(e.target.value)}
      />
      <span className="muted small" data-testid="rules-filter-count" role="status">
        {filtering ? `${shown} of ${plural(total, "rule")}` : plural(total, "rule")}
      </span>
    </div>
  );
}

/** What the list shows when the filter keeps nothing. */
export function NoRuleMatches({ text, onClear }: { text: string; onClear(): void }) {
  return (
    <p className="muted" data-testid="rules-filter-empty">
      No rule matches “{text.trim()}”.{" "}
      <button type="button" className="link" onClick={onClear}>
        Clear the filter
      </button>
    </p>
  );
}
