//! A [`ProviderChoice`] (what the UI or the CLI asked for) turned into a
//! model provider and the model name to send.

use std::path::Path;
use std::sync::Arc;

use gatehouse_agent::keys::ApiKey;
use gatehouse_agent::provider::Provider;
use gatehouse_agent::provider::anthropic::{AnthropicConfig, AnthropicProvider};
use gatehouse_agent::provider::openai::{OpenAiConfig, OpenAiProvider};
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_protocol::session::ProviderChoice;

/// Finds a provider's key (`anthropic`, `openai`).
pub type KeyFinder<'a> = &'a dyn Fn(&str) -> Result<Option<ApiKey>, String>;

/// The provider and model for `choice` in `project`. Replay scripts get
/// `${PROJECT_DIR}` replaced by the project folder; without a script the
/// built-in demo plays — only in `data_dir`'s sample project
/// ([`crate::app_settings::check_replay_folder`]), else it is refused.
pub fn build_provider(
    choice: &ProviderChoice,
    project: &Path,
    data_dir: &Path,
    find_key: KeyFinder<'_>,
) -> Result<(Arc<dyn Provider>, String), String> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    Ok(match choice {
        ProviderChoice::Replay { script } => {
            let script = match script {
                Some(path) => Script::load(Path::new(path))?,
                None => {
                    crate::app_settings::check_replay_folder(project, data_dir)?;
                    gatehouse_agent::demo::script()?
                }
            };
            (
                Arc::new(ReplayProvider::new(script.with_project_dir(project))),
                "replay".into(),
            )
        }
        ProviderChoice::Anthropic { model, base_url } => {
            let Some(key) = find_key("anthropic")? else {
                return Err(
                    "no Anthropic API key: set ANTHROPIC_API_KEY or store one in the keychain (Settings in the app, or `gatehouse-cli keys set anthropic`)"
                        .into(),
                );
            };
            let mut config = AnthropicConfig::new(key);
            if let Some(url) = base_url.clone().or_else(|| env("ANTHROPIC_BASE_URL")) {
                config.base_url = url;
            }
            (Arc::new(AnthropicProvider::new(config)?), model.clone())
        }
        ProviderChoice::OpenAi { model, base_url } => {
            let key = find_key("openai")?;
            let provider = OpenAiProvider::new(OpenAiConfig::new(base_url.clone(), key))?;
            (Arc::new(provider), model.clone())
        }
    })
}
