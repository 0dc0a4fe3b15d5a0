// Sub-agents (issue 19): a session and the sub-agents its Agent calls
// started, each folded into a `SessionModel` of its own, and what the
// sub-agents panel lists.
//
// How the events arrive: a sub-agent's events are stamped with its own
// session id (`<parent>-agent-<call>`, a child session in the store), and
// the parent's Agent call carries `tool_progress` of kind `subagent` naming
// that session; it comes before any of the sub-agent's own events (one
// writer, in order). A permission prompt is the parent's: its
// `permission_requested` / `permission_answered` carry the parent's id, the
// call's id and (`agent`) the sub-agent whose call it is. So an event goes
// to the model of its session, except those two, which go to the model
// that has the call. Nothing here infers a link from an id's form.

import type { Event, JsonValue, SessionStatus, SubagentPhase, SubagentRef } from "../generated/protocol";
import { applyEvent, emptyModel, type PermissionRequest, type SessionModel } from "./model";

/** One sub-agent, as the Agent call's progress and its own session say. */
export interface Subagent {
  /** Its own session. */
  readonly sessionId: string;
  /** The session whose Agent call started it. */
  readonly parentSessionId: string;
  /** That Agent call. */
  readonly toolUseId: string;
  readonly subagentType: string;
  /** The Agent call's short description of the task. */
  readonly description: string;
  /** Whether the call asked for it to run in the background. */
  readonly background: boolean;
  readonly phase: SubagentPhase;
  /** The tool it is calling now. */
  readonly currentTool: string | null;
  readonly toolCalls: number;
  readonly turns: number;
  readonly outputTokens: number;
  /** How it ended; null while it runs. */
  readonly status: SessionStatus | null;
  readonly startedMs: number;
  readonly endedMs: number | null;
}

/** A session with its sub-agents. */
export interface SessionTree {
  /** The session on show. */
  readonly root: SessionModel;
  /** Its id: the first event's when none was given. */
  rootId: string | null;
  /** Each sub-agent's model, by its session id. */
  readonly children: Map<string, SessionModel>;
  /** Each sub-agent, by its session id, in the order they started. */
  readonly agents: Map<string, Subagent>;
  /** Agent call id → the sub-agent's session id. */
  readonly byCall: Map<string, string>;
  /** The session of every call seen (permission prompts find their call by it). */
  readonly callSession: Map<string, string>;
  /** Events applied (the tree is updated in place). */
  version: number;
}

/** An empty tree; `rootId` null takes the first event's session. */
export function emptyTree(rootId: string | null = null): SessionTree {
  return {
    root: emptyModel(),
    rootId,
    children: new Map(),
    agents: new Map(),
    byCall: new Map(),
    callSession: new Map(),
    version: 0,
  };
}

/** Folds a whole event list into a tree. */
export function foldTree(events: readonly Event[], rootId: string | null = null): SessionTree {
  const tree = emptyTree(rootId);
  for (const event of events) applyTreeEvent(tree, event);
  return tree;
}

/** The model of session `id` in the tree (created for a sub-agent seen first). */
function modelOf(tree: SessionTree, id: string): SessionModel {
  if (id === tree.rootId) return tree.root;
  let model = tree.children.get(id);
  if (!model) {
    model = emptyModel();
    tree.children.set(id, model);
  }
  return model;
}

/** The session an event belongs to (see the header). */
export function eventTarget(tree: SessionTree, event: Event): string {
  if (event.type === "permission_requested") {
    return event.agent?.agent_session_id ?? tree.callSession.get(event.tool_use_id) ?? event.session_id;
  }
  if (event.type === "permission_answered") return tree.callSession.get(event.tool_use_id) ?? event.session_id;
  return event.session_id;
}

function field(input: JsonValue | undefined, key: string): JsonValue | undefined {
  return input !== null && typeof input === "object" && !Array.isArray(input) ? input[key] : undefined;
}

/** Whether an event is one of the tree's sessions' (the root or a known sub-agent). */
export function belongsToTree(tree: SessionTree, event: Event): boolean {
  return event.session_id === tree.rootId || tree.agents.has(event.session_id);
}

