// The visual rule editor (issue 10): every rule of a project by source,
// editing with live validation, the tester and the replay. State and logic
// live in ./state.ts and ./model.ts; this file only lays the pieces out.
//
// Test ids are the contract with tests/e2e/tests/rules.rs: rules-screen,
// rules-project-select, rule-input, rule-list-select, rule-target-select,
// rule-add, rule-error, rule-error-mark, rule-row (data-rule, data-list),
// rule-delete, rule-move, rules-save, rules-conflict, rules-reload,
// rules-overwrite, rules-undo, tester-tool, tester-input, tester-mode,
// tester-decision (data-decision), decision-trace, replay-scope, replay-run,
// replay-progress, replay-count, replay-call (data-session-id, data-seq),
// rules-filter, rules-filter-count, rules-filter-empty, rules-default-mode,
// rules-tab-rules, rules-tab-hooks (the Hooks view: ./hooks/HooksPanel.tsx),
// rules-tab-skills (the Skills view: ./skills/SkillsPanel.tsx).

import { lazy, Suspense, useMemo, useState } from "react";

import type { ReplayChangedCall } from "../generated/protocol";
import { Page, PageHeader } from "../components/Page";
import { MODE_LABELS } from "../session/modes";
import { DirectoriesPanel } from "./DirectoriesPanel";
import { ReplayPanel } from "./ReplayPanel";
import { RuleForm } from "./RuleForm";
import { NoRuleMatches, RuleFilter } from "./RuleFilter";
import { RuleGroups } from "./RuleGroups";
import { filterRules } from "./model";
import { SaveBar } from "./SaveBar";
import { TesterPanel } from "./TesterPanel";
import { useRulesEditor } from "./state";
import "./rules.css";

// The Hooks view loads with its tab.
const HooksPanel = lazy(() => import("./hooks/HooksPanel").then((module) => ({ default: module.HooksPanel })));
const SkillsPanel = lazy(() => import("./skills/SkillsPanel").then((module) => ({ default: module.SkillsPanel })));

type Tab = "rules" | "hooks" | "skills";

const TAB_LABELS: Record<Tab, string> = { rules: "Rules", hooks: "Hooks", skills: "Skills" };

export interface RulesScreenProps {
  onBack(): void;
  /** Opens a stored session at one call (wired by App). */
  onOpenCall(sessionId: string, seq: number): void;
  /** The project to show first: the session's, when the editor opens over one. */
  projectId?: number | null;
}

export function RulesScreen({ onBack, onOpenCall, projectId = null }: RulesScreenProps) {
  const [state, actions] = useRulesEditor(projectId);
  const { view, draft } = state;
  const [filter, setFilter] = useState("");
  const [tab, setTab] = useState<Tab>("rules");
  const listed = useMemo(() => (draft ? filterRules(draft.rules, state.targets, filter) : []), [draft, state.targets, filter]);
  const testCall = (call: ReplayChangedCall) =>
    actions.setTester({ tool: call.tool_name, input: JSON.stringify(call.input, null, 2), mode: call.mode });
  return (
    <Page name="rules" className="rules-screen" testId="rules-screen">
      <PageHeader title="Permission rules" back={{ label: "Back", testId: "rules-back", onClick: onBack }}>
        <select
          data-testid="rules-project-select"
          aria-label="Project"
          value={state.projectId ?? ""}
          onChange={(e) => actions.selectProject(Number(e.target.value))}
        >
          {state.projects?.length === 0 && <option value="">No projects yet: open a folder first</option>}
          {(state.projects ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} — {p.path}
            </option>
          ))}
        </select>
      </PageHeader>
      {state.error !== null && (
        <p className="error" data-testid="rules-error" role="alert">
          {state.error}
        </p>
      )}
      <div className="rules-tabs" role="tablist">
        {(["rules", "hooks", "skills"] as const).map((t) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} data-testid={`rules-tab-${t}`} onClick={() => setTab(t)}>
            {TAB_LABELS[t]}
          </button>
        ))}
      </div>
      {tab === "hooks" && (
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <HooksPanel projectId={state.projectId} />
        </Suspense>
      )}
      {tab === "skills" && (
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <SkillsPanel projectId={state.projectId} />
        </Suspense>
      )}
      {tab === "rules" && view && draft && (
        <>
          <p className="rules-facts" data-testid="rules-facts">
            <span data-testid="rules-trust" data-trusted={view.trusted}>
              {view.trusted ? "Trusted project: its allow rules apply." : "Untrusted project: only its deny and ask rules apply."}
            </span>{" "}
            Default mode: <strong data-testid="rules-default-mode">{MODE_LABELS[view.default_mode ?? "default"]}</strong>.
            {view.bypass_disabled && " Bypass mode is disabled."}
            {view.managed_rules_only && " Managed policy: only policy rules may allow."}
          </p>
          <SaveBar
            dirty={state.dirty}
            canUndo={view.can_undo}
            conflict={state.conflict}
            status={state.status}
            onSave={(overwrite) => void actions.save(overwrite)}
            onDiscard={actions.discard}
            onReload={() => void actions.reload()}
            onUndo={() => void actions.undo()}
          />
          <div className="rules-columns">
            <div className="rules-main">
              <RuleForm
                form={state.form}
                targets={state.targets}
                toolNames={view.tool_names}
                onChange={actions.setForm}
                onSubmit={actions.submitForm}
                onCancel={actions.cancelEdit}
              />
              <RuleFilter text={filter} shown={listed.length} total={draft.rules.length} onChange={setFilter} />
              {listed.length === 0 && draft.rules.length > 0 ? (
                <NoRuleMatches text={filter} onClear={() => setFilter("")} />
              ) : (
                <RuleGroups
                  rules={listed}
                  targets={state.targets}
                  problems={state.problems}
                  onEdit={actions.startEdit}
                  onDelete={actions.deleteRule}
                  onMove={actions.moveRule}
                />
              )}
              <FileProblems problems={state.problems.filter((p) => p.rule === null)} />
              <DirectoriesPanel
                inForce={view.additional_directories}
                targets={state.targets}
                directories={draft.directories}
                onAdd={actions.addDirectory}
                onRemove={actions.removeDirectory}
              />
            </div>
            <div className="rules-side">
              <TesterPanel
                tester={state.tester}
                toolNames={view.tool_names}
                projectPath={view.project.path}
                onChange={actions.setTester}
              />
              <ReplayPanel
                replay={state.replay}
                onChange={actions.setReplay}
                onRun={() => void actions.runReplay()}
                onOpenCall={onOpenCall}
                onTestCall={testCall}
              />
            </div>
          </div>
        </>
      )}
    </Page>
  );
}

function FileProblems({ problems }: { problems: { file: string; line: number; column: number; message: string }[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="rules-file-problems">
      {problems.map((p, i) => (
        <li key={i} className="error" data-testid="rules-problem">
          {p.file}:{p.line}:{p.column}: {p.message}
        </li>
      ))}
    </ul>
  );
}
