// One hook of a settings file: event, matcher, command or URL, whether it
// runs (and why not), its place in the file, and its switch, edit and delete.

import type { HookEntryView } from "../../generated/protocol";
import { NOT_RUN_LABELS } from "./model";

interface Props {
  entry: HookEntryView;
  editable: boolean;
  onEdit(): void;
  onDelete(): void;
  onSetEnabled(enabled: boolean): void;
}

export function HookRow({ entry, editable, onEdit, onDelete, onSetEnabled }: Props) {
  return (
    <li
      className="hook-row"
      data-testid="hook-row"
      data-event={entry.event}
      data-command={entry.command}
      data-runs={entry.runs}
    >
      <span className="hook-matcher mono" title="Matcher">
        {entry.matcher === null || entry.matcher === "" ? "all tools" : entry.matcher}
      </span>
      <span className="hook-kind">{entry.handler === "http" ? "POST" : "$"}</span>
      <code className="hook-command">{entry.command}</code>
      {entry.if_rule !== null && <span className="hook-if mono">if {entry.if_rule}</span>}
      <span className="hook-meta">
        {entry.timeout_secs} s · line {entry.line}:{entry.column}
      </span>
      {entry.not_run !== null && (
        <span className="hook-not-run" data-testid="hook-not-run" data-reason={entry.not_run}>
          {NOT_RUN_LABELS[entry.not_run]}
        </span>
      )}
      {editable && (
        <span className="rule-actions">
          <label className="hook-switch">
            <input
              type="checkbox"
              data-testid="hook-toggle"
              checked={entry.enabled}
              onChange={(e) => onSetEnabled(e.target.checked)}
            />
            on
          </label>
          <button type="button" data-testid="hook-edit" onClick={onEdit}>
            Edit / test
          </button>
          <button type="button" data-testid="hook-delete" onClick={onDelete}>
            Delete
          </button>
        </span>
      )}
    </li>
  );
}
