import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

import { setEventSource, setTransport } from "../client";
import type { Event, Project, SessionSummary } from "../generated/protocol";
import { installTranscriptLayout } from "../session/testLayout";
import { storedSession } from "./fixtures";
import { SessionView, providerChoice } from "./SessionView";

installTranscriptLayout();

// SessionScreen is a lazily loaded chunk; loading it once here keeps the
// module transform (highlight.js, Markdown) out of the tests' wait timeouts.
beforeAll(async () => {
  await import("../session/SessionScreen");
});

const project = (over: Partial<Project> = {}): Project => ({
  id: 3,
  path: "/work/demo",
  name: "demo",
  added_at_ms: 1,
  last_opened_ms: 1,
  trusted_at_ms: null,
  has_project_settings: false,
  ...over,
});

/** A fake backend: records commands; `emit` plays events on the channel. */
function fake(stored: SessionSummary[] = [], earlier: Event[] | null = null) {
  const calls: [string, Record<string, unknown>][] = [];
  let listener: ((e: Event) => void) | null = null;
  const restoreEvents = setEventSource({
    listen: async (handler) => {
      listener = handler;
      return () => {
        listener = null;
      };
    },
  });
  const restoreTransport = setTransport({
    invoke: async (command, payload) => {
      const args = payload["args"] as Record<string, unknown>;
      calls.push([command, args]);
      switch (command) {
        case "list_sessions":
          return stored;
        case "start_session":
          // The backend emits session_started before the command returns.
          listener?.({ session_id: "s1", ts_ms: 1, type: "session_started", provider: "replay", model: "replay", project: "/work/demo", resumed: false } as Event);
          return { session_id: "s1", project_path: "/work/demo", mode: "default", events: [], earlier_events: 0, session_rules: [], rule_files: [] };
        case "resume_session":
          // A long session comes as its last turn; the first comes after.
          return {
            session_id: "s1",
            project_path: "/work/demo",
            mode: "default",
            events: [
              { session_id: "s1", ts_ms: 3, type: "user_prompt", text: "second" },
              { session_id: "s1", ts_ms: 4, type: "assistant_message", turn: 2, message_id: null, content: [{ type: "text", text: "LAST ANSWER" }], stop_reason: "end_turn" },
            ],
            earlier_events: 2,
            session_rules: [],
            rule_files: [],
          };
        case "session_events_before":
          return {
            // Sub-agents' events come only when asked for.
            events: earlier?.filter((e) => args["subagents"] === true || e.session_id === args["session_id"]) ?? [
              { session_id: "s1", ts_ms: 1, type: "user_prompt", text: "first" },
              { session_id: "s1", ts_ms: 2, type: "assistant_message", turn: 1, message_id: null, content: [{ type: "text", text: "FIRST ANSWER" }], stop_reason: "end_turn" },
            ],
            unreadable_seqs: [],
            unreadable: 0,
          };
        case "api_key_status":
          return { provider: args["provider"], source: null };
        case "set_project_trust":
          return project({ trusted_at_ms: 5, has_project_settings: true });
        default:
          return null;
      }
    },
  });
  return {
    calls,
    emit: (e: Record<string, unknown>) => listener?.({ session_id: "s1", ts_ms: 2, ...e } as unknown as Event),
    restore: () => {
      restoreTransport();
      restoreEvents();
    },
  };
}

let restore: (() => void) | null = null;
afterEach(() => {
  cleanup();
  restore?.();
});

