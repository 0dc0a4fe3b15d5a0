// Every rule of the draft, grouped by tool and by deny / ask / allow, each
// with its source, 30-day count, lock, lint warnings and edit / delete /
// move actions.

import { Lock, TriangleAlert } from "lucide-react";

import type { RuleProblem } from "../generated/protocol";
import { TargetOptions } from "./TargetOptions";
import { type DraftRule, SOURCE_LABELS, type Target, groupRules, problemsFor } from "./model";

interface Props {
  rules: DraftRule[];
  targets: Target[];
  problems: RuleProblem[];
  onEdit(id: string): void;
  onDelete(id: string): void;
  onMove(id: string, target: string): void;
}

export function RuleGroups({ rules, targets, problems, onEdit, onDelete, onMove }: Props) {
  const byKey = new Map(targets.map((t) => [t.key, t]));
  const groups = groupRules(rules);
  if (groups.length === 0) {
    return <p className="muted">No rules yet: every call follows the mode and the built-in checks.</p>;
  }
  return (
    <div className="rule-groups" data-testid="rule-groups">
      {groups.map((g) => (
        <section key={g.tool} className="rule-tool" data-testid="rule-tool-group" data-tool={g.tool}>
          <h4 className="mono">{g.tool}</h4>
          {g.lists.map(({ list, rules: listed }) => (
            <div key={list} className={`rule-list rule-list-${list}`}>
              <span className={`verdict verdict-${list}`}>{list}</span>
              <ul>
                {listed.map((r) => (
                  <RuleRow
                    key={r.id}
                    rule={r}
                    target={byKey.get(r.target)}
                    targets={targets}
                    problems={problemsFor(r, byKey.get(r.target), problems)}
                    onEdit={onEdit}
                    onDelete={onDelete}
                    onMove={onMove}
                  />
                ))}
              </ul>
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}

interface RowProps {
  rule: DraftRule;
  target: Target | undefined;
  targets: Target[];
  problems: RuleProblem[];
  onEdit(id: string): void;
  onDelete(id: string): void;
  onMove(id: string, target: string): void;
}

function RuleRow({ rule, target, targets, problems, onEdit, onDelete, onMove }: RowProps) {
  const editable = target?.editable ?? false;
  return (
    <li className="rule-row" data-testid="rule-row" data-rule={rule.text} data-list={rule.list}>
      <code className="rule-text">{rule.text}</code>
      <span className="rule-source" title={target?.label}>
        {target ? SOURCE_LABELS[target.source] : "?"}
        {target?.path ? ` · ${target.path}` : target ? ` · ${target.label}` : ""}
      </span>
      <span className="rule-count" data-testid="rule-count" title="Stored calls it decided in the last 30 days">
        {rule.decided30d} in 30 d
      </span>
      {!editable && (
        <span className="rule-lock" data-testid="rule-lock" title={target?.lockReason ?? ""}>
          <Lock size={12} aria-hidden="true" /> {target?.lockReason}
        </span>
      )}
      {editable && (
        <span className="rule-actions">
          <button type="button" data-testid="rule-edit" onClick={() => onEdit(rule.id)}>
            Edit
          </button>
          <button type="button" data-testid="rule-delete" onClick={() => onDelete(rule.id)}>
            Delete
          </button>
          <span className="rule-move">
            <label htmlFor={`rule-move-${rule.id}`}>Move to</label>
            <select
              id={`rule-move-${rule.id}`}
              data-testid="rule-move"
              value={rule.target}
              title={target?.label}
              onChange={(e) => onMove(rule.id, e.target.value)}
            >
              <TargetOptions targets={targets} compact />
            </select>
          </span>
        </span>
      )}
      {problems.map((p, i) => (
        <div key={i} className={`rule-problem problem-${p.severity}`} data-testid="rule-warning" data-code={p.code}>
          <TriangleAlert size={12} aria-hidden="true" /> {p.message}
        </div>
      ))}
    </li>
  );
}
