/**
 * The session's permission mode, always on show: the indicator (a click, or
 * Shift+Tab in the prompt box, goes to the next mode of default →
 * acceptEdits → plan) and a menu reaching every mode. `bypassPermissions`
 * asks for a confirmation that says what it does, and is disabled, with the
 * reason, when policy disables it (`SessionHandle.bypass_disabled`).
 *
 * Test ids: mode-indicator (data-mode) · mode-menu-toggle · mode-menu ·
 * mode-option (data-mode, aria-checked, disabled) · mode-bypass-disabled
 * (the reason) · bypass-confirm with bypass-confirm-yes, bypass-confirm-cancel.
 */

import { ChevronDown, ShieldAlert } from "lucide-react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";

import type { PermissionMode } from "../generated/protocol";
import { MODE_DESCRIPTIONS, MODE_LABELS, MODES } from "./modes";

/** Why bypassPermissions cannot be picked, when policy disables it. */
export const BYPASS_DISABLED_REASON = "Disabled by policy: a settings file sets permissions.disableBypassPermissionsMode to \"disable\".";

export function ModeMenu({
  mode,
  bypassDisabled,
  onCycle,
  onPick,
}: {
  mode: PermissionMode;
  bypassDisabled: boolean;
  onCycle(): void;
  onPick(mode: PermissionMode): void;
}) {
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  // A click anywhere else closes the menu.
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      const t = e.target as Node | null;
      if (t && !menu.current?.contains(t) && !toggle.current?.contains(t)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    menu.current?.querySelector<HTMLButtonElement>("button[aria-checked=true]")?.focus();
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  const pick = (m: PermissionMode) => {
    setOpen(false);
    if (m === "bypassPermissions") {
      setConfirming(true);
      return;
    }
    if (m !== mode) onPick(m);
  };

  const onMenuKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      toggle.current?.focus();
      return;
    }
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    const items = [...(menu.current?.querySelectorAll<HTMLButtonElement>("button:not(:disabled)") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const next = items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length];
    next?.focus();
  };

  return (
    <span className="mode-switch">
      <button
        type="button"
        className={`mode-indicator mode-${mode}`}
        data-testid="mode-indicator"
        data-mode={mode}
        title="Permission mode: click, or Shift+Tab in the prompt box, for the next one"
        onClick={onCycle}
      >
        {MODE_LABELS[mode]} <kbd className="mode-key">Shift+Tab</kbd>
      </button>
      <button
        ref={toggle}
        type="button"
        className="mode-menu-toggle"
        data-testid="mode-menu-toggle"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label="All permission modes"
        title="All permission modes"
        onClick={() => setOpen((o) => !o)}
      >
        <ChevronDown size={14} aria-hidden="true" />
      </button>
      {open && (
        <div ref={menu} className="mode-menu" role="menu" data-testid="mode-menu" aria-label="Permission mode" onKeyDown={onMenuKey}>
          {MODES.map((m) => {
            const disabled = m === "bypassPermissions" && bypassDisabled;
            return (
              <button
                key={m}
                type="button"
                role="menuitemradio"
                aria-checked={m === mode}
                data-testid="mode-option"
                data-mode={m}
                disabled={disabled}
                title={disabled ? BYPASS_DISABLED_REASON : MODE_DESCRIPTIONS[m]}
                onClick={() => pick(m)}
              >
                <span>{MODE_LABELS[m]}</span>
                <span className="mode-why" data-testid={disabled ? "mode-bypass-disabled" : undefined}>
                  {disabled ? BYPASS_DISABLED_REASON : MODE_DESCRIPTIONS[m]}
                </span>
              </button>
            );
          })}
        </div>
      )}
      {confirming && (
        <BypassConfirm
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            onPick("bypassPermissions");
          }}
        />
      )}
    </span>
  );
}

/** The confirmation before bypassPermissions: what it does, Cancel focused. */
function BypassConfirm({ onConfirm, onCancel }: { onConfirm(): void; onCancel(): void }) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <div className="modal-backdrop">
      <div
        className="modal bypass-confirm"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="bypass-title"
        aria-describedby="bypass-what"
        data-testid="bypass-confirm"
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Escape") {
            e.preventDefault();
            onCancel();
          }
        }}
      >
        <header className="modal-head">
          <ShieldAlert size={18} aria-hidden="true" />
          <h2 id="bypass-title">Switch to bypass permissions?</h2>
        </header>
        <div className="modal-body" id="bypass-what">
          <p>
            The agent will run <strong>every tool without asking</strong>: shell commands, file edits and writes anywhere it can reach,
            web requests and MCP tools. Only deny rules, ask rules and protected paths still stop it, and questions it asks you still
            wait for you.
          </p>
          <p className="muted small">Use it only in a sandbox or a throwaway checkout. Shift+Tab or the menu switches back.</p>
        </div>
        <div className="modal-answers">
          <button ref={cancel} type="button" className="answer" data-testid="bypass-confirm-cancel" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="answer deny" data-testid="bypass-confirm-yes" onClick={onConfirm}>
            Bypass permissions
          </button>
        </div>
      </div>
    </div>
  );
}
