// What the tools that put the user in the loop (issue 20) show: the
// questions and plans waiting for the user (`interaction_requested` until
// its `interaction_answered`) and the current todo list (TodoWrite's
// `todos_updated` progress). A fold of the events like model.ts, kept apart
// from it; `TalkbackStore.sync` folds only the events appended since the
// last call. The rules are the backend's: the current list is the last one
// whose call did not fail (gatehouse_session::todos::current_todos).

import type { Event, Interaction, TodoItem } from "../generated/protocol";

/** A question or plan waiting for the user's reply. */
export interface PendingInteraction {
  toolUseId: string;
  toolName: string;
  interaction: Interaction;
  requestedMs: number;
}

/** At most this many earlier lists are kept (to fall back on when a call fails). */
const KEPT_LISTS = 20;

/** The folded state. */
export interface TalkbackState {
  /** Waiting, oldest first. */
  pending: PendingInteraction[];
  /** Todo lists by call, oldest first (at most `KEPT_LISTS`). */
  lists: Array<{ toolUseId: string; todos: TodoItem[] }>;
  /** Calls whose result was not ok. */
  failed: Set<string>;
  /** Counts applied events; changes whenever anything may have. */
  version: number;
}

/** A state with nothing in it. */
export function emptyTalkback(): TalkbackState {
  return { pending: [], lists: [], failed: new Set(), version: 0 };
}

/** Folds one more event in. */
export function applyTalkbackEvent(state: TalkbackState, event: Event): void {
  state.version += 1;
  switch (event.type) {
    case "interaction_requested":
      if (!state.pending.some((p) => p.toolUseId === event.tool_use_id)) {
        state.pending = [
          ...state.pending,
          { toolUseId: event.tool_use_id, toolName: event.tool_name, interaction: event.interaction, requestedMs: event.ts_ms },
        ];
      }
      break;
    case "interaction_answered":
    case "tool_completed":
      if (state.pending.some((p) => p.toolUseId === event.tool_use_id)) {
        state.pending = state.pending.filter((p) => p.toolUseId !== event.tool_use_id);
      }
      if (event.type === "tool_completed" && event.status !== "ok") {
        state.failed = new Set(state.failed).add(event.tool_use_id);
      }
      break;
    case "tool_progress":
      if (event.data.kind === "todos_updated") {
        const lists = state.lists.filter((l) => l.toolUseId !== event.tool_use_id);
        lists.push({ toolUseId: event.tool_use_id, todos: event.data.todos });
        state.lists = lists.slice(-KEPT_LISTS);
      }
      break;
    case "session_completed":
      // Nothing answers a question once the exchange has ended.
      state.pending = [];
      break;
    default:
      break;
  }
}

/** The current todo list, or null when no TodoWrite ran. */
export function currentTodos(state: TalkbackState): TodoItem[] | null {
  for (let i = state.lists.length - 1; i >= 0; i -= 1) {
    const list = state.lists[i];
    if (list && !state.failed.has(list.toolUseId)) return list.todos;
  }
  return null;
}

/** Folds only what was appended since the last `sync` (a list that is not an extension is folded afresh). */
export class TalkbackStore {
  private state = emptyTalkback();
  private count = 0;
  private last: Event | undefined = undefined;

  sync(events: readonly Event[]): TalkbackState {
    const extension = this.count <= events.length && (this.count === 0 || events[this.count - 1] === this.last);
    if (!extension) {
      this.state = emptyTalkback();
      this.count = 0;
    }
    for (let i = this.count; i < events.length; i += 1) {
      const event = events[i];
      if (event) applyTalkbackEvent(this.state, event);
    }
    this.count = events.length;
    this.last = events[events.length - 1];
    return this.state;
  }
}
