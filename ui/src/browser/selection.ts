// The session list's selection (checkboxes, "Delete selected (n)") as pure
// functions over sets of session ids; state.ts holds the set.

import { type SessionLabel, sessionLabelText } from "../format";

/** `ids` with `id` added, or removed if it was in. */
export function toggled(ids: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(ids);
  if (!next.delete(id)) next.add(id);
  return next;
}

/** Every listed id, or none if every listed id was already selected. */
export function toggledAll(ids: ReadonlySet<string>, listed: readonly string[]): Set<string> {
  const all = listed.length > 0 && listed.every((id) => ids.has(id));
  return all ? new Set() : new Set(listed);
}

/** The selection kept to sessions still listed (after a filter, a refresh or a delete). */
export function pruned(ids: ReadonlySet<string>, listed: readonly string[]): Set<string> {
  const keep = new Set(listed);
  return new Set([...ids].filter((id) => keep.has(id)));
}

/** Whether the header checkbox is on, off or mixed. */
export function allState(ids: ReadonlySet<string>, listed: readonly string[]): "all" | "none" | "some" {
  const n = listed.filter((id) => ids.has(id)).length;
  if (n === 0) return "none";
  return n === listed.length ? "all" : "some";
}

/** How many names a confirmation lists before "and n more". */
export const NAMED = 5;

/** What a deletion confirmation names: the selected sessions' labels, in list order. */
export function deletionNames(
  listed: readonly string[],
  ids: ReadonlySet<string>,
  labels: ReadonlyMap<string, SessionLabel>,
): { names: string[]; more: number } {
  const chosen = listed.filter((id) => ids.has(id));
  const names = chosen.slice(0, NAMED).map((id) => {
    const label = labels.get(id);
    return label ? sessionLabelText(label) : id;
  });
  return { names, more: chosen.length - names.length };
}
