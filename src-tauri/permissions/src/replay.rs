//! Replay ("what would change"): re-decide stored tool calls with a rule
//! set — typically one with unsaved edits — using the same engine as a live
//! session, and count how the decisions change (allow → ask, ask → allow,
//! allow → deny, …).
//!
//! The calls come from the caller (the store's `for_each_stored_call` in
//! the CLI and the app), so this module knows nothing of SQLite: a
//! [`ReplayReport`] is generic over the caller's call type and keeps the
//! calls whose decision changed.
//!
//! What a replay cannot reproduce, and so leaves out: PreToolUse hooks (a
//! stored decision never includes a hook's verdict — hooks run after the
//! engine), the Bash tool's working directory after a `cd` in an earlier
//! call (calls are decided in the project folder), and directories added
//! during the session with `/add-dir`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode,
};
use serde::Serialize;
use serde_json::Value;

use crate::engine::{EngineContext, PermissionEngine};
use crate::rule::RuleKind;
use crate::settings::SettingsError;
use crate::sources::{LoadedSettings, SettingsLayout, load_with_edits};

/// The rule set calls are re-decided with: the settings files of each
/// call's project (managed policy, flag files, local, project, user), with
/// unsaved edits in place of files on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayRules {
    /// The home directory (user settings, `~`).
    pub home_dir: PathBuf,
    /// The managed policy file, if one is read.
    pub managed_file: Option<PathBuf>,
    /// The managed policy drop-in folder, if one is read.
    pub managed_dropin_dir: Option<PathBuf>,
    /// Extra settings files (the flag source), as `check --settings`.
    pub settings_files: Vec<PathBuf>,
    /// Unsaved edits: the text to read in place of a settings file (any
    /// source; the file need not exist yet).
    pub edits: HashMap<PathBuf, String>,
    /// Projects whose own allow rules apply (trusted); every other
    /// project contributes only its deny and ask rules.
    pub trusted_projects: Vec<PathBuf>,
}

/// One call to re-decide.
#[derive(Debug, Clone, Copy)]
pub struct ReplayCall<'a> {
    /// The project folder of its session (the working directory).
    pub project_dir: &'a Path,
    /// The mode in force when it was decided.
    pub mode: PermissionMode,
    /// The tool name as the model wrote it (tools that no longer exist are
    /// decided like any unknown tool).
    pub tool_name: &'a str,
    /// The input as the model wrote it.
    pub input: &'a Value,
    /// Rules granted "for this session" before the call (allow rules).
    pub session_rules: &'a [String],
    /// The decision it got when it ran.
    pub original: PermissionBehavior,
}

/// Cached engines: building one reads and indexes every settings file.
const MAX_CACHED_ENGINES: usize = 256;

/// Re-decides calls; keeps one engine per (project, session rules).
#[derive(Debug)]
pub struct Replayer {
    rules: ReplayRules,
    settings: HashMap<PathBuf, LoadedSettings>,
    engines: HashMap<(PathBuf, Vec<String>), EngineSlot>,
}

impl Replayer {
    /// A replayer deciding with `rules`.
    pub fn new(rules: ReplayRules) -> Self {
        Replayer {
            rules,
            settings: HashMap::new(),
            engines: HashMap::new(),
        }
    }

    /// The settings of `project_dir` under the replay's rules (loaded once).
    pub fn settings_for(&mut self, project_dir: &Path) -> &LoadedSettings {
        let rules = &self.rules;
        self.settings
            .entry(project_dir.to_path_buf())
            .or_insert_with(|| {
                let layout = SettingsLayout {
                    project_dir: project_dir.to_path_buf(),
                    home_dir: rules.home_dir.clone(),
                    managed_file: rules.managed_file.clone(),
                    managed_dropin_dir: rules.managed_dropin_dir.clone(),
                    flag_files: rules.settings_files.clone(),
                    flag_rules: Vec::new(),
                    project_trusted: rules.trusted_projects.iter().any(|p| p == project_dir),
                };
                load_with_edits(&layout, &rules.edits)
            })
    }

