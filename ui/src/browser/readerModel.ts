// The reader's view of a stored session: the live session's fold
// (session/model.ts) narrowed by the in-session filters, and the transcript
// row a stored event (`seq`, from search hits and replays) lands on.
// Pure functions; the components only call them.

import type { Event } from "../generated/protocol";
import { foldEvents, type SessionModel, type ToolCall, type TranscriptItem } from "../session/model";

/** Which decision a call had, for the filter. */
export type DecisionFilter = "all" | "allowed" | "asked" | "denied";

/** The reader's in-session filters. */
export interface CallFilter {
  /** Only calls of this tool (null: every tool). */
  tool: string | null;
  decision: DecisionFilter;
  /** Only calls that failed (refusals not counted). */
  errorsOnly: boolean;
}

/** No filter: the whole session. */
export const NO_FILTER: CallFilter = { tool: null, decision: "all", errorsOnly: false };

/** Whether `filter` narrows anything. */
export function isFiltering(filter: CallFilter): boolean {
  return filter.tool !== null || filter.decision !== "all" || filter.errorsOnly;
}

/** Whether one call passes the filter. */
export function callMatches(call: ToolCall, filter: CallFilter): boolean {
  if (filter.tool !== null && call.name !== filter.tool) return false;
  if (filter.errorsOnly && call.status !== "error" && call.status !== "timed_out") return false;
  switch (filter.decision) {
    case "all":
      return true;
    case "allowed":
      return call.decision?.behavior === "allow" || (call.decision?.behavior === "ask" && call.answer !== null && call.answer.kind !== "deny");
    case "asked":
      return call.decision?.behavior === "ask" || call.request !== null;
    case "denied":
      return call.status === "denied";
  }
}

/**
 * The model with only the rows `filter` lets through: matching calls (a
 * group keeps its matching calls), the prompts for context, and session
 * errors. Without a filter the model itself is returned.
 */
export function filterModel(model: SessionModel, filter: CallFilter): SessionModel {
  if (!isFiltering(filter)) return model;
  const matches = (id: string) => {
    const call = model.calls.get(id);
    return call !== undefined && callMatches(call, filter);
  };
  const transcript: TranscriptItem[] = [];
  for (const item of model.transcript) {
    if (item.kind === "user" || item.kind === "error") transcript.push(item);
    else if (item.kind === "tool" && matches(item.callId)) transcript.push(item);
    else if (item.kind === "group") {
      const callIds = item.callIds.filter(matches);
      if (callIds.length === item.callIds.length) transcript.push(item);
      else if (callIds.length > 0) transcript.push({ ...item, key: `${item.key}:filtered`, callIds });
    }
  }
  // Drop prompts that no call follows: they only add noise to a filtered view.
  const kept = transcript.filter((item, i) => item.kind !== "user" || (transcript[i + 1] !== undefined && transcript[i + 1]?.kind !== "user"));
  return { ...model, transcript: kept };
}

/** The tool names a session used, sorted (the tool filter's choices). */
export function toolNames(model: SessionModel): string[] {
  const names = new Set<string>();
  for (const call of model.calls.values()) names.add(call.name);
  return [...names].sort();
}

/** Where an event lands in the transcript. */
export interface SeqTarget {
  /** The transcript row. */
  index: number;
  /** The group to expand to show the call, when the row is a group. */
  groupKey: string | null;
  /** The call the event belongs to, if any: inside a group, the row is
   * the whole group, and it is this call that must be brought into view
   * and marked (centring the group showed another of its calls). */
  callId: string | null;
}

function callIdOf(event: Event): string | null {
  return "tool_use_id" in event && typeof event.tool_use_id === "string" ? event.tool_use_id : null;
}

/**
 * The transcript row that shows event `seq` (from 1) of `events`, folded
 * into `model`: the row of its call for call events, else the last row that
 * existed once the event was applied (rows are only appended, and groups
 * grow in place, so a prefix's row indexes hold in the whole model).
 * `null` when the session has no rows or `seq` is out of range.
 */
export function rowForSeq(
  events: readonly Event[],
  model: SessionModel,
  seq: number,
  unreadableSeqs: readonly number[] = [],
): SeqTarget | null {
  const at = eventIndexOfSeq(seq, events.length, unreadableSeqs);
  if (model.transcript.length === 0 || typeof at !== "number") return null;
  const event = events[at];
  const callId = event ? callIdOf(event) : null;
  if (callId !== null) {
    const index = model.transcript.findIndex(
      (item) => (item.kind === "tool" && item.callId === callId) || (item.kind === "group" && item.callIds.includes(callId)),
    );
    const item = model.transcript[index];
    if (item) return { index, groupKey: item.kind === "group" ? item.key : null, callId };
  }
  const prefix = foldEvents(events.slice(0, at + 1));
  const index = Math.min(Math.max(prefix.transcript.length - 1, 0), model.transcript.length - 1);
  return { index, groupKey: null, callId: null };
}

/**
 * Where stored position `seq` (from 1) is in `events`, which lack the
 * positions this build could not read (`unreadableSeqs`, ascending) — or
 * why it is not there: "unreadable" (a newer version wrote it, or it is
 * damaged) or "missing" (deleted, or past the session's end).
 */
export function eventIndexOfSeq(
  seq: number,
  eventCount: number,
  unreadableSeqs: readonly number[],
): number | "unreadable" | "missing" {
  if (!Number.isInteger(seq) || seq < 1) return "missing";
  let before = 0;
  for (const u of unreadableSeqs) {
    if (u === seq) return "unreadable";
    if (u > seq) break;
    before += 1;
  }
  const index = seq - 1 - before;
  return index < eventCount ? index : "missing";
}
