//! Permission prompts a person answers (SPEC §5, issue 9): the engine's
//! `ask` becomes a `permission_requested` event carrying the reason, the
//! trace, rule suggestions and a diff preview; the call waits until a front
//! end answers with `answer_permission`.
//!
//! * allow once — the call runs;
//! * allow for this session — the suggested rules become session rules
//!   (stored in SQLite first, then added to the engine; restored on
//!   resume), and the call runs;
//! * always allow — the rules the user kept are written into the settings
//!   file picked (local, project or user; atomic, formatting kept), the
//!   settings are reloaded, and the call runs. Saving a rule into the
//!   project's own files is an act of trust: the project is recorded as
//!   trusted (in SQLite, as the "Trust this project?" answer is), so the
//!   rule applies now and in the project's next sessions;
//! * deny — the call is refused and the user's feedback reaches the model
//!   in the tool_result.
//!
//! An interrupt drops the waiting call; the prompt is then withdrawn and
//! reported answered with a deny.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use gatehouse_agent::EngineSetup;
use gatehouse_core::ask::{AskAnswer, AskHandler, AskRequest};
use gatehouse_core::events::Emitter;
use gatehouse_permissions::PermissionEngine;
use gatehouse_permissions::rule::RuleKind;
use gatehouse_permissions::session::{SessionRuleStore, grant};
use gatehouse_permissions::suggest::{absolute_rules, suggest_rules_with_home};
use gatehouse_permissions::writeback::add_rule;
use gatehouse_protocol::event::{EventBody, SessionErrorKind};
use gatehouse_protocol::permission::RuleSource;
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_store::Store;
use tokio::sync::oneshot;

use crate::interaction::PendingInteractions;

/// What an answer may change: the session's engine, its session rules and
/// the settings files the engine was loaded from.
pub struct SessionPermissions {
    /// The session's engine.
    pub engine: Arc<PermissionEngine>,
    /// Where session rules persist.
    pub rules: Arc<dyn SessionRuleStore>,
    /// The session.
    pub session_id: String,
    /// Where the engine's settings come from (reloaded after "always allow").
    pub setup: EngineSetup,
    /// Where the project's trust is recorded when "always allow" saves a
    /// rule into the project's own settings files (`None`: not recorded,
    /// the rule still applies for this session).
    pub store: Option<Arc<Mutex<Store>>>,
}

impl std::fmt::Debug for SessionPermissions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionPermissions")
            .field("session_id", &self.session_id)
            .field("setup", &self.setup)
            .finish_non_exhaustive()
    }
}

impl SessionPermissions {
    /// The settings file "always allow" writes to for `destination`.
    pub fn settings_file(&self, destination: RuleSource) -> Result<PathBuf, String> {
        match destination {
            RuleSource::Local | RuleSource::Project | RuleSource::User => destination
                .settings_file(&self.setup.project, &self.setup.home)
                .ok_or_else(|| format!("the {destination:?} source has no settings file")),
            other => Err(format!(
                "rules cannot be written to the {other:?} source; pick local, project or user settings"
            )),
        }
    }

    /// Adds `rules` as allow rules of the session (stored in SQLite, on a
    /// blocking thread); returns those granted and the errors.
    async fn grant_all(&self, rules: &[String]) -> (Vec<String>, Vec<String>) {
        let engine = Arc::clone(&self.engine);
        let store = Arc::clone(&self.rules);
        let session_id = self.session_id.clone();
        let rules = rules.to_vec();
        let job = move || {
            let mut granted = Vec::new();
            let mut errors = Vec::new();
            for rule in rules {
                match grant(&engine, store.as_ref(), &session_id, RuleKind::Allow, &rule) {
                    Ok(()) => granted.push(rule),
                    Err(e) => errors.push(format!("session rule {rule:?} was not added: {e}")),
                }
            }
            (granted, errors)
        };
        tokio::task::spawn_blocking(job).await.unwrap_or_else(|e| {
            (
                Vec::new(),
                vec![format!("\"allow for this session\" failed: {e}")],
            )
        })
    }
}

/// What "always allow" needs on the blocking thread it runs on.
struct AlwaysAllow {
    engine: Arc<PermissionEngine>,
    setup: EngineSetup,
    store: Option<Arc<Mutex<Store>>>,
    trusted: Arc<AtomicBool>,
}

