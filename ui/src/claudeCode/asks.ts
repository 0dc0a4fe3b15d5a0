// A guarded Claude Code's asks (issue 25): what the backend shows on
// CLAUDE_CODE_ASK_CHANNEL, queued and answered through the same permission
// modal as Gatehouse's own sessions.

import { useCallback, useEffect, useState } from "react";

import { backend, subscribeClaudeCodeAsks, subscribeClaudeCodeAsksWithdrawn } from "../client";
import type { ClaudeCodeAskShown, PermissionAnswer, RuleFile } from "../generated/protocol";
import type { PermissionRequest } from "../session/model";

/** The modal's request for one Claude Code ask (its id is the ask's `request_id`). */
export function toPermissionRequest(shown: ClaudeCodeAskShown, nowMs: number): PermissionRequest {
  const { ask } = shown;
  return {
    toolUseId: shown.request_id,
    toolName: ask.tool_name,
    input: ask.input,
    reason: ask.reason,
    trace: ask.trace,
    suggestions: ask.suggestions,
    userSuggestions: ask.suggestions,
    preview: ask.preview,
    requestedMs: nowMs,
    agent: null,
    webHost: null,
  };
}

/** An ask as it arrived. */
export interface ReceivedAsk {
  shown: ClaudeCodeAskShown;
  receivedMs: number;
}

/** The queue of Claude Code asks, oldest first. */
export interface ClaudeCodeAskQueue {
  asks: ReceivedAsk[];
  /** Where "always allow" can write for the first ask. */
  destinations: RuleFile[];
  /** Answers ask `requestId`; a failure (it timed out meanwhile) is `error`. */
  answer(requestId: string, answer: PermissionAnswer): void;
  error: string | null;
}

/** Subscribes to Claude Code asks for the life of the component. */
export function useClaudeCodeAsks(): ClaudeCodeAskQueue {
  const [asks, setAsks] = useState<ReceivedAsk[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const stopAsks = subscribeClaudeCodeAsks((shown) =>
      setAsks((queue) => [...queue, { shown, receivedMs: Date.now() }]),
    );
    // An ask nobody can answer any more (its hook went away, its wait ran
    // out) leaves the queue: Claude Code asks in its terminal instead.
    const stopWithdrawn = subscribeClaudeCodeAsksWithdrawn((withdrawn) =>
      setAsks((queue) => queue.filter((a) => a.shown.request_id !== withdrawn.request_id)),
    );
    return () => {
      stopAsks();
      stopWithdrawn();
    };
  }, []);
  const answer = useCallback((requestId: string, value: PermissionAnswer) => {
    setAsks((queue) => queue.filter((a) => a.shown.request_id !== requestId));
    backend.answerClaudeCodeAsk(requestId, value).then(
      () => setError(null),
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  }, []);
  return { asks, destinations: asks[0]?.shown.rule_files ?? [], answer, error };
}
