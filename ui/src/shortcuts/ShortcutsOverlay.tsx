import { Keyboard, X } from "lucide-react";
import { useLayoutEffect, useRef } from "react";

import { SHORTCUT_GROUPS } from "./shortcuts";
import "./shortcuts.css";

/** The `?` overlay: every keyboard shortcut, by where it works. Esc or the close button closes it. */
export function ShortcutsOverlay({ onClose }: { onClose(): void }) {
  const close = useRef<HTMLButtonElement>(null);
  // At commit: opened from the menu (not a key or click here), a passive
  // effect would run a task later and an Esc pressed first would be lost.
  useLayoutEffect(() => close.current?.focus(), []);
  return (
    <div className="shortcuts-backdrop" onClick={onClose}>
      <div
        className="shortcuts-overlay"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        data-testid="shortcuts-overlay"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Escape" || e.key === "?") {
            e.preventDefault();
            onClose();
          }
        }}
      >
        <header className="shortcuts-head">
          <Keyboard size={18} aria-hidden="true" />
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <button ref={close} type="button" aria-label="Close" data-testid="shortcuts-close" onClick={onClose}>
            <X size={16} aria-hidden="true" />
          </button>
        </header>
        <div className="shortcuts-groups">
          {SHORTCUT_GROUPS.map((group) => (
            <section key={group.where} className="shortcuts-group">
              <h3>{group.where}</h3>
              <dl>
                {group.shortcuts.map((shortcut) => (
                  <div key={`${shortcut.keys.join("+")}:${shortcut.does}`} className="shortcut-row">
                    <dt>
                      {shortcut.keys.map((key, i) => (
                        <kbd key={i}>{key}</kbd>
                      ))}
                    </dt>
                    <dd>{shortcut.does}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}