    /// Every settings problem met so far, each once.
    pub fn settings_errors(&self) -> Vec<SettingsError> {
        let mut errors: Vec<SettingsError> = Vec::new();
        for settings in self.settings.values() {
            for e in &settings.errors {
                if !errors.contains(e) {
                    errors.push(e.clone());
                }
            }
        }
        errors
    }

    /// The decision the rules give `call` now.
    pub fn decide(&mut self, call: &ReplayCall<'_>) -> PermissionDecision {
        let key = (call.project_dir.to_path_buf(), call.session_rules.to_vec());
        if !self.engines.contains_key(&key) {
            if self.engines.len() >= MAX_CACHED_ENGINES {
                self.engines.clear();
            }
            let settings = self.settings_for(call.project_dir).clone();
            let engine = PermissionEngine::new(
                EngineContext {
                    cwd: call.project_dir.to_path_buf(),
                    home: self.rules.home_dir.clone(),
                    additional_dirs: Vec::new(),
                    mode: call.mode,
                },
                settings,
            );
            for rule in call.session_rules {
                // A stored session rule that no longer parses is left out:
                // leaving out an allow rule can only make a decision stricter.
                let _ = engine.add_session_rule(RuleKind::Allow, rule);
            }
            self.engines.insert(
                key.clone(),
                EngineSlot {
                    engine,
                    decided: HashMap::new(),
                },
            );
        }
        let Some(slot) = self.engines.get_mut(&key) else {
            // Unreachable (inserted above); fail closed all the same.
            return PermissionDecision {
                decision: PermissionBehavior::Ask,
                reason: DecisionReason::Default {
                    message: "replay: no engine for the call".into(),
                },
                trace: Vec::new(),
            };
        };
        // Agents repeat themselves (`git status`, `npm test`, the same
        // files): the same call under the same rules gets the same decision.
        let call_key = format!("{:?}\0{}\0{}", call.mode, call.tool_name, call.input);
        if let Some(decision) = slot.decided.get(&call_key) {
            return decision.clone();
        }
        if slot.engine.mode() != call.mode {
            slot.engine.set_mode(call.mode);
        }
        let decision = slot.engine.decide_input(call.tool_name, call.input);
        if slot.decided.len() >= MAX_REMEMBERED_DECISIONS {
            slot.decided.clear();
        }
        slot.decided.insert(call_key, decision.clone());
        decision
    }
}

/// An engine and the decisions it made, by call.
#[derive(Debug)]
struct EngineSlot {
    engine: PermissionEngine,
    decided: HashMap<String, PermissionDecision>,
}

/// Decisions remembered per engine before the memory is cleared.
const MAX_REMEMBERED_DECISIONS: usize = 20_000;

/// How many calls went from one decision to another (a protocol type: the
/// app sends it to the UI; the CLI prints the same JSON).
pub use gatehouse_protocol::rules::ChangeCount;

/// A call whose decision changes, with the new decision's reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangedCall<C> {
    /// The call (the caller's type: the store's `StoredCall` names its
    /// session and position).
    #[serde(flatten)]
    pub call: C,
    /// The decision it got when it ran.
    pub from: PermissionBehavior,
    /// The decision the replayed rules give.
    pub to: PermissionBehavior,
    /// Why the replayed rules decide so.
    pub new_reason: DecisionReason,
}

/// The outcome of a replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayReport<C> {
    /// Calls re-decided.
    pub total: u64,
    /// Calls whose decision is the same.
    pub unchanged: u64,
    /// Calls whose decision changed, per (from, to), most first.
    pub changes: Vec<ChangeCount>,
    /// The changed calls, in the order met (at most the limit given).
    pub changed_calls: Vec<ChangedCall<C>>,
    /// True when more calls changed than `changed_calls` holds.
    pub changed_calls_truncated: bool,
    /// Problems in the settings files read (file, line, column, cause).
    pub settings_errors: Vec<SettingsError>,
}

