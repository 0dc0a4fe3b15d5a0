// Keeps a session's model (and its sub-agents', `agents.ts`) in step with a
// growing `Event[]` without refolding: each sync applies only the events
// appended since the last one. A list that is not an extension of the one
// seen (another session, a reload) is folded afresh.

import type { Event } from "../generated/protocol";
import { applyTreeEvent, emptyTree, type SessionTree } from "./agents";
import type { SessionModel } from "./model";

export class ModelStore {
  private current: SessionTree;
  private applied: Event[] = [];
  /** How many events were there at the first sync (the stored history). */
  private initial: number | null = null;

  /** `rootId`: the session on show (else the first event's); the events of
   * its sub-agents fold into their own models. */
  constructor(private readonly rootId: string | null = null) {
    this.current = emptyTree(rootId);
  }

  /** The session's model for `events`, applying only what is new. */
  sync(events: readonly Event[]): SessionModel {
    const extends_ =
      events.length >= this.applied.length &&
      (this.applied.length === 0 ||
        (events[0] === this.applied[0] && events[this.applied.length - 1] === this.applied[this.applied.length - 1]));
    if (!extends_) {
      this.current = emptyTree(this.rootId);
      this.applied = [];
      this.initial = null;
    }
    this.initial ??= events.length;
    for (let i = this.applied.length; i < events.length; i++) {
      const event = events[i] as Event;
      applyTreeEvent(this.current, event);
      this.applied.push(event);
    }
    return this.current.root;
  }

  /** The session with its sub-agents, as of the last sync. */
  get tree(): SessionTree {
    return this.current;
  }

  /** Events present at the first sync: mode changes among them are older than the handle's mode. */
  get initialCount(): number {
    return this.initial ?? 0;
  }
}
