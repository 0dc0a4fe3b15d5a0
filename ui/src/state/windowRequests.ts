// What the app shell asks of the page (src-tauri/app/menu.rs and launch.rs):
// menu items and a second launch's folder, as typed `WindowRequest`s.

import { useEffect, useRef } from "react";

import { onWindowRequest } from "../client";
import type { WindowRequest } from "../generated/protocol";

/** Who carries out window requests. */
export interface WindowRequestHandlers {
  openFolder(path: string): void;
  pickFolder(): void;
  showShortcuts(): void;
}

/** Carries out one request. */
export function handleWindowRequest(request: WindowRequest, handlers: WindowRequestHandlers): void {
  switch (request.kind) {
    case "open_folder":
      handlers.openFolder(request.path);
      return;
    case "pick_folder":
      handlers.pickFolder();
      return;
    case "show_shortcuts":
      handlers.showShortcuts();
      return;
  }
}

/** Subscribes to window requests for the life of the component; the latest handlers answer. */
export function useWindowRequests(handlers: WindowRequestHandlers): void {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let stopped = false;
    void onWindowRequest((request) => handleWindowRequest(request, latest.current)).then((stop) => {
      if (stopped) stop();
      else unlisten = stop;
    });
    return () => {
      stopped = true;
      unlisten?.();
    };
  }, []);
}