describe("SessionView", () => {
  it("starts a replay session, streams its events, and sends answers and prompts", async () => {
    const f = fake();
    restore = f.restore;
    render(<SessionView project={project()} onBack={() => undefined} />);
    // Without settings the form starts on Anthropic: a user folder never defaults to the demo.
    expect((screen.getByTestId("provider-kind") as HTMLSelectElement).value).toBe("anthropic");
    fireEvent.change(screen.getByTestId("provider-kind"), { target: { value: "replay" } });
    fireEvent.change(screen.getByTestId("replay-script"), { target: { value: "/tmp/s.json" } });
    fireEvent.click(screen.getByTestId("start-session"));
    await screen.findByTestId("session-screen");
    expect(f.calls.find(([c]) => c === "start_session")?.[1]).toEqual({
      project_id: 3,
      provider: { kind: "replay", script: "/tmp/s.json" },
      mode: "default",
    });
    fireEvent.change(screen.getByTestId("prompt-input"), { target: { value: "hello" } });
    fireEvent.click(screen.getByTestId("prompt-send"));
    await waitFor(() =>
      expect(f.calls.find(([c]) => c === "send_prompt")?.[1]).toEqual({ session_id: "s1", text: "hello" }),
    );
    f.emit({ type: "user_prompt", text: "hello" });
    f.emit({ type: "assistant_text_delta", turn: 1, index: 0, text: "Hi" });
    f.emit({ type: "tool_queued", tool_use_id: "t1", name: "Bash", input: { command: "make" } });
    f.emit({ type: "permission_requested", tool_use_id: "t1", tool_name: "Bash", input: { command: "make" }, reason: { kind: "default", message: "ask" }, trace: [], suggestions: ["Bash(make)"], preview: null });
    // Another session's events are not this view's.
    f.emit({ session_id: "other", type: "assistant_text_delta", turn: 1, index: 1, text: "NOT MINE" });
    expect(await screen.findByTestId("assistant-text")).toHaveProperty("textContent", "Hi");
    expect(screen.getAllByTestId("assistant-text")).toHaveLength(1);
    fireEvent.click(await screen.findByTestId("permission-allow-session"));
    await waitFor(() =>
      expect(f.calls.find(([c]) => c === "answer_permission")?.[1]).toEqual({
        session_id: "s1",
        tool_use_id: "t1",
        answer: { kind: "allow_for_session" },
      }),
    );
    fireEvent.click(screen.getByTestId("interrupt-button"));
    await waitFor(() => expect(f.calls.some(([c]) => c === "interrupt")).toBe(true));
  });

  it("shows a long resumed session's last turns first, then puts its earlier events in front", async () => {
    const f = fake();
    restore = f.restore;
    render(<SessionView project={project()} resumeSessionId="s1" onBack={() => undefined} />);
    await screen.findByTestId("session-screen");
    await waitFor(() =>
      expect(screen.getAllByTestId("assistant-text").map((e) => e.textContent)).toEqual(["FIRST ANSWER", "LAST ANSWER"]),
    );
    expect(f.calls.find(([c]) => c === "session_events_before")?.[1]).toEqual({ session_id: "s1", count: 2, subagents: true });
  });

  it("shows a resumed session's past sub-agent nested under its Agent call, from the earlier part", async () => {
    const child = "s1-agent-a1";
    const earlier = [
      { session_id: "s1", ts_ms: 1, type: "user_prompt", text: "first" },
      { session_id: "s1", ts_ms: 2, type: "tool_queued", tool_use_id: "a1", name: "Agent", input: { description: "survey", prompt: "look", subagent_type: "Explore" }, read_only: false },
      { session_id: "s1", ts_ms: 2, type: "tool_progress", tool_use_id: "a1", data: { kind: "subagent", agent_session_id: child, subagent_type: "Explore", phase: "started", current_tool: null, tool_calls: 0, turns: 0, output_tokens: 0, status: null } },
      { session_id: child, ts_ms: 3, type: "user_prompt", text: "look" },
      { session_id: child, ts_ms: 4, type: "assistant_message", turn: 1, message_id: null, content: [{ type: "text", text: "CHILD ANSWER" }], stop_reason: "end_turn" },
      { session_id: "s1", ts_ms: 5, type: "tool_progress", tool_use_id: "a1", data: { kind: "subagent", agent_session_id: child, subagent_type: "Explore", phase: "completed", current_tool: null, tool_calls: 0, turns: 1, output_tokens: 5, status: "completed" } },
      { session_id: "s1", ts_ms: 5, type: "tool_completed", tool_use_id: "a1", status: "ok", is_error: false, content: [{ type: "text", text: "done" }], duration_ms: 3, persisted_path: null },
    ] as Event[];
    const f = fake([], earlier);
    restore = f.restore;
    render(<SessionView project={project()} resumeSessionId="s1" onBack={() => undefined} />);
    fireEvent.click(await screen.findByTestId("agent-transcript-toggle"));
    await waitFor(() => expect(screen.getAllByTestId("assistant-text").map((e) => e.textContent)).toContain("CHILD ANSWER"));
    expect(screen.getByTestId("agent-call").getAttribute("data-agent-status")).toBe("completed");
  });

  it("asks to trust a project with settings before anything else", async () => {
    const f = fake();
    restore = f.restore;
    render(<SessionView project={project({ has_project_settings: true })} onBack={() => undefined} />);
    fireEvent.click(await screen.findByTestId("trust-project"));
    await screen.findByTestId("project-trusted");
    expect(f.calls.find(([c]) => c === "set_project_trust")?.[1]).toEqual({ id: 3, trusted: true });
    expect(screen.getByTestId("new-session")).toBeTruthy();
  });

  it("opens a stored session read-only; only the Resume button continues it", async () => {
    const f = fake([storedSession()]);
    restore = f.restore;
    const opened: string[] = [];
    render(<SessionView project={project()} onBack={() => undefined} onOpenStored={(id) => opened.push(id)} />);
    const open = await screen.findByTestId("open-stored-session");
    expect(open.textContent).toMatch(/^do it · .+ — ended: app closed, 1 event$/);
    fireEvent.click(open);
    expect(opened).toEqual(["ses_old"]);
    expect(f.calls.some(([c]) => c === "resume_session")).toBe(false);
    fireEvent.click(screen.getByTestId("resume-session"));
    await waitFor(() => expect(f.calls.find(([c]) => c === "resume_session")?.[1]).toMatchObject({ session_id: "ses_old" }));
  });

  it("says on the start form, before Start, that the chosen provider has no key", async () => {
    const f = fake();
    restore = f.restore;
    const settings: string[] = [];
    render(<SessionView project={project()} onBack={() => undefined} onOpenSettings={() => settings.push("settings")} />);
    expect(screen.queryByTestId("missing-api-key")).toBeNull();
    fireEvent.change(screen.getByTestId("provider-kind"), { target: { value: "anthropic" } });
    const note = await screen.findByTestId("missing-api-key");
    expect(note.textContent).toContain("No Anthropic API key is set");
    fireEvent.click(screen.getByTestId("missing-api-key-settings"));
    expect(settings).toEqual(["settings"]);
    expect(f.calls.find(([c]) => c === "api_key_status")?.[1]).toEqual({ provider: "anthropic" });
  });

  it("names the modes on the start form as the session header does", () => {
    const f = fake();
    restore = f.restore;
    render(<SessionView project={project()} onBack={() => undefined} />);
    const options = Array.from((screen.getByTestId("start-mode") as HTMLSelectElement).options).map((o) => [o.value, o.text]);
    expect(options).toEqual([
      ["default", "Ask before edits"],
      ["acceptEdits", "Accept edits"],
      ["plan", "Plan (read-only)"],
      ["bypassPermissions", "Bypass permissions"],
      ["dontAsk", "Don't ask (deny)"],
    ]);
  });

  it("turns the picker's fields into a provider choice", () => {
    const fields = { script: " ", model: "m", baseUrl: "http://127.0.0.1:1/v1" };
    expect(providerChoice("replay", fields)).toEqual({ kind: "replay", script: null });
    expect(providerChoice("openai", fields)).toEqual({ kind: "openai", model: "m", base_url: "http://127.0.0.1:1/v1" });
    expect(providerChoice("anthropic", { script: "", model: "", baseUrl: "" }, "claude-sonnet-4-5")).toEqual({
      kind: "anthropic",
      model: "claude-sonnet-4-5",
      base_url: null,
    });
  });
});
