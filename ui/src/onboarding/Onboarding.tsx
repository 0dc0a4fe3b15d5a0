import { useState } from "react";

import { backend } from "../client";
import type { AppSettings, Project, StartupState } from "../generated/protocol";
import { Page, PageHeader } from "../components/Page";
import { ProjectStep } from "./ProjectStep";
import { ProviderForm } from "./ProviderForm";
import { useProviderSetup } from "./useProviderSetup";

interface Props {
  startup: StartupState;
  projects: Project[];
  /** First run is over (saved as done): open `project`, if one was chosen. */
  onDone(settings: AppSettings, project: Project | null): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * First run: choose a provider, then open a project (or the sample
 * project, for the demo); the project's trust prompt is the third step.
 * Every step can be skipped and changed later in Settings.
 */
export function Onboarding({ startup, projects, onDone }: Props) {
  const [step, setStep] = useState<"provider" | "project">("provider");
  const [settings, setSettings] = useState(startup.settings);
  const [setup, setupActions] = useProviderSetup(startup.settings);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const finish = async (open: () => Promise<Project | null>) => {
    setBusy(true);
    setError(null);
    try {
      const project = await open();
      const saved = await backend.saveAppSettings({ ...settings, onboarding_done: true });
      onDone(saved, project);
    } catch (err) {
      setError(message(err));
      setBusy(false);
    }
  };

  return (
    <Page name="onboarding" className="onboarding" testId="onboarding">
      <PageHeader title="Welcome to Gatehouse" aside={<span className="muted" data-testid="onboarding-step">Step {step === "provider" ? 1 : 2} of 3</span>} />
      {step === "provider" ? (
        <section className="onboarding-step" data-testid="onboarding-provider">
          <h3>Choose a model provider</h3>
          <ProviderForm state={setup} actions={setupActions} keychainUnavailable={startup.keychain_unavailable} />
          <div className="onboarding-actions">
            <button
              type="button"
              className="primary"
              data-testid="onboarding-continue"
              disabled={setup.busy}
              onClick={() =>
                void setupActions.save(settings).then((saved) => {
                  if (saved === null) return;
                  setSettings(saved);
                  setStep("project");
                })
              }
            >
              Continue
            </button>
            <button type="button" data-testid="onboarding-skip-provider" onClick={() => setStep("project")}>
              Skip
            </button>
          </div>
        </section>
      ) : (
        <ProjectStep
          projects={projects}
          demo={settings.provider?.kind === "demo"}
          busy={busy}
          onPickFolder={() =>
            void backend.pickFolder().then(
              (path) => {
                // Cancelled: still on this step.
                if (path !== null) void finish(() => backend.addProject(path));
              },
              (err: unknown) => setError(message(err)),
            )
          }
          onOpen={(project) => void finish(() => backend.openProject(project.id))}
          onCreateSample={() => void finish(() => backend.createSampleProject())}
          onSkip={() => void finish(async () => null)}
        />
      )}
      {error !== null && (
        <p className="error" role="alert" data-testid="onboarding-error">
          {error}
        </p>
      )}
    </Page>
  );
}
