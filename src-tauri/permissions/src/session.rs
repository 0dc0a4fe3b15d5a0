//! Session rules ("allow for this session"): granted in the app, kept by a
//! store (SQLite in the app, behind [`SessionRuleStore`]) and restored when a
//! session is resumed.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::engine::PermissionEngine;
use crate::rule::{RuleKind, RuleParseError, parse_rule};

/// One session rule as stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionRule {
    /// Its list.
    pub kind: RuleKind,
    /// The rule text, e.g. `Bash(npm test)`.
    pub rule: String,
}

/// A failure of the store behind session rules.
#[derive(Debug, thiserror::Error)]
pub enum SessionRuleError {
    /// The rule does not parse; nothing was stored.
    #[error("invalid session rule: {0}")]
    InvalidRule(#[from] RuleParseError),
    /// The store failed.
    #[error("session rule store failed: {0}")]
    Store(String),
}

/// Where session rules persist. The app implements it over SQLite; tests
/// and the CLI use [`MemorySessionRuleStore`].
pub trait SessionRuleStore: Send + Sync {
    /// The rules of a session, in the order they were granted.
    fn load(&self, session_id: &str) -> Result<Vec<SessionRule>, SessionRuleError>;
    /// Appends a rule to a session.
    fn append(&self, session_id: &str, rule: &SessionRule) -> Result<(), SessionRuleError>;
}

/// An in-memory [`SessionRuleStore`].
#[derive(Debug, Default)]
pub struct MemorySessionRuleStore {
    sessions: Mutex<HashMap<String, Vec<SessionRule>>>,
}

impl SessionRuleStore for MemorySessionRuleStore {
    fn load(&self, session_id: &str) -> Result<Vec<SessionRule>, SessionRuleError> {
        let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        Ok(sessions.get(session_id).cloned().unwrap_or_default())
    }

    fn append(&self, session_id: &str, rule: &SessionRule) -> Result<(), SessionRuleError> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions
            .entry(session_id.to_string())
            .or_default()
            .push(rule.clone());
        Ok(())
    }
}

/// Grants a rule for a session: checks it parses, stores it, then adds it
/// to the engine (so a rule that cannot be stored is not in force either).
pub fn grant(
    engine: &PermissionEngine,
    store: &dyn SessionRuleStore,
    session_id: &str,
    kind: RuleKind,
    text: &str,
) -> Result<(), SessionRuleError> {
    parse_rule(text)?;
    store.append(
        session_id,
        &SessionRule {
            kind,
            rule: text.to_string(),
        },
    )?;
    engine.add_session_rule(kind, text)?;
    Ok(())
}

/// Restores a resumed session's rules into the engine. Rules that no longer
/// parse are returned (reported, not silently dropped).
pub fn restore(
    engine: &PermissionEngine,
    store: &dyn SessionRuleStore,
    session_id: &str,
) -> Result<Vec<RuleParseError>, SessionRuleError> {
    let mut errors = Vec::new();
    for rule in store.load(session_id)? {
        if let Err(e) = engine.add_session_rule(rule.kind, &rule.rule) {
            errors.push(e);
        }
    }
    Ok(errors)
}
