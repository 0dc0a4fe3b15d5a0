import { lazy, Suspense, useEffect, useRef, useState } from "react";

import { backend } from "../client";
import type {
  PermissionMode,
  Project,
  ProviderChoice,
  SessionSummary,
} from "../generated/protocol";
import { useApiKeys } from "../state/apiKeys";
import { useLiveSession } from "../state/liveSession";
import { plural, sessionLabels, sessionStateLabel } from "../format";
import { SessionLabelView } from "./SessionLabelView";
import { MODE_LABELS, MODES } from "../session/modes";
import type { ProviderKind, StartDefaults } from "../onboarding/startDefaults";
import { ErrorBanner } from "./ErrorBanner";
import { Page, PageHeader } from "./Page";

// The session screen (Markdown, highlight.js, diffs, the virtualiser) is its
// own chunk: the home screen and settings load without it.
const SessionScreen = lazy(() =>
  import("../session/SessionScreen").then((module) => ({ default: module.SessionScreen })),
);

interface Props {
  project: Project;
  /** A stored session to resume as soon as the view opens. */
  resumeSessionId?: string | null;
  onBack(): void;
  /** Shows a stored session read-only (the session browser's reader). */
  onOpenStored?(sessionId: string): void;
  /** Opens Settings (where API keys are entered). */
  onOpenSettings?(): void;
  /** The start form's first values (from Settings); the Anthropic API otherwise. */
  defaults?: StartDefaults | undefined;
}

/** Without settings (tests, a failed start-up): Anthropic, its usual model. */
const FALLBACK_DEFAULTS: StartDefaults = {
  kind: "anthropic",
  model: "",
  baseUrl: "",
  mode: "default",
  defaultModels: { anthropic: "claude-sonnet-4-5", openai: "" },
};

/** The provider's API key is missing: said on the start form, before Start. */
function MissingKey({ kind, onOpenSettings }: { kind: "anthropic" | "openai"; onOpenSettings?: (() => void) | undefined }) {
  const [state] = useApiKeys([kind]);
  const status = state.status[kind];
  if (status === undefined || status.source !== null) return null;
  const name = kind === "anthropic" ? "Anthropic" : "OpenAI-compatible";
  return (
    <p className="notice notice-warn" role="status" data-testid="missing-api-key" data-provider={kind}>
      No {name} API key is set{kind === "openai" ? " (a local server may not need one)" : ""}: the first prompt would fail.{" "}
      <button type="button" className="link" data-testid="missing-api-key-settings" onClick={onOpenSettings}>
        Add one in Settings
      </button>
    </p>
  );
}

/** The provider picker's fields, turned into the backend's choice (`defaultModel` when the model is left empty). */
export function providerChoice(
  kind: ProviderKind,
  fields: { script: string; model: string; baseUrl: string },
  defaultModel = kind === "openai" ? "" : FALLBACK_DEFAULTS.defaultModels.anthropic,
): ProviderChoice {
  switch (kind) {
    case "replay":
      return { kind: "replay", script: fields.script.trim() === "" ? null : fields.script.trim() };
    case "anthropic":
      return {
        kind: "anthropic",
        model: fields.model.trim() || defaultModel,
        base_url: fields.baseUrl.trim() === "" ? null : fields.baseUrl.trim(),
      };
    case "openai":
      return { kind: "openai", model: fields.model.trim() || defaultModel, base_url: fields.baseUrl.trim() };
  }
}

function TrustPrompt({ project, onDone }: { project: Project; onDone(p: Project | null): void }) {
  return (
    <section className="trust-prompt" data-testid="trust-prompt" role="dialog">
      <h3>Trust this project?</h3>
      <p>
        <code>{project.path}</code> has its own Gatehouse/Claude settings. Its allow rules apply only if
        you trust it; its deny and ask rules always apply.
      </p>
      <button
        type="button"
        className="primary"
        data-testid="trust-project"
        onClick={() => void backend.setProjectTrust(project.id, true).then(onDone, () => onDone(null))}
      >
        Trust project
      </button>
      <button type="button" data-testid="dont-trust-project" onClick={() => onDone(null)}>
        Not now
      </button>
    </section>
  );
}

/** Calls `run` once, when it is mounted: inside the Suspense boundary, that
 * is when the lazily loaded session screen beside it is on show. */
function OnMounted({ run }: { run(): void }) {
  const once = useRef(run);
  useEffect(() => once.current(), []);
  return null;
}

