// Every settings file with its hooks, by event, highest precedence first.

import type { HookEntryView, HookFileView } from "../../generated/protocol";
import { SOURCE_LABELS } from "../model";
import { HookRow } from "./HookRow";
import { eventsOf } from "./model";

interface Props {
  files: HookFileView[];
  onEdit(file: string, entry: HookEntryView): void;
  onDelete(file: string, entry: HookEntryView): void;
  onSetEnabled(file: string, entry: HookEntryView, enabled: boolean): void;
}

export function HookFiles({ files, onEdit, onDelete, onSetEnabled }: Props) {
  const shown = files.filter((f) => f.hooks.length > 0);
  if (shown.length === 0)
    return (
      <p className="muted" data-testid="hooks-empty">
        No hooks in any settings file of this project.
      </p>
    );
  return (
    <>
      {shown.map((file) => (
        <section key={file.path} className="rules-panel hook-file" data-testid="hook-file" data-source={file.source}>
          <h3>
            {SOURCE_LABELS[file.source]} <span className="hook-path mono">{file.path}</span>
          </h3>
          {file.lock_reason !== null && <p className="rule-lock">Read-only here: {file.lock_reason}</p>}
          {eventsOf(file).map((group) => (
            <div key={group.event} className="hook-event-group">
              <h4>{group.event}</h4>
              <ul className="hook-list">
                {group.hooks.map((entry) => (
                  <HookRow
                    key={`${entry.group}-${entry.index}`}
                    entry={entry}
                    editable={file.editable}
                    onEdit={() => onEdit(file.path, entry)}
                    onDelete={() => onDelete(file.path, entry)}
                    onSetEnabled={(enabled) => onSetEnabled(file.path, entry, enabled)}
                  />
                ))}
              </ul>
            </div>
          ))}
        </section>
      ))}
    </>
  );
}
