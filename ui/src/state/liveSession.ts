// A live session's state and actions: the events of one session (its stored
// history plus what arrives on the event channel), whether an exchange is
// running, and the commands the session screen calls. Components render
// this and call the actions; they hold no session logic of their own.

import { useCallback, useEffect, useRef, useState } from "react";

import { backend, onEvent } from "../client";
import type {
  Event,
  InteractionReply,
  PermissionAnswer,
  PermissionMode,
  ProviderChoice,
  SessionHandle,
} from "../generated/protocol";

/** The modes in Shift+Tab order (Claude Code's cycle). */
export const MODE_CYCLE: PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

/** The mode after `mode` in the Shift+Tab cycle. */
export function nextMode(mode: PermissionMode): PermissionMode {
  const i = MODE_CYCLE.indexOf(mode);
  return MODE_CYCLE[(i + 1) % MODE_CYCLE.length] ?? "default";
}

/** Whether an exchange is running: a prompt was sent and has not completed.
 * Only the session's own events count (`sessionId`; a sub-agent's prompt
 * and end are its own). */
export function isRunning(events: Event[], sessionId: string | null = null): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (sessionId !== null && event?.session_id !== sessionId) continue;
    const type = event?.type;
    if (type === "session_completed") return false;
    if (type === "user_prompt") return true;
  }
  return false;
}

/** The sub-agent session an event names (the Agent call's `subagent` progress), if any. */
export function subagentSessionOf(event: Event): string | null {
  return event.type === "tool_progress" && event.data.kind === "subagent" ? event.data.agent_session_id : null;
}

/**
 * The sessions whose events the view takes: the session and, once its
 * Agent calls name them, its sub-agents (and theirs). A sub-agent's events
 * carry its own session id; its `subagent` progress on the Agent call comes
 * before them.
 */
export class SessionFamily {
  private readonly ids = new Set<string>();

  constructor(root: string, history: readonly Event[] = []) {
    this.ids.add(root);
    for (const event of history) this.accepts(event);
  }

  /** Whether `event` is of the family; learns the sub-agents it names. */
  accepts(event: Event): boolean {
    if (!this.ids.has(event.session_id)) return false;
    const child = subagentSessionOf(event);
    if (child !== null) this.ids.add(child);
    return true;
  }
}

/** The session's current mode: the last `mode_changed`, else the handle's. */
export function currentMode(handle: SessionHandle, events: Event[]): PermissionMode {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === "mode_changed") return event.mode;
  }
  return handle.mode;
}

/** The session rules in force: the handle's plus those added since. */
export function sessionRules(handle: SessionHandle, events: Event[]): string[] {
  const rules = [...handle.session_rules];
  for (const event of events) {
    if (event.type === "session_rules_added") {
      for (const rule of event.rules) if (!rules.includes(rule)) rules.push(rule);
    }
  }
  return rules;
}

/** Appends `incoming` to `events`, skipping events already present (the
 * handle's history and the live channel can overlap right after a start). */
export function mergeEvents(events: Event[], incoming: Event[]): Event[] {
  if (incoming.length === 0) return events;
  const seen = new Set(events.map((e) => JSON.stringify(e)));
  const fresh = incoming.filter((e) => !seen.has(JSON.stringify(e)));
  return fresh.length === 0 ? events : [...events, ...fresh];
}

export interface LiveSessionState {
  handle: SessionHandle | null;
  events: Event[];
  running: boolean;
  busy: boolean;
  error: string | null;
}

export interface LiveSessionActions {
  start(projectId: number, provider: ProviderChoice, mode: PermissionMode): Promise<void>;
  resume(sessionId: string, provider: ProviderChoice | null): Promise<void>;
  prompt(text: string): void;
  interrupt(): void;
  setMode(mode: PermissionMode): void;
  answer(toolUseId: string, answer: PermissionAnswer): void;
  /** Stops a background task of the session (a background sub-agent). */
  stopTask(taskId: string): void;
  /** Opens a background task's whole output file with the OS opener. */
  openTaskOutput(taskId: string): void;
  /** Replies to a question (AskUserQuestion) or a plan (ExitPlanMode). */
  reply(toolUseId: string, reply: InteractionReply): void;
  close(): Promise<void>;
  dismissError(): void;
  /** The session screen is on show: fetch a long resumed session's earlier
   * events (left out of its handle) once that screen is painted. */
  loadEarlier(): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Runs `f` after the next frame has been painted (soon, where nothing paints). */
function afterPaint(f: () => void) {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => setTimeout(f, 0));
  else setTimeout(f, 0);
}

