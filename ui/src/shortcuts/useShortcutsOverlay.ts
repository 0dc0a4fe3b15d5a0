import { useCallback, useEffect, useState } from "react";

import { isShortcutsKey } from "./shortcuts";

/** Whether the `?` overlay is open, with "?" (outside text fields) toggling it. */
export function useShortcutsOverlay(): { open: boolean; show(): void; close(): void } {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcutsKey(e)) return;
      e.preventDefault();
      setOpen((was) => !was);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  const show = useCallback(() => setOpen(true), []);
  const close = useCallback(() => setOpen(false), []);
  return { open, show, close };
}
