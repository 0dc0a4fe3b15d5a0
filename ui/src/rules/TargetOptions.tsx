// The editable places a rule can go, as <option>s (the add form's
// destination and each rule's "move to").

import { SOURCE_LABELS, type Target, targetShortLabel } from "./model";

/** `compact`: short names (the file's name, not its path), the full place as each option's title. */
export function TargetOptions({ targets, compact = false }: { targets: Target[]; compact?: boolean }) {
  return (
    <>
      {targets
        .filter((t) => t.editable)
        .map((t) => (
          <option key={t.key} value={t.key} title={t.label}>
            {compact ? targetShortLabel(t) : `${SOURCE_LABELS[t.source]}: ${t.label}`}
          </option>
        ))}
    </>
  );
}
