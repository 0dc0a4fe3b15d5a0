//! Session rules in SQLite: the [`SessionRuleStore`] the permission engine's
//! "allow for this session" grants go through, so a resumed session has
//! them again.

use std::sync::{Arc, Mutex};

use gatehouse_permissions::rule::RuleKind;
use gatehouse_permissions::session::{SessionRule, SessionRuleError, SessionRuleStore};
use gatehouse_store::Store;

/// Session rules kept in the `session_rules` table.
#[derive(Debug, Clone)]
pub struct SqliteSessionRuleStore {
    store: Arc<Mutex<Store>>,
}

impl SqliteSessionRuleStore {
    /// Rules stored through `store`.
    pub fn new(store: Arc<Mutex<Store>>) -> Self {
        Self { store }
    }
}

/// A stored rule kind (`allow`, `ask`, `deny`) as the engine's.
pub(crate) fn kind_from_text(text: &str) -> Option<RuleKind> {
    match text {
        "allow" => Some(RuleKind::Allow),
        "ask" => Some(RuleKind::Ask),
        "deny" => Some(RuleKind::Deny),
        _ => None,
    }
}

impl SessionRuleStore for SqliteSessionRuleStore {
    fn load(&self, session_id: &str) -> Result<Vec<SessionRule>, SessionRuleError> {
        let store = self.store.lock().unwrap_or_else(|p| p.into_inner());
        let rows = store
            .session_rules(session_id)
            .map_err(|e| SessionRuleError::Store(e.to_string()))?;
        rows.into_iter()
            .map(|row| {
                // The table's CHECK allows only the three kinds; anything
                // else means a damaged database: say so rather than guess.
                let kind = kind_from_text(&row.kind).ok_or_else(|| {
                    SessionRuleError::Store(format!(
                        "session {session_id}: stored rule {:?} has unknown kind {:?}",
                        row.rule, row.kind
                    ))
                })?;
                Ok(SessionRule {
                    kind,
                    rule: row.rule,
                })
            })
            .collect()
    }

    fn append(&self, session_id: &str, rule: &SessionRule) -> Result<(), SessionRuleError> {
        let store = self.store.lock().unwrap_or_else(|p| p.into_inner());
        store
            .add_session_rule(session_id, rule.kind.key(), &rule.rule)
            .map_err(|e| SessionRuleError::Store(e.to_string()))
    }
}
