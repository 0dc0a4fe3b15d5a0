// The Skills panel (issue 21 item 5): every skill of the project with its
// source, description, what it grants and when it was last used; skills
// the project's sessions do not load (an untrusted project's, a user skill
// a project skill replaces) are listed apart with why; broken skill
// folders by file and line. State: ./state.ts.
//
// Test ids are the contract with tests: skills-view, skills-trust,
// skill-row (data-name, data-origin, data-active), skill-last-used,
// skill-grants, skills-inactive, skills-problem, skills-empty, skills-reload.

import type { SkillView } from "../../generated/protocol";
import { timeAgo } from "../../format";
import { useSkills } from "./state";
import "./skills.css";

const ORIGIN_LABELS: Record<SkillView["origin"], string> = {
  user: "User (~/.claude/skills)",
  project: "Project (.claude/skills)",
};

function inactiveReason(skill: SkillView, trusted: boolean): string {
  if (skill.origin === "project" && !trusted) return "not loaded until you trust the project";
  return "replaced by the project's skill of the same name";
}

function SkillRow({ skill, trusted }: { skill: SkillView; trusted: boolean }) {
  return (
    <li className="skill-row" data-testid="skill-row" data-name={skill.name} data-origin={skill.origin} data-active={skill.active}>
      <div className="skill-head">
        <strong className="skill-name">{skill.name}</strong>
        <span className="skill-origin muted">{ORIGIN_LABELS[skill.origin]}</span>
        <span className="skill-last-used muted" data-testid="skill-last-used" title={skill.last_used_ms === null ? undefined : new Date(skill.last_used_ms).toLocaleString()}>
          {skill.last_used_ms === null ? "never used here" : `last used ${timeAgo(skill.last_used_ms)} · ${skill.uses} use${skill.uses === 1 ? "" : "s"}`}
        </span>
      </div>
      <p className="skill-description">{skill.description}</p>
      {skill.allowed_tools.length > 0 && (
        <p className="skill-grants muted" data-testid="skill-grants">
          Runs unasked while active: {skill.allowed_tools.map((t) => <code key={t}>{t}</code>)}
        </p>
      )}
      {skill.model !== null && <p className="muted">Asks for model {skill.model}</p>}
      {!skill.active && <p className="skill-inactive muted">{inactiveReason(skill, trusted)}</p>}
      <p className="skill-file muted">{skill.file}</p>
    </li>
  );
}

export function SkillsPanel({ projectId }: { projectId: number | null }) {
  const [{ view, error }, reload] = useSkills(projectId);
  const active = view?.skills.filter((s) => s.active) ?? [];
  const inactive = view?.skills.filter((s) => !s.active) ?? [];
  return (
    <div className="skills-view" data-testid="skills-view">
      {error !== null && (
        <p className="error" data-testid="skills-error" role="alert">
          {error}
        </p>
      )}
      {view && (
        <>
          <p className="rules-facts">
            <span data-testid="skills-trust" data-trusted={view.trusted}>
              {view.trusted
                ? "Trusted project: its skills and your own load in its sessions."
                : "Untrusted project: only your own skills load; the project's are listed until you trust it."}
            </span>
          </p>
          <div className="rules-savebar">
            <button type="button" data-testid="skills-reload" onClick={() => void reload()}>
              Reload
            </button>
          </div>
          {view.problems.length > 0 && (
            <ul className="rules-file-problems">
              {view.problems.map((p, i) => (
                <li key={i} className="error" data-testid="skills-problem">
                  {p.line > 0 ? `${p.file}:${p.line}` : p.file}: {p.message}
                </li>
              ))}
            </ul>
          )}
          {view.skills.length === 0 ? (
            <p className="muted" data-testid="skills-empty">
              No skills. A skill is a folder with a SKILL.md in ~/.claude/skills or the project's .claude/skills.
            </p>
          ) : (
            <ul className="skill-list">
              {active.map((s) => (
                <SkillRow key={s.file} skill={s} trusted={view.trusted} />
              ))}
            </ul>
          )}
          {inactive.length > 0 && (
            <section data-testid="skills-inactive">
              <h3>Not loaded</h3>
              <ul className="skill-list">
                {inactive.map((s) => (
                  <SkillRow key={s.file} skill={s} trusted={view.trusted} />
                ))}
              </ul>
            </section>
          )}
        </>
      )}
    </div>
  );
}
