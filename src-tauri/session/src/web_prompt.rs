//! WebFetch's `prompt` applied by a small, fast model (issue 22): the
//! session's own provider, asked with another model name.
//!
//! Which model, as Claude Code names its "small fast model" (first found
//! wins):
//!
//! 1. the environment: `ANTHROPIC_DEFAULT_HAIKU_MODEL`, then
//!    `ANTHROPIC_SMALL_FAST_MODEL` (Claude Code's older name);
//! 2. Gatehouse's own settings, `~/.gatehouse/settings.json`:
//!    `{"smallFastModel": "claude-haiku-4-5"}`;
//! 3. the `env` of the Claude Code settings files the session already
//!    read (Claude Code's way of setting those variables), the same two
//!    names: [`LoadedSettings::env_var`], so an untrusted project's file
//!    names nothing and no file is read twice.
//!
//! None → WebFetch returns the page truncated to its budget, with a note.
//! A replay session has no small model: its script is the whole
//! conversation, and a summary request would take its turns.
//!
//! The request is bounded ([`SmallModelLimits`]): the page is cut to a
//! number of characters (the model is told), the answer to a token and a
//! character limit, the whole exchange to a time limit. No retries: an
//! error goes back to WebFetch, which returns the page instead and says
//! why.

use std::path::Path;
use std::sync::Arc;

use gatehouse_permissions::sources::LoadedSettings;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use gatehouse_agent::message::{Block, Message};
use gatehouse_agent::provider::{ModelRequest, Provider, StreamEvent};
use gatehouse_core::Tool;
use gatehouse_core::deferral::ToolBlock;
use gatehouse_core::typed::Typed;
use gatehouse_tools::web::{PagePrompter, WebFetchConfig, WebFetchTool};
use serde_json::Value;

use crate::web_search::{gatehouse_settings_path, read_settings_file};

/// The environment variables naming the small model, in the order read.
pub const SMALL_MODEL_ENV: [&str; 2] = [
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
];

/// The key of `~/.gatehouse/settings.json` naming the small model.
pub const SMALL_MODEL_KEY: &str = "smallFastModel";

const SYSTEM: &str = "You answer questions about one web page, using only the page's content \
as given. Be concise. Quote exact words sparingly and in quotation marks; everything else is \
in your own words. If the page does not contain the answer, say so.";

/// How much a small-model request may send, receive and take.
#[derive(Debug, Clone)]
pub struct SmallModelLimits {
    /// Characters of page text sent (the rest is cut, and the model told).
    pub max_page_chars: usize,
    /// The reply's token limit.
    pub max_tokens: u32,
    /// Characters of answer kept.
    pub max_answer_chars: usize,
    /// Time for the whole exchange.
    pub timeout: Duration,
}

impl Default for SmallModelLimits {
    fn default() -> Self {
        Self {
            max_page_chars: 100_000,
            max_tokens: 2_048,
            max_answer_chars: 20_000,
            timeout: Duration::from_secs(60),
        }
    }
}

/// A [`PagePrompter`] asking `model` through the session's provider.
pub struct SmallModel {
    provider: Arc<dyn Provider>,
    model: String,
    limits: SmallModelLimits,
}

impl std::fmt::Debug for SmallModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmallModel")
            .field("provider", &self.provider.name())
            .field("model", &self.model)
            .field("limits", &self.limits)
            .finish()
    }
}

impl SmallModel {
    /// `model` through `provider`, within `limits`.
    pub fn new(provider: Arc<dyn Provider>, model: String, limits: SmallModelLimits) -> Self {
        Self {
            provider,
            model,
            limits,
        }
    }

    /// The user message: the page (cut to the limit) and the prompt.
    fn message(&self, prompt: &str, url: &str, page: &str) -> String {
        let total = page.chars().count();
        let limit = self.limits.max_page_chars;
        let (page, cut) = if total > limit {
            let kept: String = page.chars().take(limit).collect();
            (
                kept,
                format!(
                    "\n(The page is {total} characters long; only the first {limit} are shown.)"
                ),
            )
        } else {
            (page.to_owned(), String::new())
        };
        format!("Web page {url}:\n---\n{page}\n---{cut}\n\n{prompt}")
    }

    /// Streams the reply and keeps its text (at most the character limit).
    async fn ask(&self, request: &ModelRequest) -> Result<String, String> {
        let mut stream = self.provider.stream(request).await.map_err(|e| e.message)?;
        let mut answer = String::new();
        while let Some(event) = stream.next().await {
            match event.map_err(|e| e.message)? {
                StreamEvent::BlockComplete {
                    block: Block::Text { text },
                    ..
                } => {
                    if !answer.is_empty() {
                        answer.push('\n');
                    }
                    answer.push_str(&text);
                    if answer.chars().count() > self.limits.max_answer_chars {
                        answer = answer.chars().take(self.limits.max_answer_chars).collect();
                        break;
                    }
                }
                StreamEvent::MessageStop { .. } => break,
                _ => {}
            }
        }
        if answer.trim().is_empty() {
            return Err(format!("{} answered without text", self.model));
        }
        Ok(answer)
    }
}

#[async_trait]
impl PagePrompter for SmallModel {
    fn model(&self) -> &str {
        &self.model
    }

    async fn apply(&self, prompt: &str, url: &str, page: &str) -> Result<String, String> {
        let request = ModelRequest {
            model: self.model.clone(),
            system: SYSTEM.to_owned(),
            messages: vec![Message::user_text(self.message(prompt, url, page))],
            tools: ToolBlock::plain("[]".into()),
            max_tokens: self.limits.max_tokens,
        };
        tokio::time::timeout(self.limits.timeout, self.ask(&request))
            .await
            .map_err(|_| {
                format!(
                    "{} did not answer within {:?}",
                    self.model, self.limits.timeout
                )
            })?
    }
}

