// The one typed client for the backend. Components call these functions and
// never `invoke` directly (eslint enforces it), so every command's name,
// arguments and result are checked against the types generated from Rust.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

import type { CommandError, Commands, Event } from "./generated/protocol";

/** How commands reach the backend; swapped for a fake in unit tests. */
export interface Transport {
  invoke(command: string, payload: Record<string, unknown>): Promise<unknown>;
}

const tauriTransport: Transport = {
  invoke: (command, payload) => invoke(command, payload),
};

let transport: Transport = tauriTransport;

/** Replaces the transport (unit tests only). Returns a function that restores it. */
export function setTransport(next: Transport): () => void {
  const previous = transport;
  transport = next;
  return () => {
    transport = previous;
  };
}

/** A command failed; `message` says what and where, ready to show. */
export class BackendError extends Error {
  constructor(
    readonly command: keyof Commands,
    message: string,
  ) {
    super(message);
    this.name = "BackendError";
  }
}

function isCommandError(value: unknown): value is CommandError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/** Calls a backend command with its typed arguments and result. */
export async function call<K extends keyof Commands>(
  command: K,
  args: Commands[K]["args"],
): Promise<Commands[K]["result"]> {
  try {
    return (await transport.invoke(command, { args })) as Commands[K]["result"];
  } catch (err) {
    const message = isCommandError(err) ? err.message : String(err);
    throw new BackendError(command, message);
  }
}

/** The channel on which the backend emits runtime events. */
export const EVENT_CHANNEL = "gatehouse://event";

/** Subscribes to runtime events; resolves to an unsubscribe function. */
export function onEvent(handler: (event: Event) => void): Promise<UnlistenFn> {
  return listen<Event>(EVENT_CHANNEL, (message) => handler(message.payload));
}

export const backend = {
  appInfo: () => call("app_info", {}),
  listProjects: () => call("list_projects", {}),
  addProject: (path: string) => call("add_project", { path }),
  openProject: (id: number) => call("open_project", { id }),
  pickFolder: () => call("pick_folder", {}),
  smokeReport: (ok: boolean, detail: string) => call("smoke_report", { ok, detail }),
};
