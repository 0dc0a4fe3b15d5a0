// "Pick from a stored session": fills the tester with a call the agent made.

import { type StoredToolCall, useStoredCalls } from "./storedCalls";
import { plural } from "../format";

interface Props {
  projectPath: string;
  onPick(call: StoredToolCall): void;
}

export function StoredCallPicker({ projectPath, onPick }: Props) {
  const [state, pickSession] = useStoredCalls(projectPath);
  if (state.sessions.length === 0) return null;
  return (
    <div className="tester-row" data-testid="tester-stored">
      <select
        data-testid="tester-stored-session"
        aria-label="Stored session"
        value={state.sessionId}
        onChange={(e) => pickSession(e.target.value)}
      >
        <option value="">Pick a call from a stored session…</option>
        {state.sessions.map((s) => (
          <option key={s.id} value={s.id}>
            {s.title ?? s.id}
          </option>
        ))}
      </select>
      {state.calls.length > 0 && (
        <select
          data-testid="tester-stored-call"
          aria-label="Stored call"
          value=""
          onChange={(e) => {
            const call = state.calls[Number(e.target.value)];
            if (call) onPick(call);
          }}
        >
          <option value="">{plural(state.calls.length, "call")}…</option>
          {state.calls.map((c, i) => (
            <option key={c.toolUseId} value={i}>
              {c.name} {JSON.stringify(c.input).slice(0, 60)}
            </option>
          ))}
        </select>
      )}
      {state.error !== null && <span className="error">{state.error}</span>}
    </div>
  );
}
