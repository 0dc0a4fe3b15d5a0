import type { SessionLabel } from "../format";

/** A stored session's list label: its first prompt, then (muted) its start time and any ordinal. */
export function SessionLabelView({ label, className }: { label: SessionLabel | undefined; className?: string }) {
  if (!label) return null;
  return (
    <span className={className} data-testid="session-label">
      {label.title}
      <span className="muted session-started">
        {" "}
        · {label.started}
        {label.ordinal !== null && ` (${label.ordinal})`}
      </span>
    </span>
  );
}
