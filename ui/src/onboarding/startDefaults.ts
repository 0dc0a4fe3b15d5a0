// What a project's start form starts with, from the app's settings: the
// provider chosen at first run (or in Settings), its default model and the
// default permission mode. The sample project starts on the offline demo,
// the only folder it plays in (the backend refuses it anywhere else).

import type { AppSettings, DefaultModels, PermissionMode, Project } from "../generated/protocol";

/** The start form's provider kinds. */
export type ProviderKind = "replay" | "anthropic" | "openai";

export interface StartDefaults {
  kind: ProviderKind;
  /** The model field's text (empty: the provider's default). */
  model: string;
  baseUrl: string;
  mode: PermissionMode;
  /** Per provider, the model sent when the field is left empty. */
  defaultModels: DefaultModels;
}

/** The start form's first values for `project` (canonical paths, as stored). */
export function startDefaults(settings: AppSettings, project: Project, sampleProjectPath: string | null): StartDefaults {
  const models = settings.default_models;
  const mode = settings.default_mode;
  const anthropic: StartDefaults = { kind: "anthropic", model: models.anthropic, baseUrl: "", mode, defaultModels: models };
  if (project.path === sampleProjectPath) return { ...anthropic, kind: "replay", model: "" };
  const provider = settings.provider;
  switch (provider?.kind) {
    case "anthropic":
      return { ...anthropic, baseUrl: provider.base_url ?? "" };
    case "openai":
      return { ...anthropic, kind: "openai", model: models.openai, baseUrl: provider.base_url };
    case "demo":
      // The form offers replay scripts; the built-in demo itself is refused
      // here by the backend, with the reason.
      return { ...anthropic, kind: "replay", model: "" };
    default:
      return anthropic;
  }
}