/** Folds one event into the tree (in place) and returns it. */
export function applyTreeEvent(tree: SessionTree, event: Event): SessionTree {
  tree.version += 1;
  tree.rootId ??= event.session_id;
  const target = eventTarget(tree, event);
  const model = modelOf(tree, target);
  applyEvent(model, event);
  switch (event.type) {
    case "tool_queued":
      if (!tree.callSession.has(event.tool_use_id)) tree.callSession.set(event.tool_use_id, target);
      break;
    case "tool_progress": {
      const data = event.data;
      if (data.kind !== "subagent") break;
      const id = data.agent_session_id;
      const before = tree.agents.get(id);
      const input = model.calls.get(event.tool_use_id)?.input;
      const description = field(input, "description");
      tree.byCall.set(event.tool_use_id, id);
      modelOf(tree, id);
      tree.agents.set(id, {
        sessionId: id,
        parentSessionId: target,
        toolUseId: event.tool_use_id,
        subagentType: data.subagent_type,
        description: before?.description ?? (typeof description === "string" ? description : ""),
        background: before?.background ?? field(input, "run_in_background") === true,
        phase: data.phase,
        currentTool: data.phase === "running" ? data.current_tool : null,
        toolCalls: Math.max(data.tool_calls, before?.toolCalls ?? 0),
        turns: Math.max(data.turns, before?.turns ?? 0),
        outputTokens: Math.max(data.output_tokens, before?.outputTokens ?? 0),
        status: data.phase === "completed" ? (data.status ?? before?.status ?? "completed") : (before?.status ?? null),
        startedMs: before?.startedMs ?? event.ts_ms,
        endedMs: data.phase === "completed" ? (before?.endedMs ?? event.ts_ms) : (before?.endedMs ?? null),
      });
      break;
    }
    case "session_completed": {
      // The sub-agent's own end (a background one may outlive its call's progress).
      const agent = tree.agents.get(target);
      if (agent && agent.status === null) {
        tree.agents.set(target, { ...agent, phase: "completed", currentTool: null, status: event.status, endedMs: event.ts_ms });
      }
      break;
    }
    default:
      break;
  }
  return tree;
}

/** Every waiting prompt of the session and its sub-agents, oldest first; a
 * sub-agent's names it (`agent`: the event's, else the tree's link). */
export function treePendingRequests(tree: SessionTree): PermissionRequest[] {
  const out: PermissionRequest[] = [];
  const collect = (model: SessionModel, agent: Subagent | null) => {
    for (const id of model.pending) {
      const request = model.calls.get(id)?.request;
      if (!request) continue;
      out.push(request.agent !== null || agent === null ? request : { ...request, agent: subagentRef(agent) });
    }
  };
  collect(tree.root, null);
  for (const [id, model] of tree.children) collect(model, tree.agents.get(id) ?? null);
  return out.sort((a, b) => a.requestedMs - b.requestedMs);
}

/** The protocol's reference to a sub-agent. */
export function subagentRef(agent: Subagent): SubagentRef {
  return {
    agent_session_id: agent.sessionId,
    tool_use_id: agent.toolUseId,
    subagent_type: agent.subagentType,
    description: agent.description,
  };
}

/** The sub-agents of the tree: running ones first, then by start. */
export function listSubagents(tree: SessionTree): Subagent[] {
  return [...tree.agents.values()].sort(
    (a, b) => Number(b.status === null) - Number(a.status === null) || a.startedMs - b.startedMs,
  );
}

/** The background task a sub-agent runs as (its Agent call started it), if any. */
export function subagentTask(tree: SessionTree, agent: Subagent): string | null {
  const parent = agent.parentSessionId === tree.rootId ? tree.root : tree.children.get(agent.parentSessionId);
  return parent?.calls.get(agent.toolUseId)?.taskId ?? null;
}

/** How a sub-agent's status reads: "running", "completed", "interrupted"… */
export function subagentState(agent: Subagent): SessionStatus | "running" {
  return agent.status ?? "running";
}
