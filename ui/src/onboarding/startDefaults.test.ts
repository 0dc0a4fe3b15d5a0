import { describe, expect, it } from "vitest";

import type { Project } from "../generated/protocol";
import { appSettings } from "./fixtures";
import { startDefaults } from "./startDefaults";

const project = (path: string): Project => ({
  id: 1,
  path,
  name: "p",
  added_at_ms: 1,
  last_opened_ms: 1,
  trusted_at_ms: null,
  has_project_settings: false,
});

describe("startDefaults", () => {
  const models = { anthropic: "claude-opus-4-1", openai: "llama3.1" };

  it("starts a user folder on the configured provider, its model and the default mode", () => {
    const openai = appSettings({
      provider: { kind: "openai", base_url: "http://127.0.0.1:11434/v1" },
      default_models: models,
      default_mode: "acceptEdits",
    });
    expect(startDefaults(openai, project("/home/ana/w"), "/data/sample-project")).toMatchObject({
      kind: "openai",
      model: "llama3.1",
      baseUrl: "http://127.0.0.1:11434/v1",
      mode: "acceptEdits",
    });
    const anthropic = appSettings({ provider: { kind: "anthropic", base_url: null }, default_models: models });
    expect(startDefaults(anthropic, project("/home/ana/w"), null)).toMatchObject({ kind: "anthropic", model: "claude-opus-4-1" });
  });

  it("nothing configured: Anthropic, never the demo, in a user folder", () => {
    expect(startDefaults(appSettings(), project("/home/ana/w"), "/data/sample-project").kind).toBe("anthropic");
  });

  it("the sample project starts on the offline demo whatever is configured", () => {
    const openai = appSettings({ provider: { kind: "openai", base_url: "http://x/v1" } });
    expect(startDefaults(openai, project("/data/sample-project"), "/data/sample-project")).toMatchObject({
      kind: "replay",
      model: "",
    });
  });
});
