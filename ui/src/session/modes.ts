// The permission modes as people read them: one set of names for the start
// form, the session header and anywhere else a mode is shown.

import type { PermissionMode } from "../generated/protocol";

/** Each mode's human name. */
export const MODE_LABELS: Record<PermissionMode, string> = {
  default: "Ask before edits",
  acceptEdits: "Accept edits",
  plan: "Plan (read-only)",
  bypassPermissions: "Bypass permissions",
  dontAsk: "Don't ask (deny)",
};

/** Every mode, in the order the start form offers them. */
export const MODES: PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"];

/** Shift+Tab order, as in Claude Code. */
export const MODE_CYCLE: PermissionMode[] = ["default", "acceptEdits", "plan"];

/** The mode after `mode` in the Shift+Tab cycle. */
export function nextMode(mode: PermissionMode): PermissionMode {
  const at = MODE_CYCLE.indexOf(mode);
  return MODE_CYCLE[(at + 1) % MODE_CYCLE.length] ?? "default";
}

/** What each mode does, in a line (the mode menu). */
export const MODE_DESCRIPTIONS: Record<PermissionMode, string> = {
  default: "Asks before edits, commands and anything a rule does not allow.",
  acceptEdits: "File edits in the project run without asking; commands still ask.",
  plan: "Read-only: the agent explores and proposes a plan; nothing is changed.",
  dontAsk: "Never asks: anything a rule does not allow is denied.",
  bypassPermissions: "Runs every tool without asking; only deny rules, ask rules and protected paths still stop it.",
};

