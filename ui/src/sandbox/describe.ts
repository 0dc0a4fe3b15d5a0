// Words for the sandbox's typed state (issue 24 item 4): why bubblewrap
// cannot run and how to fix it. The backend sends enums and values; these
// functions only choose the words, so the session notice and Settings say
// the same thing.

import type { SandboxFix, SandboxUnavailableReason } from "../generated/protocol";

/** Why the sandbox cannot run, in a few words. */
export function unavailableReasonText(reason: SandboxUnavailableReason): string {
  switch (reason) {
    case "bwrap_missing":
      return "bubblewrap (bwrap) is not installed";
    case "user_namespaces_disabled":
      return "unprivileged user namespaces are disabled on this machine";
    case "bwrap_failed":
      return "bubblewrap could not create the sandbox";
    case "bwrap_not_started":
      return "bubblewrap could not be started";
    case "setup_failed":
      return "the sandbox could not be set up";
  }
}

/** What to do about it, or null when nothing is known. */
export function fixText(fix: SandboxFix | null): string | null {
  if (fix === null) return null;
  switch (fix.kind) {
    case "install_package":
      return `install the ${fix.package} package (e.g. apt-get install ${fix.package})`;
    case "sysctl":
      return `set ${fix.key}=${fix.value} (now ${fix.current}): sudo sysctl -w ${fix.key}=${fix.value}, and add it to /etc/sysctl.d/ to keep it`;
  }
}
