//! Stored tool calls, for rule replay and the rule editor's counts.
//!
//! A call is a `tool_queued` event (tool name and input) joined with the
//! `permission_decided` event of the same `tool_use_id` (the decision made
//! then), in the mode the session was in at that moment (the session's
//! starting mode, updated by `mode_changed` events) and with the session
//! rules granted before it (`session_rules_added`). Calls are streamed to a
//! callback straight from one SQLite statement: memory stays bounded by the
//! calls of one session that are queued and not yet decided.

use std::collections::HashMap;
use std::sync::Arc;

use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionMode};
use rusqlite::params;
use serde::Serialize;
use serde_json::Value;

use crate::{Store, StoreError};

/// Which stored calls to read (every filter optional; all must hold).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFilter {
    /// Only sessions of this project folder (as stored: its canonical path).
    pub project_path: Option<String>,
    /// Only this session.
    pub session_id: Option<String>,
    /// Only calls queued at or after this time (ms since the Unix epoch).
    pub since_ms: Option<i64>,
    /// Only calls queued before this time (ms since the Unix epoch).
    pub until_ms: Option<i64>,
}

/// One stored tool call with the decision it got.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredCall {
    /// The session.
    pub session_id: String,
    /// Position of its `tool_queued` event in the session (from 1): where
    /// the session browser opens it.
    pub seq: i64,
    /// When it was queued (ms since the Unix epoch).
    pub ts_ms: i64,
    /// The session's project folder.
    pub project_path: String,
    /// The permission mode in force when it was decided.
    pub mode: PermissionMode,
    /// The model's id for the call.
    pub tool_use_id: String,
    /// The tool name as the model wrote it.
    pub tool_name: String,
    /// The input as the model wrote it.
    pub input: Value,
    /// The decision the permission engine made: `ask` when the stored
    /// decision is a user's answer (the engine asked), else the stored one.
    /// The first `permission_decided` of a call counts.
    pub decision: PermissionBehavior,
    /// The stored reason (absent when this build cannot read it).
    pub reason: Option<DecisionReason>,
    /// Rules granted "for this session" before the call (allow rules).
    #[serde(skip)]
    pub session_rules: Arc<Vec<String>>,
}

/// What [`Store::for_each_stored_call`] read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CallScan {
    /// Calls handed to the callback.
    pub calls: u64,
    /// Events that could not be read (written by a newer Gatehouse, or
    /// damaged): a `permission_decided` whose decision is unknown, a
    /// `tool_queued` whose input is not JSON, a mode this build lacks.
    pub unreadable: u64,
}

/// A call queued and not yet decided.
struct Queued {
    seq: i64,
    ts_ms: i64,
    tool_name: String,
    input: Value,
    mode: PermissionMode,
    session_rules: Arc<Vec<String>>,
}

/// The per-session state while scanning.
struct SessionScan {
    id: String,
    project_path: String,
    mode: Option<PermissionMode>,
    session_rules: Arc<Vec<String>>,
    queued: HashMap<String, Queued>,
}

fn parse_mode(text: &str) -> Option<PermissionMode> {
    serde_json::from_value(Value::String(text.to_owned())).ok()
}

