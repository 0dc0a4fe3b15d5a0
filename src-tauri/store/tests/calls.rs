//! Stored calls (tool_queued + permission_decided) streamed from a real
//! SQLite file, and the per-rule decision counts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionMode, RuleSource,
};
use gatehouse_store::{CallFilter, NewSession, Store, StoredCall};
use serde_json::json;

struct Writer<'a> {
    store: &'a mut Store,
    session: String,
    ts_ms: u64,
}

impl Writer<'_> {
    fn push(&mut self, body: EventBody) {
        self.store
            .append_event(&Event {
                session_id: self.session.clone(),
                ts_ms: self.ts_ms,
                body,
            })
            .unwrap();
    }

    fn call(
        &mut self,
        id: &str,
        command: &str,
        decision: PermissionBehavior,
        reason: DecisionReason,
    ) {
        self.push(EventBody::ToolQueued {
            tool_use_id: id.into(),
            name: "Bash".into(),
            input: json!({"command": command}),
            read_only: false,
        });
        self.push(EventBody::PermissionDecided {
            tool_use_id: id.into(),
            decision,
            reason,
            trace: Vec::new(),
        });
    }
}

fn session(store: &mut Store, id: &str, project: &str, mode: &str) {
    store
        .create_session(&NewSession {
            id: id.into(),
            project_path: project.into(),
            provider: "replay".into(),
            model: "m".into(),
            mode: mode.into(),
        })
        .unwrap();
}

fn rule(text: &str) -> DecisionReason {
    DecisionReason::Rule {
        rule: text.into(),
        source: RuleSource::Project,
        file: Some("/p/.claude/settings.json".into()),
    }
}

fn collect(store: &Store, filter: &CallFilter) -> Vec<StoredCall> {
    let mut calls = Vec::new();
    let scan = store
        .for_each_stored_call(filter, |c| calls.push(c))
        .unwrap();
    assert_eq!(scan.calls as usize, calls.len());
    calls
}

#[test]
fn calls_carry_their_decision_mode_and_session_rules() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    session(&mut store, "s1", "/p", "default");
    session(&mut store, "s2", "/q", "plan");
    {
        let mut w = Writer {
            store: &mut store,
            session: "s1".into(),
            ts_ms: 1_000,
        };
        w.call(
            "a",
            "npm test",
            PermissionBehavior::Allow,
            rule("Bash(npm test)"),
        );
        w.push(EventBody::ModeChanged {
            mode: PermissionMode::AcceptEdits,
        });
        w.push(EventBody::SessionRulesAdded {
            rules: vec!["Bash(make)".into()],
        });
        w.ts_ms = 5_000;
        w.call(
            "b",
            "make",
            PermissionBehavior::Deny,
            DecisionReason::UserAnswer {
                answer: "deny".into(),
            },
        );
        // Queued, never decided (input rejected): not a stored call.
        w.push(EventBody::ToolQueued {
            tool_use_id: "c".into(),
            name: "Bash".into(),
            input: json!({}),
            read_only: false,
        });
    }
    {
        let mut w = Writer {
            store: &mut store,
            session: "s2".into(),
            ts_ms: 2_000,
        };
        w.call(
            "d",
            "ls",
            PermissionBehavior::Allow,
            DecisionReason::Mode {
                mode: PermissionMode::Plan,
            },
        );
    }
    let all = collect(&store, &CallFilter::default());
    assert_eq!(all.len(), 3);
    let a = &all[0];
    assert_eq!((a.session_id.as_str(), a.tool_use_id.as_str()), ("s1", "a"));
    assert_eq!(a.seq, 1);
    assert_eq!(a.mode, PermissionMode::Default);
    assert_eq!(a.decision, PermissionBehavior::Allow);
    assert_eq!(a.input, json!({"command": "npm test"}));
    assert!(a.session_rules.is_empty());
    assert_eq!(a.project_path, "/p");
    let b = &all[1];
    assert_eq!(
        b.mode,
        PermissionMode::AcceptEdits,
        "mode_changed is followed"
    );
    assert_eq!(*b.session_rules, vec!["Bash(make)".to_string()]);
    assert_eq!(
        b.decision,
        PermissionBehavior::Ask,
        "a user's answer means the engine asked"
    );
    assert_eq!(all[2].mode, PermissionMode::Plan);

    let only_q = collect(
        &store,
        &CallFilter {
            project_path: Some("/q".into()),
            ..CallFilter::default()
        },
    );
    assert_eq!(only_q.len(), 1);
    assert_eq!(only_q[0].tool_use_id, "d");
    let recent = collect(
        &store,
        &CallFilter {
            since_ms: Some(3_000),
            ..CallFilter::default()
        },
    );
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0].tool_use_id, "b");
    assert_eq!(
        recent[0].mode,
        PermissionMode::AcceptEdits,
        "a mode change before `since` still counts"
    );
    let early = collect(
        &store,
        &CallFilter {
            until_ms: Some(3_000),
            session_id: Some("s1".into()),
            ..CallFilter::default()
        },
    );
    assert_eq!(early.len(), 1);
    assert_eq!(early[0].tool_use_id, "a");
}

#[test]
fn rule_counts_group_decisions_by_rule() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    session(&mut store, "s1", "/p", "default");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let day = 86_400_000;
    let mut w = Writer {
        store: &mut store,
        session: "s1".into(),
        ts_ms: now - 40 * day,
    };
    w.call(
        "old",
        "npm test",
        PermissionBehavior::Allow,
        rule("Bash(npm test)"),
    );
    w.ts_ms = now - day;
    w.call(
        "a",
        "npm test",
        PermissionBehavior::Allow,
        rule("Bash(npm test)"),
    );
    w.call(
        "b",
        "npm test",
        PermissionBehavior::Allow,
        rule("Bash(npm test)"),
    );
    w.call(
        "c",
        "rm -rf x",
        PermissionBehavior::Deny,
        rule("Bash(rm:*)"),
    );
    w.call(
        "d",
        "ls",
        PermissionBehavior::Allow,
        DecisionReason::Mode {
            mode: PermissionMode::Default,
        },
    );
    let since = (now - 30 * day) as i64;
    let counts = store.rule_decision_counts(since, None).unwrap();
    assert_eq!(counts.len(), 2, "{counts:?}");
    assert_eq!(counts[0].rule, "Bash(npm test)");
    assert_eq!(
        (counts[0].total, counts[0].allow),
        (2, 2),
        "the 40-day-old call is left out"
    );
    assert_eq!(counts[0].source, "project");
    assert_eq!(counts[0].file.as_deref(), Some("/p/.claude/settings.json"));
    assert_eq!((counts[1].rule.as_str(), counts[1].deny), ("Bash(rm:*)", 1));
    assert!(
        store
            .rule_decision_counts(since, Some("/elsewhere"))
            .unwrap()
            .is_empty()
    );
}
