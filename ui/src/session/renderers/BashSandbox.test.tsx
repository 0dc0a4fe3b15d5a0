import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { Script, must } from "../fixtures/build";
import { foldEvents } from "../model";
import { BashView } from "./BashView";

afterEach(cleanup);

function bashWith(started: Record<string, unknown>) {
  const s = new Script().request(1).queue("b", "Bash", { command: "make" }).start("b", 0, false).allow("b");
  s.progress("b", { kind: "started", pid: 7, cwd: "/p", description: null, output_path: "/d/b.log", ...started });
  s.complete("b", "done", "ok", 10);
  return must(foldEvents(s.events).calls.get("b"), "b");
}

describe("BashView's sandbox line", () => {
  it("says a command ran sandboxed, with its writable roots and network, from the typed field", () => {
    render(<BashView call={bashWith({ sandbox: { state: "sandboxed", writable_roots: ["/p", "/cache"], network: "off" } })} />);
    const line = screen.getByTestId("bash-sandbox");
    expect(line.dataset.state).toBe("sandboxed");
    expect(line.textContent).toBe("sandboxed · network off · writable: /p, /cache");
  });

  it("says when a command ran outside and why, with the reason on hover when unavailable", () => {
    render(<BashView call={bashWith({ sandbox: { state: "unavailable", reason: "bwrap was not found on PATH" } })} />);
    const line = screen.getByTestId("bash-sandbox");
    expect(line.dataset.state).toBe("unavailable");
    expect(line.getAttribute("title")).toBe("bwrap was not found on PATH");
  });

  it("shows nothing when the session's sandbox is off", () => {
    render(<BashView call={bashWith({})} />);
    expect(screen.queryByTestId("bash-sandbox")).toBeNull();
  });
});