impl Store {
    /// Calls `on_call` with every stored call matching `filter` that got a
    /// permission decision, session by session in event order. Calls never
    /// decided (input rejected before the permission check, interrupted)
    /// are not included. Returns how many calls were read and how many
    /// events were unreadable.
    pub fn for_each_stored_call(
        &self,
        filter: &CallFilter,
        mut on_call: impl FnMut(StoredCall),
    ) -> Result<CallScan, StoreError> {
        // JSON fields are extracted by SQLite so only the input is parsed
        // here. `since` filters sessions by their last activity (a session
        // idle since before it has no call after it) and queued calls by
        // time; decisions and mode changes are read unfiltered so a call's
        // mode and decision are right even when set before `since`.
        let mut stmt = self
            .conn
            .prepare(
                "SELECT e.session_id, e.seq, e.ts_ms, e.type, e.tool_use_id, e.tool_name,
                        s.project_path, s.mode,
                        CASE e.type
                            WHEN 'tool_queued' THEN json_extract(e.body, '$.input')
                            WHEN 'permission_decided' THEN json_extract(e.body, '$.decision')
                            WHEN 'mode_changed' THEN json_extract(e.body, '$.mode')
                            WHEN 'session_rules_added' THEN json_extract(e.body, '$.rules')
                        END,
                        CASE e.type WHEN 'permission_decided'
                            THEN json_extract(e.body, '$.reason') END
                 FROM session_events e JOIN sessions s ON s.id = e.session_id
                 WHERE e.type IN ('tool_queued', 'permission_decided', 'mode_changed',
                                  'session_rules_added')
                   AND (?1 IS NULL OR s.project_path = ?1)
                   AND (?2 IS NULL OR e.session_id = ?2)
                   AND (?3 IS NULL OR s.updated_at_ms >= ?3)
                   AND (e.type != 'tool_queued' OR ?3 IS NULL OR e.ts_ms >= ?3)
                   AND (e.type != 'tool_queued' OR ?4 IS NULL OR e.ts_ms < ?4)
                 ORDER BY e.session_id, e.seq",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let mut rows = stmt
            .query(params![
                filter.project_path,
                filter.session_id,
                filter.since_ms,
                filter.until_ms
            ])
            .map_err(|e| self.sqlite_error(e))?;
        let mut scan = CallScan::default();
        let mut session: Option<SessionScan> = None;
        while let Some(row) = rows.next().map_err(|e| self.sqlite_error(e))? {
            let get = |e| self.sqlite_error(e);
            let session_id: String = row.get(0).map_err(get)?;
            let seq: i64 = row.get(1).map_err(get)?;
            let ts_ms: i64 = row.get(2).map_err(get)?;
            let kind: String = row.get(3).map_err(get)?;
            let tool_use_id: Option<String> = row.get(4).map_err(get)?;
            let tool_name: Option<String> = row.get(5).map_err(get)?;
            let field: Option<String> = row.get(8).map_err(get)?;
            if session.as_ref().is_none_or(|s| s.id != session_id) {
                let project_path: String = row.get(6).map_err(get)?;
                let mode: String = row.get(7).map_err(get)?;
                session = Some(SessionScan {
                    id: session_id,
                    project_path,
                    mode: parse_mode(&mode),
                    session_rules: Arc::new(Vec::new()),
                    queued: HashMap::new(),
                });
            }
            let Some(state) = session.as_mut() else {
                continue;
            };
            match kind.as_str() {
                "mode_changed" => state.mode = field.as_deref().and_then(parse_mode),
                "session_rules_added" => {
                    let added: Vec<String> = field
                        .as_deref()
                        .and_then(|f| serde_json::from_str(f).ok())
                        .unwrap_or_default();
                    let mut rules = state.session_rules.as_ref().clone();
                    rules.extend(added);
                    state.session_rules = Arc::new(rules);
                }
                "tool_queued" => {
                    let input = field.as_deref().map(serde_json::from_str::<Value>);
                    match (tool_use_id, tool_name, input, state.mode) {
                        (Some(id), Some(tool_name), Some(Ok(input)), Some(mode)) => {
                            state.queued.insert(
                                id,
                                Queued {
                                    seq,
                                    ts_ms,
                                    tool_name,
                                    input,
                                    mode,
                                    session_rules: Arc::clone(&state.session_rules),
                                },
                            );
                        }
                        _ => scan.unreadable += 1,
                    }
                }
                "permission_decided" => {
                    let Some(queued) = tool_use_id.as_ref().and_then(|id| state.queued.remove(id))
                    else {
                        // Decided but not queued in range (before `since`).
                        continue;
                    };
                    let decision = field.and_then(|d| {
                        serde_json::from_value::<PermissionBehavior>(Value::String(d)).ok()
                    });
                    let Some(decision) = decision else {
                        scan.unreadable += 1;
                        continue;
                    };
                    let reason: Option<String> = row.get(9).map_err(get)?;
                    let reason: Option<DecisionReason> =
                        reason.and_then(|r| serde_json::from_str(&r).ok());
                    // A headless run records the answer to a prompt in
                    // place of the engine's `ask`: the engine asked.
                    let decision = if matches!(reason, Some(DecisionReason::UserAnswer { .. })) {
                        PermissionBehavior::Ask
                    } else {
                        decision
                    };
                    scan.calls += 1;
                    on_call(StoredCall {
                        session_id: state.id.clone(),
                        seq: queued.seq,
                        ts_ms: queued.ts_ms,
                        project_path: state.project_path.clone(),
                        mode: queued.mode,
                        tool_use_id: tool_use_id.unwrap_or_default(),
                        tool_name: queued.tool_name,
                        input: queued.input,
                        decision,
                        reason,
                        session_rules: queued.session_rules,
                    });
                }
                _ => {}
            }
        }
        Ok(scan)
    }

    /// How many queued calls match `filter` (an upper bound of the calls
    /// [`Store::for_each_stored_call`] yields: undecided calls are counted
    /// too). Replay progress is shown against it.
    pub fn count_stored_calls(&self, filter: &CallFilter) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn
            .query_row(
                "SELECT COUNT(*) FROM session_events e JOIN sessions s ON s.id = e.session_id
                 WHERE e.type = 'tool_queued'
                   AND (?1 IS NULL OR s.project_path = ?1)
                   AND (?2 IS NULL OR e.session_id = ?2)
                   AND (?3 IS NULL OR e.ts_ms >= ?3)
                   AND (?4 IS NULL OR e.ts_ms < ?4)",
                params![
                    filter.project_path,
                    filter.session_id,
                    filter.since_ms,
                    filter.until_ms
                ],
                |r| r.get(0),
            )
            .map_err(|e| self.sqlite_error(e))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The distinct names of MCP tools (`mcp__…`) in stored calls, of one
    /// project when given, sorted (tool-name completion in the rule editor).
    pub fn stored_mcp_tool_names(
        &self,
        project_path: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT DISTINCT e.tool_name FROM session_events e
                 JOIN sessions s ON s.id = e.session_id
                 WHERE e.type = 'tool_queued' AND e.tool_name LIKE 'mcp\\_\\_%' ESCAPE '\\'
                   AND (?1 IS NULL OR s.project_path = ?1)
                 ORDER BY 1 LIMIT 500",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![project_path], |r| r.get::<_, String>(0))
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Each skill the stored `Skill` calls of one project named (the
    /// input's `skill`, trimmed), with its latest call and how many there
    /// were, by name (the Skills panel's "last used").
    pub fn skill_uses(&self, project_path: &str) -> Result<Vec<SkillUse>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT trim(json_extract(e.body, '$.input.skill')) AS skill,
                        MAX(e.ts_ms), COUNT(*)
                 FROM session_events e
                 JOIN sessions s ON s.id = e.session_id
                 WHERE e.tool_name = 'Skill' AND e.type = 'tool_queued'
                   AND s.project_path = ?1
                   AND json_type(e.body, '$.input.skill') = 'text'
                 GROUP BY skill ORDER BY skill",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![project_path], |r| {
                Ok(SkillUse {
                    skill: r.get(0)?,
                    last_used_ms: r.get(1)?,
                    uses: u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// How many stored calls each rule decided since `since_ms` (ms since
    /// the Unix epoch), of one project when given: one entry per (rule
    /// text, source, settings file — and session, for session rules), most
    /// decisions first. The engine names a rule's file with its position
    /// (`path:line:column`); the count is per file, wherever the rule
    /// stood in it. Only decisions whose reason is a rule count (a mode,
    /// safety check or hook decided the others).
    pub fn rule_decision_counts(
        &self,
        since_ms: i64,
        project_path: Option<&str>,
    ) -> Result<Vec<RuleDecisionCount>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT json_extract(e.body, '$.reason.rule'),
                        json_extract(e.body, '$.reason.source'),
                        json_extract(e.body, '$.reason.file'),
                        json_extract(e.body, '$.decision'),
                        COUNT(*),
                        CASE json_extract(e.body, '$.reason.source')
                            WHEN 'session' THEN e.session_id END
                 FROM session_events e JOIN sessions s ON s.id = e.session_id
                 WHERE e.type = 'permission_decided'
                   AND e.ts_ms >= ?1
                   AND s.updated_at_ms >= ?1
                   AND (?2 IS NULL OR s.project_path = ?2)
                   AND json_extract(e.body, '$.reason.kind') = 'rule'
                 GROUP BY 1, 2, 3, 4, 6",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![since_ms, project_path], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            })
            .map_err(|e| self.sqlite_error(e))?;
        let mut counts: Vec<RuleDecisionCount> = Vec::new();
        for row in rows {
            let (rule, source, file, decision, n, session_id) =
                row.map_err(|e| self.sqlite_error(e))?;
            let n = u64::try_from(n).unwrap_or(0);
            let (Some(rule), Some(source)) = (rule, source) else {
                continue;
            };
            let file = file.map(|f| without_position(&f).to_owned());
            let entry = match counts.iter_mut().find(|c| {
                c.rule == rule && c.source == source && c.file == file && c.session_id == session_id
            }) {
                Some(entry) => entry,
                None => {
                    counts.push(RuleDecisionCount {
                        rule,
                        source,
                        file,
                        session_id,
                        total: 0,
                        allow: 0,
                        ask: 0,
                        deny: 0,
                    });
                    let last = counts.len() - 1;
                    &mut counts[last]
                }
            };
            entry.total += n;
            match decision.as_deref() {
                Some("allow") => entry.allow += n,
                Some("ask") => entry.ask += n,
                Some("deny") => entry.deny += n,
                _ => {}
            }
        }
        counts.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.rule.cmp(&b.rule)));
        Ok(counts)
    }
}

/// The stored uses of one skill (see [`Store::skill_uses`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillUse {
    /// The skill's name as the calls wrote it.
    pub skill: String,
    /// The latest call's time (ms since the Unix epoch).
    pub last_used_ms: i64,
    /// How many calls named it.
    pub uses: u64,
}

/// How many stored calls one rule decided (see
/// [`Store::rule_decision_counts`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleDecisionCount {
    /// The rule as written, e.g. `Bash(npm test:*)`.
    pub rule: String,
    /// Its source (`policy`, `flag`, `local`, `project`, `user`, `session`).
    pub source: String,
    /// The settings file it was read from, when it came from a file (its
    /// path alone, without the rule's line and column).
    pub file: Option<String>,
    /// The session, for a session rule (each session's rules count apart).
    pub session_id: Option<String>,
    /// Calls it decided.
    pub total: u64,
    /// … of which allowed.
    pub allow: u64,
    /// … of which asked.
    pub ask: u64,
    /// … of which denied.
    pub deny: u64,
}

/// `path` without a trailing `:line:column` (how a decision names the
/// position of its rule in a settings file).
fn without_position(file: &str) -> &str {
    let is_number = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mut parts = file.rsplitn(3, ':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(column), Some(line), Some(path))
            if is_number(column) && is_number(line) && !path.is_empty() =>
        {
            path
        }
        _ => file,
    }
}
