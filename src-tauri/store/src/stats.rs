//! Per-session statistics for the session browser's plots: calls and time
//! per tool, the permission decisions, tokens and latency per turn.
//!
//! [`SessionStatsBuilder`] folds a session's events in one pass (it keeps a
//! few entries per call and per turn, never the events), so
//! [`Store::session_stats`] streams even a big session from the database.
//!
//! Turns: a live session says when each model request started
//! (`model_request_started`), when output began (the first text or thinking
//! delta) and how long the turn took (`turn_completed`), and its calls are
//! queued inside the turn. An imported transcript has only the assistant
//! messages with their times, stored once the message is complete — after
//! its calls were queued and often after they completed. There a turn's
//! calls are the ones queued since the previous message, the request is
//! taken to start at the last input (prompt or call result) at or before
//! the message's time, and the duration is unknown.

use std::collections::{BTreeMap, HashMap};

use gatehouse_protocol::browser::{DecisionBreakdown, SessionStats, ToolStats, TurnStats};
use gatehouse_protocol::event::{Event, EventBody, ToolCallStatus};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior};
use gatehouse_protocol::session::PermissionAnswer;

use crate::{Store, StoreError};

/// What the fold remembers about one call.
#[derive(Debug, Default)]
struct CallState {
    tool: String,
    /// The last decision, and whether it was the user's answer.
    decision: Option<(PermissionBehavior, bool)>,
    /// The user's answer, when one was recorded: true for a refusal.
    answer_denied: Option<bool>,
    /// Refused, by a rule, a mode or the user.
    denied: bool,
}

/// What the fold remembers about one turn.
#[derive(Debug, Default)]
struct TurnState {
    stats: TurnStats,
    request_ms: Option<u64>,
    first_output_ms: Option<u64>,
}

/// Folds a session's events into [`SessionStats`], one event at a time.
#[derive(Debug, Default)]
pub struct SessionStatsBuilder {
    session_id: String,
    tools: HashMap<String, ToolStats>,
    calls: HashMap<String, CallState>,
    turns: BTreeMap<u32, TurnState>,
    current_turn: u32,
    /// Whether the events say when requests start (a live session).
    live: bool,
    /// Calls queued since the last assistant message (imports).
    unassigned_calls: u64,
    /// Input times (prompts, call results) not yet before any message.
    inputs_ms: Vec<u64>,
}

impl SessionStatsBuilder {
    /// An empty fold for session `session_id`.
    pub fn new(session_id: &str) -> Self {
        Self {
            session_id: session_id.to_owned(),
            ..Self::default()
        }
    }

    fn turn(&mut self, turn: u32) -> &mut TurnState {
        self.current_turn = self.current_turn.max(turn);
        self.turns.entry(turn).or_insert_with(|| TurnState {
            stats: TurnStats {
                turn,
                ..TurnStats::default()
            },
            ..TurnState::default()
        })
    }

    fn output_began(&mut self, turn: u32, ts: u64) {
        let state = self.turn(turn);
        if state.first_output_ms.is_none() {
            state.first_output_ms = Some(ts);
        }
    }