/// Builds a [`ReplayReport`] call by call.
#[derive(Debug)]
pub struct ReplayTally<C> {
    total: u64,
    unchanged: u64,
    changes: BTreeMap<(u8, u8), u64>,
    /// Changed calls with their position among all calls replayed.
    changed_calls: Vec<(u64, ChangedCall<C>)>,
    truncated: bool,
    limit: usize,
}

fn rank(b: PermissionBehavior) -> u8 {
    match b {
        PermissionBehavior::Allow => 0,
        PermissionBehavior::Ask => 1,
        PermissionBehavior::Deny => 2,
    }
}

fn behavior(rank: u8) -> PermissionBehavior {
    match rank {
        0 => PermissionBehavior::Allow,
        1 => PermissionBehavior::Ask,
        _ => PermissionBehavior::Deny,
    }
}

impl<C> ReplayTally<C> {
    /// A tally keeping at most `limit` changed calls (every change is
    /// counted whatever the limit).
    pub fn new(limit: usize) -> Self {
        ReplayTally {
            total: 0,
            unchanged: 0,
            changes: BTreeMap::new(),
            changed_calls: Vec::new(),
            truncated: false,
            limit,
        }
    }

    /// Records one call's original and new decision.
    pub fn record(&mut self, call: C, from: PermissionBehavior, new: PermissionDecision) {
        let position = self.total;
        self.record_at(position, call, from, new);
    }

    /// Records the call at `position` among all calls replayed (for tallies
    /// that see only some of the calls, merged later in position order).
    fn record_at(
        &mut self,
        position: u64,
        call: C,
        from: PermissionBehavior,
        new: PermissionDecision,
    ) {
        self.total += 1;
        if from == new.decision {
            self.unchanged += 1;
            return;
        }
        *self
            .changes
            .entry((rank(from), rank(new.decision)))
            .or_insert(0) += 1;
        if self.changed_calls.len() < self.limit {
            self.changed_calls.push((
                position,
                ChangedCall {
                    call,
                    from,
                    to: new.decision,
                    new_reason: new.reason,
                },
            ));
        } else {
            self.truncated = true;
        }
    }

    /// Counts one call's change without keeping the call.
    fn count(&mut self, from: PermissionBehavior, to: PermissionBehavior) {
        self.total += 1;
        if from == to {
            self.unchanged += 1;
        } else {
            *self.changes.entry((rank(from), rank(to))).or_insert(0) += 1;
        }
    }

    /// Adds the calls `other` recorded. Each tally keeps its first `limit`
    /// changed calls, so the first `limit` of all are among them.
    fn merge(&mut self, other: ReplayTally<C>) {
        self.total += other.total;
        self.unchanged += other.unchanged;
        for (key, count) in other.changes {
            *self.changes.entry(key).or_insert(0) += count;
        }
        self.changed_calls.extend(other.changed_calls);
        self.truncated |= other.truncated;
    }

    /// The report, with the settings problems the replayer met.
    pub fn finish(mut self, settings_errors: Vec<SettingsError>) -> ReplayReport<C> {
        let mut changes: Vec<ChangeCount> = self
            .changes
            .into_iter()
            .map(|((from, to), count)| ChangeCount {
                from: behavior(from),
                to: behavior(to),
                count,
            })
            .collect();
        changes.sort_by_key(|c| std::cmp::Reverse(c.count));
        self.changed_calls.sort_by_key(|(position, _)| *position);
        if self.changed_calls.len() > self.limit {
            self.changed_calls.truncate(self.limit);
            self.truncated = true;
        }
        ReplayReport {
            total: self.total,
            unchanged: self.unchanged,
            changes,
            changed_calls: self.changed_calls.into_iter().map(|(_, c)| c).collect(),
            changed_calls_truncated: self.truncated,
            settings_errors,
        }
    }
}

/// Calls handed from the reading thread to a deciding thread at a time.
const BATCH: usize = 256;