impl AlwaysAllow {
    /// Writes `rules` into `file`; a rule saved into the project's own files
    /// (`project_scoped`) records the project as trusted; then reloads the
    /// engine's settings (with the trust now in force). Returns the errors.
    fn run(self, file: &Path, rules: &[String], project_scoped: bool) -> Vec<String> {
        let mut errors = Vec::new();
        let mut written = 0;
        for rule in rules {
            match add_rule(file, RuleKind::Allow, rule) {
                // Already there counts: the rule is in the file.
                Ok(_) => written += 1,
                Err(e) => errors.push(format!(
                    "rule {rule:?} was not written to {}: {e}",
                    file.display()
                )),
            }
        }
        if project_scoped && written > 0 && !self.trusted.load(Ordering::SeqCst) {
            match self.record_trust() {
                Ok(()) => self.trusted.store(true, Ordering::SeqCst),
                Err(e) => errors.push(format!(
                    "the rule was saved in {}, but the project {} could not be recorded as \
                     trusted, so its allow rules do not apply yet: {e}",
                    file.display(),
                    self.setup.project.display()
                )),
            }
        }
        let mut setup = self.setup.clone();
        setup.trust_project = self.trusted.load(Ordering::SeqCst);
        self.engine
            .replace_settings(gatehouse_agent::load_settings(&setup));
        errors
    }

    /// Marks the project trusted in the store (adding it when a session
    /// ran in a folder never opened as a project).
    fn record_trust(&self) -> Result<(), String> {
        let Some(store) = &self.store else {
            // No store to record it in: trusted for this session only.
            return Ok(());
        };
        let store = store.lock().unwrap_or_else(|p| p.into_inner());
        let path = self.setup.project.to_string_lossy();
        let project = match store.project_by_path(&path).map_err(|e| e.to_string())? {
            Some(p) => p,
            None => store
                .add_project(&self.setup.project)
                .map_err(|e| e.to_string())?,
        };
        if project.trusted_at_ms.is_none() {
            store
                .set_project_trust(project.id, true)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

type Pending = oneshot::Sender<PermissionAnswer>;

/// The [`AskHandler`] of a session with a person in front of it.
pub struct InteractiveAsk {
    emitter: Emitter,
    permissions: SessionPermissions,
    pending: Mutex<HashMap<String, Pending>>,
    /// Questions and plans waiting for a reply (AskUserQuestion,
    /// ExitPlanMode): shown instead of a permission prompt.
    interactions: PendingInteractions,
    /// Whether the project's allow rules apply: as the session started,
    /// until an "always allow" into the project's files trusts it.
    trusted: Arc<AtomicBool>,
}

impl std::fmt::Debug for InteractiveAsk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InteractiveAsk")
            .field("permissions", &self.permissions)
            .field("pending", &self.pending_ids())
            .finish_non_exhaustive()
    }
}

impl InteractiveAsk {
    /// Prompts emitted through `emitter`, answers applied to `permissions`.
    pub fn new(emitter: Emitter, permissions: SessionPermissions) -> Self {
        let trusted = Arc::new(AtomicBool::new(permissions.setup.trust_project));
        Self {
            emitter,
            permissions,
            pending: Mutex::new(HashMap::new()),
            interactions: PendingInteractions::default(),
            trusted,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The calls waiting for an answer.
    pub fn pending_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.pending().keys().cloned().collect();
        ids.sort();
        ids
    }

    /// The calls waiting for a reply to a question or a plan.
    pub fn pending_interactions(&self) -> Vec<String> {
        self.interactions.pending_ids()
    }

    /// Delivers the user's reply to the question or plan of call
    /// `tool_use_id`; fails, leaving it open, when nothing waits or the
    /// reply does not fit what was asked.
    pub fn answer_interaction(
        &self,
        tool_use_id: &str,
        reply: gatehouse_protocol::interaction::InteractionReply,
    ) -> Result<(), String> {
        self.interactions
            .answer(&self.permissions.session_id, tool_use_id, reply)
    }

    /// Delivers the user's answer for call `tool_use_id`. Fails, leaving the
    /// prompt open, when no such prompt waits or the answer is invalid (an
    /// "always allow" without rules or to a source that has no file).
    pub fn answer(&self, tool_use_id: &str, answer: PermissionAnswer) -> Result<(), String> {
        if let PermissionAnswer::AlwaysAllow { rules, destination } = &answer {
            self.permissions.settings_file(*destination)?;
            if rules.is_empty() {
                return Err("\"always allow\" needs at least one rule".into());
            }
            for rule in rules {
                gatehouse_permissions::rule::parse_rule(rule)
                    .map_err(|e| format!("rule {rule:?} cannot be saved: {e}"))?;
            }
        }
        let pending = self.pending().remove(tool_use_id).ok_or_else(|| {
            format!(
                "no permission prompt is waiting for call {tool_use_id} in session {}",
                self.permissions.session_id
            )
        })?;
        pending.send(answer).map_err(|_| {
            format!("call {tool_use_id} stopped waiting for an answer (it was interrupted)")
        })
    }

    fn report_errors(&self, errors: Vec<String>) {
        for message in errors {
            self.emitter.emit(EventBody::SessionError {
                kind: SessionErrorKind::Storage,
                message,
                recoverable: true,
            });
        }
    }

    /// Applies an answer's lasting effects and turns it into the pipeline's.
    /// Files and SQLite are written on a blocking thread, never on the
    /// runtime's.
    async fn settle(&self, answer: PermissionAnswer, suggestions: &[String]) -> AskAnswer {
        match answer {
            PermissionAnswer::AllowOnce => AskAnswer::AllowOnce,
            PermissionAnswer::AllowForSession => {
                let (granted, errors) = self.permissions.grant_all(suggestions).await;
                if !granted.is_empty() {
                    self.emitter
                        .emit(EventBody::SessionRulesAdded { rules: granted });
                }
                self.report_errors(errors);
                AskAnswer::AllowForSession
            }
            PermissionAnswer::AlwaysAllow { rules, destination } => {
                let errors = match self.permissions.settings_file(destination) {
                    Ok(file) => {
                        let job = AlwaysAllow {
                            engine: Arc::clone(&self.permissions.engine),
                            setup: self.permissions.setup.clone(),
                            store: self.permissions.store.clone(),
                            trusted: Arc::clone(&self.trusted),
                        };
                        let project_scoped =
                            matches!(destination, RuleSource::Local | RuleSource::Project);
                        tokio::task::spawn_blocking(move || job.run(&file, &rules, project_scoped))
                            .await
                            .unwrap_or_else(|e| vec![format!("\"always allow\" failed: {e}")])
                    }
                    Err(e) => vec![e],
                };
                self.report_errors(errors);
                AskAnswer::AllowOnce
            }
            PermissionAnswer::Deny { feedback } => AskAnswer::Deny {
                feedback: feedback.filter(|f| !f.trim().is_empty()),
            },
        }
    }
}

/// Withdraws a prompt whose call stopped waiting (an interrupt dropped it).
struct Withdraw<'a> {
    ask: &'a InteractiveAsk,
    tool_use_id: String,
    armed: bool,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if self.ask.pending().remove(&self.tool_use_id).is_some() {
            self.ask.emitter.emit(EventBody::PermissionAnswered {
                tool_use_id: self.tool_use_id.clone(),
                answer: PermissionAnswer::Deny {
                    feedback: Some("The session was interrupted before the user answered.".into()),
                },
            });
        }
    }
}

