import { Circle, CircleCheck, CircleDot } from "lucide-react";

import type { TodoItem } from "../../generated/protocol";

/**
 * The agent's todo list (TodoWrite), live; the item in progress shows its
 * `activeForm`. Test ids: todo-panel (data-count) · todo-item (data-status).
 */
export function TodoPanel({ todos }: { todos: readonly TodoItem[] | null }) {
  if (todos === null) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  return (
    <section className="panel todo-panel" data-testid="todo-panel" data-count={todos.length} aria-label="Todo list">
      <h3>
        Todos{" "}
        <span className="muted small">
          {done}/{todos.length} done
        </span>
      </h3>
      {todos.length === 0 ? (
        <p className="muted small">The list is empty.</p>
      ) : (
        <ul className="todo-list">
          {todos.map((t, i) => (
            <li key={i} className={`todo-item todo-${t.status}`} data-testid="todo-item" data-status={t.status}>
              {t.status === "completed" ? (
                <CircleCheck size={14} aria-label="completed" />
              ) : t.status === "in_progress" ? (
                <CircleDot size={14} aria-label="in progress" />
              ) : (
                <Circle size={14} aria-label="pending" />
              )}
              <span>{t.status === "in_progress" ? t.activeForm : t.content}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
