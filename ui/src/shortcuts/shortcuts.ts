// The keyboard shortcuts the `?` overlay lists. Each entry names a key the
// code handles today (the native menu in src-tauri/app/menu.rs, the prompt
// box in SessionScreen.tsx, the modals in ui/src/session): when one of
// those changes, change its entry here too.

/** One shortcut: its keys (each shown as a key cap) and what it does. */
export interface Shortcut {
  keys: string[];
  does: string;
}

/** Shortcuts of one place in the app. */
export interface ShortcutGroup {
  where: string;
  shortcuts: Shortcut[];
}

export const SHORTCUT_GROUPS: ShortcutGroup[] = [
  {
    where: "Anywhere",
    shortcuts: [
      { keys: ["?"], does: "Show or hide this list (outside text fields)" },
      { keys: ["Ctrl", "O"], does: "Open a folder" },
      { keys: ["Ctrl", "W"], does: "Close the window" },
      { keys: ["Ctrl", "Q"], does: "Quit" },
      { keys: ["F11"], does: "Full screen" },
      { keys: ["Ctrl", "R"], does: "Reload the window (development builds only)" },
    ],
  },
  {
    where: "Session",
    shortcuts: [
      { keys: ["Enter"], does: "Send the prompt" },
      { keys: ["Shift", "Enter"], does: "New line in the prompt" },
      { keys: ["Shift", "Tab"], does: "Next permission mode (in the prompt box)" },
      { keys: ["Esc"], does: "Interrupt the running turn" },
    ],
  },
  {
    where: "Permission prompt",
    shortcuts: [
      { keys: ["1"], does: "Allow once" },
      { keys: ["2"], does: "Allow for this session" },
      { keys: ["3"], does: "Always allow (choose the rule and where it is saved)" },
      { keys: ["4"], does: "Deny (with feedback for the agent)" },
      { keys: ["↑", "↓"], does: "Move between the answers" },
      { keys: ["Enter"], does: "Give the selected answer" },
      { keys: ["Esc"], does: "Deny" },
    ],
  },
  {
    where: "Question from the agent",
    shortcuts: [
      { keys: ["1", "…", "9"], does: "Pick an option" },
      { keys: ["Enter"], does: "Send the answers" },
      { keys: ["Esc"], does: "Close without answering" },
    ],
  },
  {
    where: "Plan approval",
    shortcuts: [
      { keys: ["1"], does: "Approve, then ask before edits" },
      { keys: ["2"], does: "Approve and accept edits" },
      { keys: ["3"], does: "Keep planning (type feedback)" },
      { keys: ["Esc"], does: "Keep planning" },
    ],
  },
];

/** What a key event needs for the `?` test: where it was typed and its modifiers. */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  target: EventTarget | null;
}

/** Whether `target` takes typed text (so "?" there is a character, not a shortcut). */
export function isTextEntry(target: EventTarget | null): boolean {
  if (typeof HTMLElement === "undefined" || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(target.type);
  }
  return false;
}

/** Whether a key event asks for the shortcuts overlay: "?" typed outside text fields. */
export function isShortcutsKey(e: KeyLike): boolean {
  return e.key === "?" && !e.ctrlKey && !e.metaKey && !e.altKey && !e.defaultPrevented && !isTextEntry(e.target);
}