#[async_trait]
impl AskHandler for InteractiveAsk {
    async fn ask(&self, request: AskRequest) -> AskAnswer {
        if let Some(interaction) = request.interaction.clone() {
            return self.interactions.ask(request, interaction).await;
        }
        // Both are blocking: suggestions analyse a shell command (a parse
        // may take up to its deadline), a preview reads the file.
        let (tool, input) = (request.tool_name.clone(), request.input.clone());
        let setup = &self.permissions.setup;
        let (project, home) = (setup.project.clone(), setup.home.clone());
        let (suggestions, user_suggestions, preview) = tokio::task::spawn_blocking(move || {
            let suggestions = suggest_rules_with_home(&tool, &input, &project, Some(&home));
            // The user's file is read in every project: relative paths there
            // would name a different file in each.
            let user_suggestions = absolute_rules(&suggestions, &project);
            (
                suggestions,
                user_suggestions,
                crate::preview::preview(&tool, &input),
            )
        })
        .await
        .unwrap_or_default();
        let (tx, rx) = oneshot::channel();
        self.pending().insert(request.tool_use_id.clone(), tx);
        let mut withdraw = Withdraw {
            ask: self,
            tool_use_id: request.tool_use_id.clone(),
            armed: true,
        };
        let web_host = (request.tool_name == gatehouse_core::names::WEB_FETCH)
            .then(|| request.input.get("url").and_then(|u| u.as_str()))
            .flatten()
            .and_then(gatehouse_permissions::domain::url_host);
        self.emitter.emit(EventBody::PermissionRequested {
            tool_use_id: request.tool_use_id.clone(),
            tool_name: request.tool_name,
            input: request.input,
            reason: request.decision.reason,
            trace: request.decision.trace,
            suggestions: suggestions.clone(),
            user_suggestions,
            preview,
            agent: request.agent,
            web_host,
        });
        let answer = rx.await;
        withdraw.armed = false;
        let Ok(answer) = answer else {
            // The sender went away without an answer: fail closed.
            return AskAnswer::Deny {
                feedback: Some("The permission prompt was closed without an answer.".into()),
            };
        };
        self.emitter.emit(EventBody::PermissionAnswered {
            tool_use_id: request.tool_use_id,
            answer: answer.clone(),
        });
        self.settle(answer, &suggestions).await
    }
}
