// Picking a tool call from a stored session for the tester: the project's
// sessions, then the calls of the chosen one (from its stored events).

import { useEffect, useState } from "react";

import { backend } from "../client";
import type { Event, JsonValue, SessionSummary } from "../generated/protocol";

export interface StoredToolCall {
  toolUseId: string;
  name: string;
  input: JsonValue;
}

export interface StoredCallsState {
  sessions: SessionSummary[];
  sessionId: string;
  calls: StoredToolCall[];
  error: string | null;
}

/** The tool calls among a session's events, in order. */
export function toolCallsOf(events: Event[]): StoredToolCall[] {
  const calls: StoredToolCall[] = [];
  for (const e of events) {
    if (e.type === "tool_queued") calls.push({ toolUseId: e.tool_use_id, name: e.name, input: e.input });
  }
  return calls;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function useStoredCalls(projectPath: string | null): [StoredCallsState, (sessionId: string) => void] {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [sessionId, setSessionId] = useState("");
  const [calls, setCalls] = useState<StoredToolCall[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (projectPath === null) return;
    let cancelled = false;
    backend.listSessions({ project_path: projectPath, limit: 50 }).then(
      (list) => !cancelled && setSessions(list),
      (err: unknown) => !cancelled && setError(message(err)),
    );
    return () => {
      cancelled = true;
    };
  }, [projectPath]);

  const pick = (id: string) => {
    setSessionId(id);
    setCalls([]);
    if (id === "") return;
    backend.sessionEvents(id).then(
      (read) => setCalls(toolCallsOf(read.events)),
      (err: unknown) => setError(message(err)),
    );
  };
  return [{ sessions, sessionId, calls, error }, pick];
}
