// Settings → Claude Code: the guard's status as the backend reports it
// (`claude_code_guard`) and the switch (`set_claude_code_guard`). Which
// files hold entries, whether every project is guarded and why the switch
// cannot install are the backend's typed answers; nothing is derived here.

import { useEffect, useState } from "react";

import { backend } from "../client";
import type { ClaudeCodeGuard, GuardScope } from "../generated/protocol";

export interface GuardState {
  guard: ClaudeCodeGuard | null;
  /** A change is being written. */
  busy: boolean;
  error: string | null;
}

export interface GuardActions {
  /** Installs (`on`) or removes the entries of `scope` (`project` for a project's file). */
  set(scope: GuardScope, project: string | null, on: boolean): Promise<void>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function useClaudeCodeGuard(): [GuardState, GuardActions] {
  const [guard, setGuard] = useState<ClaudeCodeGuard | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    backend.claudeCodeGuard(null).then(setGuard, (err: unknown) => setError(message(err)));
  }, []);

  return [
    { guard, busy, error },
    {
      set: async (scope, project, on) => {
        setBusy(true);
        try {
          setGuard(await backend.setClaudeCodeGuard(scope, project, on));
          setError(null);
        } catch (err) {
          setError(message(err));
        } finally {
          setBusy(false);
        }
      },
    },
  ];
}