/** A project's session view: pick a provider and start or resume a session. */
export function SessionView({
  project: initial,
  resumeSessionId = null,
  onBack,
  onOpenStored,
  onOpenSettings,
  defaults = FALLBACK_DEFAULTS,
}: Props) {
  const [project, setProject] = useState(initial);
  const [trustAsked, setTrustAsked] = useState(false);
  const [state, actions] = useLiveSession();
  const [kind, setKind] = useState<ProviderKind>(defaults.kind);
  const [script, setScript] = useState("");
  const [model, setModel] = useState(defaults.model);
  const [baseUrl, setBaseUrl] = useState(defaults.baseUrl);
  const [mode, setMode] = useState<PermissionMode>(defaults.mode);
  const [stored, setStored] = useState<SessionSummary[]>([]);

  const needsTrust =
    !trustAsked && project.has_project_settings && project.trusted_at_ms === null;

  useEffect(() => {
    let cancelled = false;
    backend
      .listSessions({ project_path: project.path, limit: 20 })
      .then((list) => {
        if (!cancelled) setStored(list);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [project.path, state.handle]);

  // Resume once, as soon as any trust question is settled.
  const autoResumed = useRef(false);
  useEffect(() => {
    if (resumeSessionId && !autoResumed.current && !needsTrust) {
      autoResumed.current = true;
      void actions.resume(resumeSessionId, null);
    }
  }, [resumeSessionId, needsTrust, actions]);

  const choice = providerChoice(
    kind,
    { script, model, baseUrl },
    kind === "openai" ? defaults.defaultModels.openai : defaults.defaultModels.anthropic,
  );
  const labels = sessionLabels(stored);

  return (
    <Page name="project" className="session" testId="session-view" fill={state.handle !== null && !needsTrust}>
      <PageHeader
        title={project.name}
        titleTestId="session-project-name"
        back={{ label: "Projects", testId: "back-home", onClick: onBack }}
        aside={
          <>
            <span className="project-path">{project.path}</span>
            {project.trusted_at_ms !== null && (
              <span className="badge" data-testid="project-trusted">
                trusted
              </span>
            )}
          </>
        }
      />
      {state.error !== null && <ErrorBanner message={state.error} onDismiss={actions.dismissError} />}
      {needsTrust ? (
        <TrustPrompt
          project={project}
          onDone={(trusted) => {
            if (trusted) setProject(trusted);
            setTrustAsked(true);
          }}
        />
      ) : state.handle ? (
        <Suspense fallback={<p className="muted" data-testid="session-loading">Loading session…</p>}>
          <SessionScreen
          key={state.handle.session_id}
          handle={state.handle}
          events={state.events}
          running={state.running}
          onPrompt={actions.prompt}
          onInterrupt={actions.interrupt}
          onModeChange={actions.setMode}
          onAnswer={actions.answer}
          onStopTask={actions.stopTask}
          onOpenTaskOutput={actions.openTaskOutput}
          onReply={actions.reply}
          />
          <OnMounted run={actions.loadEarlier} />
        </Suspense>
      ) : (
        <section className="new-session" data-testid="new-session">
          <h3>{resumeSessionId ? "Continue session" : "New session"}</h3>
          <label>
            Provider{" "}
            <select
              data-testid="provider-kind"
              value={kind}
              onChange={(e) => setKind(e.target.value as ProviderKind)}
            >
              <option value="replay">Replay (offline demo)</option>
              <option value="anthropic">Anthropic</option>
              <option value="openai">OpenAI-compatible</option>
            </select>
          </label>
          {kind === "replay" && (
            <label>
              Script{" "}
              <input
                data-testid="replay-script"
                placeholder="built-in demo"
                value={script}
                onChange={(e) => setScript(e.target.value)}
              />
            </label>
          )}
          {kind !== "replay" && (
            <label>
              Model{" "}
              <input
                data-testid="provider-model"
                placeholder={kind === "openai" ? defaults.defaultModels.openai || "llama3.1" : defaults.defaultModels.anthropic}
                value={model}
                onChange={(e) => setModel(e.target.value)}
              />
            </label>
          )}
          {kind !== "replay" && (
            <label>
              Base URL{" "}
              <input
                data-testid="provider-base-url"
                placeholder={kind === "openai" ? "http://127.0.0.1:11434/v1" : "default"}
                value={baseUrl}
                onChange={(e) => setBaseUrl(e.target.value)}
              />
            </label>
          )}
          {kind !== "replay" && <MissingKey key={kind} kind={kind} onOpenSettings={onOpenSettings} />}
          <label>
            Mode{" "}
            <select
              data-testid="start-mode"
              value={mode}
              onChange={(e) => setMode(e.target.value as PermissionMode)}
            >
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {MODE_LABELS[m]}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="primary"
            data-testid="start-session"
            disabled={state.busy}
            onClick={() =>
              void (resumeSessionId
                ? actions.resume(resumeSessionId, choice)
                : actions.start(project.id, choice, mode))
            }
          >
            {resumeSessionId ? "Continue" : "Start session"}
          </button>
          {stored.length > 0 && (
            <>
              <h3>Stored sessions</h3>
              <ul className="stored-sessions">
                {stored.map((s) => (
                  <li key={s.id} className="stored-session-row">
                    <button
                      type="button"
                      data-testid="open-stored-session"
                      data-session-id={s.id}
                      title="Show this session (read-only)"
                      onClick={() => onOpenStored?.(s.id)}
                    >
                      <SessionLabelView label={labels.get(s.id)} /> — {sessionStateLabel(s)}, {plural(s.event_count, "event")}
                    </button>
                    <button
                      type="button"
                      data-testid="resume-session"
                      data-session-id={s.id}
                      disabled={state.busy}
                      onClick={() => void actions.resume(s.id, choice)}
                    >
                      Resume
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
    </Page>
  );
}
