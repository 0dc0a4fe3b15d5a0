//! The tool pool and permission resolver the CLI (and later the app) start
//! sessions with.
//!
//! The built-in tools and the permission engine are being written in other
//! crates; until they are merged, [`builtin_pool`] is empty and
//! [`FailClosedResolver`] stands in for the engine. Both are the single
//! places to swap at merge time.

use std::path::Path;
use std::sync::Arc;

use gatehouse_core::ToolPool;
use gatehouse_core::permission::{PermissionQuery, PermissionResolver, ToolPermissionVerdict};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, TraceOutcome, TraceStep,
};

/// The pool of built-in tools for a session in `project`.
///
/// MERGE: fill in with `gatehouse-tools`' Read, Grep, Glob, Edit, Bash
/// (through `gatehouse_core::Registry::assemble_pool`).
pub fn builtin_pool(_project: &Path, _resolver: &dyn PermissionResolver) -> Arc<ToolPool> {
    Arc::new(ToolPool::new(Vec::new()))
}

/// A stand-in for the permission engine that fails closed: a tool's own
/// deny or ask wins; read-only calls are allowed (in every mode but none
/// is needed for reads); in `plan` everything else is denied; in `bypassPermissions` everything else is allowed;
/// in `dontAsk` everything else is denied; otherwise everything else asks.
///
/// MERGE: replace with `gatehouse-permissions`' engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct FailClosedResolver {
    /// The permission mode.
    pub mode: PermissionMode,
}

impl FailClosedResolver {
    /// A resolver for `mode`.
    pub fn new(mode: PermissionMode) -> Self {
        Self { mode }
    }
}

fn decided(
    behavior: PermissionBehavior,
    reason: DecisionReason,
    detail: impl Into<String>,
) -> PermissionDecision {
    PermissionDecision {
        decision: behavior,
        reason,
        trace: vec![TraceStep {
            layer: "fail-closed stand-in resolver".into(),
            outcome: match behavior {
                PermissionBehavior::Allow => TraceOutcome::Allow,
                PermissionBehavior::Ask => TraceOutcome::Ask,
                PermissionBehavior::Deny => TraceOutcome::Deny,
            },
            detail: detail.into(),
        }],
    }
}

impl PermissionResolver for FailClosedResolver {
    fn is_blanket_denied(&self, _tool_name: &str) -> bool {
        false
    }

    fn decide(&self, query: &PermissionQuery<'_>) -> PermissionDecision {
        match query.tool_verdict {
            ToolPermissionVerdict::Deny { reason } => {
                return decided(
                    PermissionBehavior::Deny,
                    DecisionReason::ToolCheck {
                        message: reason.clone(),
                    },
                    "the tool refused the call",
                );
            }
            ToolPermissionVerdict::Ask { reason } => {
                return decided(
                    PermissionBehavior::Ask,
                    DecisionReason::ToolCheck {
                        message: reason.clone(),
                    },
                    "the tool asked for approval",
                );
            }
            ToolPermissionVerdict::Allow { .. } | ToolPermissionVerdict::Passthrough => {}
        }
        if query.requires_user_interaction {
            return decided(
                PermissionBehavior::Ask,
                DecisionReason::Default {
                    message: "this tool always needs a person's approval".into(),
                },
                "requires user interaction",
            );
        }
        if query.is_read_only && !query.is_destructive {
            return decided(
                PermissionBehavior::Allow,
                DecisionReason::Mode { mode: self.mode },
                "read-only call",
            );
        }
        match self.mode {
            PermissionMode::BypassPermissions => decided(
                PermissionBehavior::Allow,
                DecisionReason::Mode { mode: self.mode },
                "bypassPermissions mode",
            ),
            PermissionMode::DontAsk => decided(
                PermissionBehavior::Deny,
                DecisionReason::Mode { mode: self.mode },
                "dontAsk mode: what would ask is denied",
            ),
            PermissionMode::Plan => decided(
                PermissionBehavior::Deny,
                DecisionReason::Mode { mode: self.mode },
                "plan mode: only read-only calls run",
            ),
            PermissionMode::Default | PermissionMode::AcceptEdits => decided(
                PermissionBehavior::Ask,
                DecisionReason::Default {
                    message: "not read-only; no rules are loaded yet, so the user decides".into(),
                },
                "default: ask",
            ),
        }
    }
}

/// Answers every permission prompt the same way (headless runs:
/// `gatehouse-cli run --ask allow|deny`).
#[derive(Debug, Clone)]
pub struct StaticAsk {
    allow: bool,
}

impl StaticAsk {
    /// Allows every prompted call once.
    pub fn allow() -> Self {
        Self { allow: true }
    }

    /// Denies every prompted call, telling the model nobody could approve it.
    pub fn deny() -> Self {
        Self { allow: false }
    }
}

#[async_trait::async_trait]
impl gatehouse_core::ask::AskHandler for StaticAsk {
    async fn ask(
        &self,
        _request: gatehouse_core::ask::AskRequest,
    ) -> gatehouse_core::ask::AskAnswer {
        if self.allow {
            gatehouse_core::ask::AskAnswer::AllowOnce
        } else {
            gatehouse_core::ask::AskAnswer::Deny {
                feedback: Some(
                    "This is a headless run and nobody can approve the call (--ask deny).".into(),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn query<'a>(
        read_only: bool,
        ui: bool,
        verdict: &'a ToolPermissionVerdict,
        input: &'a serde_json::Value,
    ) -> PermissionQuery<'a> {
        PermissionQuery {
            tool_name: "T",
            input,
            subject: None,
            is_read_only: read_only,
            is_destructive: false,
            requires_user_interaction: ui,
            tool_verdict: verdict,
        }
    }

    #[test]
    fn the_stand_in_resolver_fails_closed() {
        use PermissionBehavior::{Allow, Ask, Deny};
        let input = json!({});
        let pass = ToolPermissionVerdict::Passthrough;
        let deny = ToolPermissionVerdict::Deny {
            reason: "no".into(),
        };
        let cases = [
            (PermissionMode::Default, true, false, &pass, Allow),
            (PermissionMode::Default, false, false, &pass, Ask),
            (PermissionMode::AcceptEdits, false, false, &pass, Ask),
            (PermissionMode::Plan, false, false, &pass, Deny),
            (PermissionMode::Plan, true, false, &pass, Allow),
            (PermissionMode::DontAsk, false, false, &pass, Deny),
            (
                PermissionMode::BypassPermissions,
                false,
                false,
                &pass,
                Allow,
            ),
            (PermissionMode::BypassPermissions, false, true, &pass, Ask),
            (PermissionMode::BypassPermissions, true, false, &deny, Deny),
        ];
        for (mode, read_only, ui, verdict, expected) in cases {
            let d = FailClosedResolver::new(mode).decide(&query(read_only, ui, verdict, &input));
            assert_eq!(
                d.decision, expected,
                "{mode:?} read_only={read_only} ui={ui}"
            );
            assert_eq!(d.trace.len(), 1);
        }
        assert!(!FailClosedResolver::default().is_blanket_denied("Bash"));
    }
}
