// The editable places a rule can go, as <option>s (the add form's
// destination and each rule's "move to").

import { SOURCE_LABELS, type Target } from "./model";

export function TargetOptions({ targets }: { targets: Target[] }) {
  return (
    <>
      {targets
        .filter((t) => t.editable)
        .map((t) => (
          <option key={t.key} value={t.key}>
            {SOURCE_LABELS[t.source]}: {t.label}
          </option>
        ))}
    </>
  );
}