/// The small model named by the environment (`env` reads a variable).
pub fn small_model_from_env(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    SMALL_MODEL_ENV
        .iter()
        .find_map(|name| env(name).filter(|v| !v.trim().is_empty()))
        .map(|v| v.trim().to_owned())
}

/// The small model `home`'s Gatehouse settings or the session's Claude
/// Code `settings` name (see the module docs; the environment's,
/// `from_env`, comes first). A Gatehouse settings file that cannot be
/// read, or names the model with something other than a string, is an
/// error naming the file.
pub fn small_model_name(
    home: &Path,
    from_env: Option<String>,
    settings: &LoadedSettings,
) -> Result<Option<String>, String> {
    if from_env.is_some() {
        return Ok(from_env);
    }
    let own_path = gatehouse_settings_path(home);
    let own = read_settings_file(&own_path)?;
    match own.get(SMALL_MODEL_KEY) {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) if !name.trim().is_empty() => {
            return Ok(Some(name.trim().to_owned()));
        }
        Some(other) => {
            return Err(format!(
                "{}: {SMALL_MODEL_KEY} must be a model name (a string), not {other}",
                own_path.display()
            ));
        }
    }
    Ok(small_model_from_env(&|name| {
        settings.env_var(name).map(|v| v.value.clone())
    }))
}

/// The session's WebFetch: with the small model `home`'s and the
/// session's `settings` (or `from_env`) name, through `provider`; `None`
/// when there is none to configure (the pool's default WebFetch then
/// truncates). A settings problem is pushed to `warnings`.
pub fn web_fetch_tool(
    home: &Path,
    settings: &LoadedSettings,
    provider: &Arc<dyn Provider>,
    from_env: Option<String>,
    warnings: &mut Vec<String>,
) -> Option<Arc<dyn Tool>> {
    if provider.name() == "replay" {
        return None;
    }
    let model = match small_model_name(home, from_env, settings) {
        Ok(Some(model)) => model,
        Ok(None) => return None,
        Err(e) => {
            warnings.push(format!("WebFetch returns pages without a small model: {e}"));
            return None;
        }
    };
    let prompter = SmallModel::new(Arc::clone(provider), model, SmallModelLimits::default());
    match WebFetchTool::new(WebFetchConfig::default()) {
        Ok(tool) => Some(Typed::arc(tool.with_prompter(Arc::new(prompter)))),
        Err(e) => {
            warnings.push(format!("WebFetch is not available: {e}"));
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The Claude Code settings a session of an untrusted `project` reads.
    fn claude_settings(project: &Path, home: &Path) -> LoadedSettings {
        gatehouse_permissions::sources::load(&gatehouse_permissions::sources::SettingsLayout::new(
            project, home,
        ))
    }

    #[test]
    fn the_environment_then_gatehouse_then_claude_settings_name_the_model() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let h = home.path();
        let small_model_name = |h: &Path, from_env| {
            super::small_model_name(h, from_env, &claude_settings(project.path(), h))
        };
        assert_eq!(small_model_name(h, None).unwrap(), None);
        // An untrusted project's env names nothing.
        write(
            &project.path().join(".claude/settings.json"),
            r#"{"env": {"ANTHROPIC_SMALL_FAST_MODEL": "from-project"}}"#,
        );
        assert_eq!(small_model_name(h, None).unwrap(), None);
        write(
            &h.join(".claude/settings.json"),
            r#"{"env": {"ANTHROPIC_SMALL_FAST_MODEL": "from-claude"}}"#,
        );
        assert_eq!(
            small_model_name(h, None).unwrap().as_deref(),
            Some("from-claude")
        );
        write(
            &h.join(".gatehouse/settings.json"),
            r#"{"webSearch": {"provider": "brave"}, "smallFastModel": "from-gatehouse"}"#,
        );
        assert_eq!(
            small_model_name(h, None).unwrap().as_deref(),
            Some("from-gatehouse")
        );
        assert_eq!(
            small_model_name(h, Some("from-env".into()))
                .unwrap()
                .as_deref(),
            Some("from-env")
        );
        // The newer name first, empty values ignored.
        let env = |name: &str| match name {
            "ANTHROPIC_DEFAULT_HAIKU_MODEL" => Some(" ".to_owned()),
            "ANTHROPIC_SMALL_FAST_MODEL" => Some("older".to_owned()),
            _ => None,
        };
        assert_eq!(small_model_from_env(&env).as_deref(), Some("older"));
        let both = |name: &str| Some(format!("{name}-value"));
        assert_eq!(
            small_model_from_env(&both).as_deref(),
            Some("ANTHROPIC_DEFAULT_HAIKU_MODEL-value")
        );
    }

    #[test]
    fn a_bad_setting_is_an_error_naming_the_file() {
        let home = tempfile::tempdir().unwrap();
        let none = LoadedSettings::default();
        let small_model_name = |h: &Path, from_env| super::small_model_name(h, from_env, &none);
        write(
            &home.path().join(".gatehouse/settings.json"),
            r#"{"smallFastModel": 3}"#,
        );
        let e = small_model_name(home.path(), None).unwrap_err();
        assert!(
            e.contains(".gatehouse/settings.json") && e.contains("smallFastModel"),
            "{e}"
        );
        write(&home.path().join(".gatehouse/settings.json"), "{not json");
        let e = small_model_name(home.path(), None).unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
    }
}