/** One live session at a time, for the session view of one project. */
export function useLiveSession(): [LiveSessionState, LiveSessionActions] {
  const [handle, setHandle] = useState<SessionHandle | null>(null);
  const [events, setEvents] = useState<Event[]>([]);
  const [sending, setSending] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Events that arrive before the start command returns the session id
  // (`session_started` is emitted while it runs), so none is lost.
  const early = useRef<Event[]>([]);
  const sessionId = useRef<string | null>(null);
  const family = useRef<SessionFamily | null>(null);
  // A resumed handle's left-out earlier events, until they are fetched.
  const earlier = useRef<{ sessionId: string; count: number } | null>(null);

  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let cancelled = false;
    void onEvent((event) => {
      const id = sessionId.current;
      if (id === null) {
        early.current.push(event);
        if (early.current.length > 10_000) early.current.shift();
        return;
      }
      if (!family.current?.accepts(event)) return;
      if (event.type === "user_prompt" && event.session_id === id) setSending(false);
      setEvents((list) => [...list, event]);
    }).then((stop) => {
      if (cancelled) stop();
      else unlisten = stop;
    });
    return () => {
      cancelled = true;
      unlisten?.();
      // Leaving the view closes its session (its events stay stored).
      const open = sessionId.current;
      sessionId.current = null;
      if (open !== null) void backend.closeSession(open).catch(() => undefined);
    };
  }, []);

  const open = useCallback((next: SessionHandle) => {
    sessionId.current = next.session_id;
    const known = new SessionFamily(next.session_id, next.events);
    family.current = known;
    const buffered = early.current.filter((e) => known.accepts(e));
    early.current = [];
    setHandle(next);
    setEvents(mergeEvents(next.events, buffered));
    // A long resumed session comes as its last turns (with its sub-agents'
    // events, where they happened); the earlier events are fetched once
    // that last screen is painted (`loadEarlier`).
    earlier.current = next.earlier_events > 0 ? { sessionId: next.session_id, count: next.earlier_events } : null;
  }, []);

  const loadEarlier = useCallback(() => {
    const pending = earlier.current;
    earlier.current = null;
    if (pending === null) return;
    afterPaint(() => {
      backend
        .sessionFamilyEventsBefore(pending.sessionId, pending.count)
        .then((read) => {
          if (sessionId.current !== pending.sessionId) return;
          // Sub-agents named only in the earlier part are of the family too.
          for (const event of read.events) family.current?.accepts(event);
          setEvents((current) => [...read.events, ...current]);
        })
        .catch((err: unknown) => setError(`the session's earlier events could not be loaded: ${message(err)}`));
    });
  }, []);

  const run = useCallback(async (what: () => Promise<unknown>) => {
    try {
      await what();
    } catch (err) {
      setSending(false);
      setError(message(err));
    }
  }, []);

  const id = handle?.session_id ?? null;
  const actions: LiveSessionActions = {
    start: async (projectId, provider, mode) => {
      setBusy(true);
      early.current = [];
      await run(async () => open(await backend.startSession(projectId, provider, mode)));
      setBusy(false);
    },
    resume: async (resumeId, provider) => {
      setBusy(true);
      early.current = [];
      await run(async () => open(await backend.resumeSession(resumeId, provider)));
      setBusy(false);
    },
    prompt: (text) => {
      if (id === null || text.trim() === "") return;
      setSending(true);
      void run(() => backend.sendPrompt(id, text));
    },
    interrupt: () => {
      if (id !== null) void run(() => backend.interrupt(id));
    },
    setMode: (mode) => {
      if (id !== null) void run(() => backend.setMode(id, mode));
    },
    answer: (toolUseId, answer) => {
      if (id !== null) void run(() => backend.answerPermission(id, toolUseId, answer));
    },
    stopTask: (taskId) => {
      if (id !== null) void run(() => backend.stopTask(id, taskId));
    },
    openTaskOutput: (taskId) => {
      if (id !== null) void run(() => backend.openTaskOutput(id, taskId));
    },
    reply: (toolUseId, reply) => {
      if (id !== null) void run(() => backend.answerInteraction(id, toolUseId, reply));
    },
    close: async () => {
      if (id === null) return;
      sessionId.current = null;
      await run(() => backend.closeSession(id));
      setHandle(null);
      setEvents([]);
    },
    dismissError: () => setError(null),
    loadEarlier,
  };

  return [{ handle, events, running: sending || isRunning(events, id), busy, error }, actions];
}