    /// Folds one more event in.
    pub fn push(&mut self, event: &Event) {
        let ts = event.ts_ms;
        match &event.body {
            EventBody::UserPrompt { .. } | EventBody::ToolResultsReturned { .. } => {
                self.inputs_ms.push(ts);
            }
            EventBody::ModelRequestStarted { turn, .. } => {
                self.live = true;
                let state = self.turn(*turn);
                state.request_ms.get_or_insert(ts);
            }
            EventBody::AssistantTextDelta { turn, .. }
            | EventBody::AssistantThinkingDelta { turn, .. } => self.output_began(*turn, ts),
            EventBody::AssistantMessage { turn, .. } => {
                let last_input = self.inputs_ms.iter().copied().filter(|t| *t <= ts).max();
                self.inputs_ms.retain(|t| *t > ts);
                let calls = std::mem::take(&mut self.unassigned_calls);
                self.output_began(*turn, ts);
                let state = self.turn(*turn);
                state.stats.tool_calls += calls;
                if state.request_ms.is_none() {
                    state.request_ms = last_input;
                }
            }
            EventBody::Usage {
                turn,
                input_tokens,
                output_tokens,
                cache_creation_input_tokens,
                cache_read_input_tokens,
            } => {
                let stats = &mut self.turn(*turn).stats;
                stats.input_tokens += input_tokens;
                stats.output_tokens += output_tokens;
                stats.cache_write_tokens += cache_creation_input_tokens;
                stats.cache_read_tokens += cache_read_input_tokens;
            }
            EventBody::TurnCompleted {
                turn, duration_ms, ..
            } => {
                self.turn(*turn).stats.duration_ms = Some(*duration_ms);
            }
            EventBody::ToolQueued {
                tool_use_id, name, ..
            } => {
                if self.live {
                    let turn = self.current_turn;
                    self.turn(turn).stats.tool_calls += 1;
                } else {
                    self.unassigned_calls += 1;
                }
                let tool = self.tools.entry(name.clone()).or_insert_with(|| ToolStats {
                    name: name.clone(),
                    ..ToolStats::default()
                });
                tool.calls += 1;
                self.calls.insert(
                    tool_use_id.clone(),
                    CallState {
                        tool: name.clone(),
                        ..CallState::default()
                    },
                );
            }
            EventBody::PermissionDecided {
                tool_use_id,
                decision,
                reason,
                ..
            } => {
                if let Some(call) = self.calls.get_mut(tool_use_id) {
                    let by_user = matches!(reason, DecisionReason::UserAnswer { .. });
                    call.decision = Some((*decision, by_user));
                    call.denied |= *decision == PermissionBehavior::Deny;
                }
            }
            EventBody::PermissionAnswered {
                tool_use_id,
                answer,
            } => {
                if let Some(call) = self.calls.get_mut(tool_use_id) {
                    let denied = matches!(answer, PermissionAnswer::Deny { .. });
                    call.answer_denied = Some(denied);
                    call.denied |= denied;
                }
            }
            EventBody::ToolCompleted {
                tool_use_id,
                status,
                is_error,
                duration_ms,
                ..
            } => {
                if !self.live {
                    self.inputs_ms.push(ts);
                }
                let Some(call) = self.calls.get(tool_use_id) else {
                    return;
                };
                let Some(tool) = self.tools.get_mut(&call.tool) else {
                    return;
                };
                tool.total_ms += duration_ms;
                tool.max_ms = tool.max_ms.max(*duration_ms);
                if *is_error {
                    if call.denied || *status == ToolCallStatus::Denied {
                        tool.denials += 1;
                    } else {
                        tool.errors += 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// The statistics of every event pushed.
    ///
    /// Decisions are counted per call, from its last decision: a live ask
    /// ends in a decision whose reason is the user's answer; an imported
    /// one in an `ask` decision followed by the answer.
    pub fn finish(mut self) -> SessionStats {
        // Calls of an import whose message never came (a cut-off file).
        if self.unassigned_calls > 0 {
            let turn = self.current_turn.max(1);
            self.turn(turn).stats.tool_calls += self.unassigned_calls;
        }
        let mut decisions = DecisionBreakdown::default();
        for call in self.calls.values() {
            let user_answer = |d: &mut DecisionBreakdown, denied: bool| {
                d.asked += 1;
                if denied {
                    d.user_denied += 1;
                } else {
                    d.user_allowed += 1;
                }
            };
            match (call.decision, call.answer_denied) {
                (Some((behavior, true)), _) => {
                    user_answer(&mut decisions, behavior == PermissionBehavior::Deny);
                }
                (Some((PermissionBehavior::Ask, false)) | None, Some(denied)) => {
                    user_answer(&mut decisions, denied);
                }
                (Some((PermissionBehavior::Ask, false)), None) => decisions.asked += 1,
                (Some((PermissionBehavior::Allow, false)), _) => decisions.allowed += 1,
                (Some((PermissionBehavior::Deny, false)), _) => decisions.denied += 1,
                (None, None) => decisions.undecided += 1,
            }
        }
        let mut tools: Vec<ToolStats> = self.tools.into_values().collect();
        tools.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
        let turns = self
            .turns
            .into_values()
            .map(|state| {
                let mut stats = state.stats;
                stats.latency_ms = match (state.request_ms, state.first_output_ms) {
                    (Some(start), Some(output)) => Some(output.saturating_sub(start)),
                    _ => None,
                };
                stats
            })
            .collect();
        SessionStats {
            session_id: self.session_id,
            tools,
            decisions,
            turns,
        }
    }
}

impl Store {
    /// Statistics of stored session `id`, streamed from its events.
    /// A session that is not stored is an error naming it.
    pub fn session_stats(&self, id: &str) -> Result<SessionStats, StoreError> {
        if self.session(id)?.is_none() {
            return Err(StoreError::Invalid(format!(
                "no stored session with id {id}"
            )));
        }
        let mut builder = SessionStatsBuilder::new(id);
        self.for_each_event(id, |event| {
            builder.push(&event);
            Ok(())
        })?;
        Ok(builder.finish())
    }
}