/// Replays every call `feed` produces, deciding on `threads` threads (each
/// with its own [`Replayer`]) while `feed` reads on the calling thread —
/// e.g. `|push| store.for_each_stored_call(&filter, |c| push(c))`. `view`
/// gives the engine's view of a call. Each call's new decision is compared
/// with the one it got when it ran. Changed calls are listed in the order
/// `feed` produced them, at most `limit`.
pub fn replay_calls<C, E>(
    rules: &ReplayRules,
    limit: usize,
    threads: usize,
    view: for<'a> fn(&'a C) -> ReplayCall<'a>,
    feed: impl FnOnce(&mut dyn FnMut(C)) -> Result<(), E>,
) -> Result<ReplayReport<C>, E>
where
    C: Send,
{
    replay_against(rules, None, limit, threads, view, feed).map(|(report, _)| report)
}

/// What an unsaved edit changes ([`replay_edit_calls`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditReplayReport<C> {
    /// The edit's effect: each call decided with the saved rules (`from`)
    /// and with the edited ones (`to`).
    pub edit: ReplayReport<C>,
    /// Apart from the edit: how the saved rules' decisions differ from the
    /// decisions recorded when the calls ran (rules saved, trust given or a
    /// file changed since), per (recorded, saved), most first.
    pub since_recorded: Vec<ChangeCount>,
}

/// Replays every call twice, with the `saved` rules and with the `edited`
/// ones, so the report counts what the edit itself changes (saved →
/// edited) and, separately, what changed since the calls were recorded
/// (recorded → saved). Otherwise as [`replay_calls`].
pub fn replay_edit_calls<C, E>(
    saved: &ReplayRules,
    edited: &ReplayRules,
    limit: usize,
    threads: usize,
    view: for<'a> fn(&'a C) -> ReplayCall<'a>,
    feed: impl FnOnce(&mut dyn FnMut(C)) -> Result<(), E>,
) -> Result<EditReplayReport<C>, E>
where
    C: Send,
{
    replay_against(edited, Some(saved), limit, threads, view, feed).map(|(edit, drift)| {
        let since_recorded = drift.finish(Vec::new()).changes;
        EditReplayReport {
            edit,
            since_recorded,
        }
    })
}

