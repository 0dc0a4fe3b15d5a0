import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { InteractionReply, Question, TodoItem } from "../generated/protocol";
import { Script } from "./fixtures/build";
import { PlanApprovalModal } from "./PlanApprovalModal";
import { QuestionModal } from "./QuestionModal";
import { TodoPanel } from "./renderers/TodoPanel";
import { currentTodos, TalkbackStore } from "./talkback";

afterEach(cleanup);

const QUESTIONS: Question[] = [
  {
    question: "Which library?",
    header: "Library",
    multiSelect: false,
    options: [
      { label: "React", description: "components" },
      { label: "Vue", description: "templates" },
    ],
  },
  {
    question: "Which checks?",
    header: "Checks",
    multiSelect: true,
    options: [
      { label: "lint", description: "eslint" },
      { label: "types", description: "tsc" },
      { label: "tests", description: "vitest" },
    ],
  },
];

const todo = (content: string, status: TodoItem["status"]): TodoItem => ({ content, activeForm: `${content}ing`, status });

const key = (k: string) => fireEvent.keyDown(document.activeElement ?? document.body, { key: k });

describe("talkback fold", () => {
  it("keeps questions pending until answered and rebuilds the last good todo list", () => {
    const s = new Script().request(1);
    s.queue("q1", "AskUserQuestion", {}).start("q1", 0, false);
    s.add({ type: "interaction_requested", tool_use_id: "q1", tool_name: "AskUserQuestion", interaction: { kind: "questions", questions: QUESTIONS } });
    s.queue("t1", "TodoWrite", {}).start("t1", 1, false).progress("t1", { kind: "todos_updated", todos: [todo("Read", "in_progress")] }).complete("t1", "ok");
    const store = new TalkbackStore();
    let state = store.sync(s.events);
    expect(state.pending.map((p) => p.toolUseId)).toEqual(["q1"]);
    expect(currentTodos(state)).toEqual([todo("Read", "in_progress")]);

    s.add({ type: "interaction_answered", tool_use_id: "q1", reply: { kind: "unanswered", reason: "x" } });
    s.queue("t2", "TodoWrite", {}).start("t2", 2, false).progress("t2", { kind: "todos_updated", todos: [todo("Read", "completed")] }).complete("t2", "boom", "error");
    state = store.sync(s.events);
    expect(state.pending).toEqual([]);
    // The failed call's list does not count.
    expect(currentTodos(state)).toEqual([todo("Read", "in_progress")]);
    expect(currentTodos(new TalkbackStore().sync([]))).toBeNull();
  });
});

describe("QuestionModal", () => {
  function setup() {
    const onReply = vi.fn<(id: string, reply: InteractionReply) => void>();
    render(<QuestionModal toolUseId="q1" questions={QUESTIONS} onReply={onReply} />);
    return onReply;
  }

  it("is answered with the keyboard: number keys pick, Enter confirms each question", () => {
    const onReply = setup();
    const modal = screen.getByTestId("question-modal");
    expect(modal.getAttribute("data-step")).toBe("1");
    expect(document.activeElement).toBe(modal);
    key("2");
    expect(screen.getAllByTestId("question-option")[1]?.getAttribute("data-selected")).toBe("true");
    key("Enter");
    expect(modal.getAttribute("data-step")).toBe("2");
    // multiSelect: toggles, kept in the options' order.
    key("3");
    key("1");
    key("2");
    key("2");
    key("Enter");
    expect(onReply).toHaveBeenCalledWith("q1", {
      kind: "answers",
      answers: [
        { header: "Library", selected: ["Vue"], other: null },
        { header: "Checks", selected: ["lint", "tests"], other: null },
      ],
    });
  });

  it("takes an Other answer typed in its box; Enter with nothing picked does nothing", () => {
    const onReply = setup();
    key("Enter");
    expect(screen.getByTestId("question-modal").getAttribute("data-step")).toBe("1");
    key("3");
    const input = screen.getByTestId("question-other-input");
    fireEvent.change(input, { target: { value: "Svelte" } });
    fireEvent.keyDown(input, { key: "Enter" });
    key("1");
    key("Enter");
    expect(onReply).toHaveBeenCalledWith("q1", {
      kind: "answers",
      answers: [
        { header: "Library", selected: [], other: "Svelte" },
        { header: "Checks", selected: ["lint"], other: null },
      ],
    });
  });

  it("Esc dismisses the questions unanswered", () => {
    const onReply = setup();
    key("Escape");
    expect(onReply).toHaveBeenCalledWith("q1", { kind: "unanswered", reason: "the user closed the question without answering" });
  });
});

describe("PlanApprovalModal", () => {
  function setup() {
    const onReply = vi.fn<(id: string, reply: InteractionReply) => void>();
    render(<PlanApprovalModal toolUseId="p1" plan={"# The plan\n\n1. **Write** the file"} onReply={onReply} />);
    return onReply;
  }

  it("renders the plan as Markdown and approves with acceptEdits on 2", () => {
    const onReply = setup();
    expect(screen.getByTestId("plan-body").querySelector("h1")?.textContent).toBe("The plan");
    expect(screen.getByTestId("plan-body").querySelector("strong")?.textContent).toBe("Write");
    expect(document.activeElement).toBe(screen.getByTestId("plan-approve-default"));
    key("2");
    expect(onReply).toHaveBeenCalledWith("p1", { kind: "plan_approved", mode: "acceptEdits" });
  });

  it("keeps planning with the feedback typed", () => {
    const onReply = setup();
    key("3");
    const box = screen.getByTestId("plan-feedback");
    expect(document.activeElement).toBe(box);
    fireEvent.change(box, { target: { value: "Add tests first" } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onReply).toHaveBeenCalledWith("p1", { kind: "keep_planning", feedback: "Add tests first" });
  });

  it("approves into default mode on 1", () => {
    const onReply = setup();
    key("1");
    expect(onReply).toHaveBeenCalledWith("p1", { kind: "plan_approved", mode: "default" });
  });
});

describe("TodoPanel", () => {
  it("shows each item with its state, the one in progress by its activeForm", () => {
    render(<TodoPanel todos={[todo("Read", "completed"), todo("Fix", "in_progress"), todo("Test", "pending")]} />);
    const items = screen.getAllByTestId("todo-item");
    expect(items.map((i) => i.getAttribute("data-status"))).toEqual(["completed", "in_progress", "pending"]);
    expect(items[1]?.textContent).toBe("Fixing");
    expect(screen.getByTestId("todo-panel").textContent).toContain("1/3 done");
  });

  it("is absent until a TodoWrite ran", () => {
    render(<TodoPanel todos={null} />);
    expect(screen.queryByTestId("todo-panel")).toBeNull();
  });
});
