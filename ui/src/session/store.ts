// Keeps a `SessionModel` in step with a growing `Event[]` without refolding:
// each sync applies only the events appended since the last one. A list that
// is not an extension of the one seen (another session, a reload) is folded
// afresh.

import type { Event } from "../generated/protocol";
import { applyEvent, emptyModel, type SessionModel } from "./model";

export class ModelStore {
  private model: SessionModel = emptyModel();
  private applied: Event[] = [];
  /** How many events were there at the first sync (the stored history). */
  private initial: number | null = null;

  /** The model for `events`, applying only what is new. */
  sync(events: readonly Event[]): SessionModel {
    const extends_ =
      events.length >= this.applied.length &&
      (this.applied.length === 0 ||
        (events[0] === this.applied[0] && events[this.applied.length - 1] === this.applied[this.applied.length - 1]));
    if (!extends_) {
      this.model = emptyModel();
      this.applied = [];
      this.initial = null;
    }
    this.initial ??= events.length;
    for (let i = this.applied.length; i < events.length; i++) {
      const event = events[i] as Event;
      applyEvent(this.model, event);
      this.applied.push(event);
    }
    return this.model;
  }

  /** Events present at the first sync: mode changes among them are older than the handle's mode. */
  get initialCount(): number {
    return this.initial ?? 0;
  }
}