/// The replay loop: `rules` decide each call; its `from` is the decision
/// `baseline` gives (when given; the drift from the recorded decisions is
/// tallied too), else the recorded one.
fn replay_against<C, E>(
    rules: &ReplayRules,
    baseline: Option<&ReplayRules>,
    limit: usize,
    threads: usize,
    view: for<'a> fn(&'a C) -> ReplayCall<'a>,
    feed: impl FnOnce(&mut dyn FnMut(C)) -> Result<(), E>,
) -> Result<(ReplayReport<C>, ReplayTally<()>), E>
where
    C: Send,
{
    let threads = threads.max(1);
    // No edit: the edited rules are the saved ones, decided once.
    let same_rules = baseline == Some(rules);
    std::thread::scope(|scope| {
        let mut senders = Vec::new();
        let mut workers = Vec::new();
        for _ in 0..threads {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(u64, C)>>(4);
            senders.push(tx);
            let rules = rules.clone();
            let baseline = baseline.cloned();
            workers.push(scope.spawn(move || {
                let mut replayer = Replayer::new(rules);
                let mut base = baseline.map(Replayer::new);
                let mut tally = ReplayTally::new(limit);
                let mut drift = ReplayTally::<()>::new(0);
                for batch in rx {
                    for (position, call) in batch {
                        let view_of_call = view(&call);
                        let recorded = view_of_call.original;
                        let (from, decision) = match base.as_mut() {
                            Some(base) => {
                                let saved = base.decide(&view_of_call);
                                drift.count(recorded, saved.decision);
                                let from = saved.decision;
                                let edited = if same_rules {
                                    saved
                                } else {
                                    replayer.decide(&view_of_call)
                                };
                                (from, edited)
                            }
                            None => (recorded, replayer.decide(&view_of_call)),
                        };
                        tally.record_at(position, call, from, decision);
                    }
                }
                let mut errors = replayer.settings_errors();
                for e in base.map(|b| b.settings_errors()).unwrap_or_default() {
                    if !errors.contains(&e) {
                        errors.push(e);
                    }
                }
                (tally, drift, errors)
            }));
        }
        let mut position = 0u64;
        let mut batch = Vec::with_capacity(BATCH);
        let mut next_worker = 0;
        let send = |batch: Vec<(u64, C)>, next_worker: &mut usize| {
            // A worker only stops early by panicking; its calls are then
            // missing from the totals, which the join below reports.
            let _ = senders[*next_worker % threads].send(batch);
            *next_worker += 1;
        };
        let fed = feed(&mut |call| {
            batch.push((position, call));
            position += 1;
            if batch.len() == BATCH {
                send(
                    std::mem::replace(&mut batch, Vec::with_capacity(BATCH)),
                    &mut next_worker,
                );
            }
        });
        if !batch.is_empty() {
            send(batch, &mut next_worker);
        }
        drop(senders);
        let mut tally = ReplayTally::new(limit);
        let mut drift = ReplayTally::<()>::new(0);
        let mut errors: Vec<SettingsError> = Vec::new();
        for worker in workers {
            match worker.join() {
                Ok((part, part_drift, part_errors)) => {
                    tally.merge(part);
                    drift.merge(part_drift);
                    for e in part_errors {
                        if !errors.contains(&e) {
                            errors.push(e);
                        }
                    }
                }
                // Re-raise a worker's panic: a report missing calls would
                // understate what changes.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        fed.map(|()| (tally.finish(errors), drift))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let project = root.join("p");
        let home = root.join("h");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        (tmp, project, home)
    }

    #[test]
    fn an_edited_deny_rule_turns_allowed_calls_into_denials() {
        let (_tmp, project, home) = project();
        let settings = project.join(".claude/settings.json");
        std::fs::write(&settings, r#"{"permissions":{"allow":["Bash(npm test)"]}}"#).unwrap();
        let input = json!({"command": "npm test"});
        let call = ReplayCall {
            project_dir: &project,
            mode: PermissionMode::Default,
            tool_name: "Bash",
            input: &input,
            session_rules: &[],
            original: PermissionBehavior::Allow,
        };
        let mut on_disk = Replayer::new(ReplayRules {
            home_dir: home.clone(),
            trusted_projects: vec![project.clone()],
            ..ReplayRules::default()
        });
        assert_eq!(on_disk.decide(&call).decision, PermissionBehavior::Allow);

        let mut edited = Replayer::new(ReplayRules {
            home_dir: home,
            trusted_projects: vec![project.clone()],
            edits: HashMap::from([(
                settings,
                r#"{"permissions":{"deny":["Bash(npm:*)"]}}"#.to_string(),
            )]),
            ..ReplayRules::default()
        });
        let mut tally = ReplayTally::new(10);
        let decision = edited.decide(&call);
        tally.record("call-1", call.original, decision);
        let report = tally.finish(edited.settings_errors());
        assert_eq!(report.total, 1);
        assert_eq!(report.unchanged, 0);
        assert_eq!(
            report.changes,
            vec![ChangeCount {
                from: PermissionBehavior::Allow,
                to: PermissionBehavior::Deny,
                count: 1
            }]
        );
        assert_eq!(report.changed_calls[0].call, "call-1");
        assert!(
            matches!(&report.changed_calls[0].new_reason, DecisionReason::Rule { rule, .. } if rule == "Bash(npm:*)")
        );
    }

    #[test]
    fn session_rules_and_the_mode_of_the_call_are_used() {
        let (_tmp, project, home) = project();
        let mut replayer = Replayer::new(ReplayRules {
            home_dir: home,
            ..ReplayRules::default()
        });
        let input = json!({"command": "make build"});
        let mut call = ReplayCall {
            project_dir: &project,
            mode: PermissionMode::Default,
            tool_name: "Bash",
            input: &input,
            session_rules: &[],
            original: PermissionBehavior::Ask,
        };
        assert_eq!(replayer.decide(&call).decision, PermissionBehavior::Ask);
        let granted = vec!["Bash(make build)".to_string()];
        call.session_rules = &granted;
        assert_eq!(replayer.decide(&call).decision, PermissionBehavior::Allow);
        call.session_rules = &[];
        call.mode = PermissionMode::DontAsk;
        assert_eq!(replayer.decide(&call).decision, PermissionBehavior::Deny);
        call.mode = PermissionMode::BypassPermissions;
        assert_eq!(replayer.decide(&call).decision, PermissionBehavior::Allow);
    }

    #[test]
    fn a_call_of_a_tool_that_no_longer_exists_is_decided_like_any_unknown_tool() {
        let (_tmp, project, home) = project();
        let mut replayer = Replayer::new(ReplayRules {
            home_dir: home,
            ..ReplayRules::default()
        });
        let input = json!({"anything": [1, 2]});
        let call = ReplayCall {
            project_dir: &project,
            mode: PermissionMode::Default,
            tool_name: "RetiredTool",
            input: &input,
            session_rules: &[],
            original: PermissionBehavior::Allow,
        };
        assert_eq!(replayer.decide(&call).decision, PermissionBehavior::Ask);
    }

    #[test]
    fn parallel_replay_counts_every_call_and_keeps_the_feed_order() {
        let (_tmp, project, home) = project();
        std::fs::write(
            project.join(".claude/settings.json"),
            r#"{"permissions":{"deny":["Bash(rm:*)"]}}"#,
        )
        .unwrap();
        let rules = ReplayRules {
            home_dir: home,
            ..ReplayRules::default()
        };
        #[derive(Debug)]
        struct Call {
            n: usize,
            project: PathBuf,
            input: Value,
        }
        fn view(c: &Call) -> ReplayCall<'_> {
            ReplayCall {
                project_dir: &c.project,
                mode: PermissionMode::BypassPermissions,
                tool_name: "Bash",
                input: &c.input,
                session_rules: &[],
                original: PermissionBehavior::Allow,
            }
        }
        // Every third call is an `rm` (allow → deny); 1,000 calls, 3 threads.
        let report = replay_calls(&rules, 50, 3, view, |push| {
            for n in 0..1000 {
                let command = if n % 3 == 0 {
                    format!("rm f{n}")
                } else {
                    format!("touch f{n}")
                };
                push(Call {
                    n,
                    project: project.clone(),
                    input: json!({ "command": command }),
                });
            }
            Ok::<(), String>(())
        })
        .unwrap();
        assert_eq!(report.total, 1000);
        assert_eq!(report.unchanged, 666);
        assert_eq!(report.changes[0].count, 334);
        let order: Vec<usize> = report.changed_calls.iter().map(|c| c.call.n).collect();
        assert_eq!(order, (0..50).map(|i| i * 3).collect::<Vec<_>>());
        assert!(report.changed_calls_truncated);
        let failed = replay_calls(&rules, 10, 2, view, |_| Err::<(), _>("the store failed"));
        assert_eq!(failed.unwrap_err(), "the store failed");
    }

    #[test]
    fn the_changed_call_list_is_capped_but_every_change_counted() {
        let mut tally = ReplayTally::new(2);
        for i in 0..5 {
            tally.record(
                i,
                PermissionBehavior::Allow,
                PermissionDecision {
                    decision: PermissionBehavior::Ask,
                    reason: DecisionReason::Default {
                        message: String::new(),
                    },
                    trace: Vec::new(),
                },
            );
        }
        let report = tally.finish(Vec::new());
        assert_eq!(report.changes[0].count, 5);
        assert_eq!(report.changed_calls.len(), 2);
        assert!(report.changed_calls_truncated);
    }
}
