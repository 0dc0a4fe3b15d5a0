//! Gatehouse's session host: the one code path through which the desktop
//! app and `gatehouse-cli run` open and drive sessions (SPEC §10, §12).
//!
//! | module | what |
//! |---|---|
//! | [`host`] | [`SessionHost`]: open sessions (agent, engine, tools, tasks), start/resume, prompts, interrupts, modes, closing |
//! | [`app_settings`] | the app's settings (`<data dir>/settings.json`): first run done, provider, default models and mode, the project to reopen; the sample project, the only folder the offline demo plays in |
//! | [`connection`] | a provider tried for real (`…/models`), the failure named: no key, bad key, no network, wrong URL |
//! | [`abandoned`] | sessions a stopped process left open, closed (`session_ended: app_closed`) or deleted (never prompted) at start-up |
//! | [`claude_guard`] | guarding Claude Code: Gatehouse's hook entries in its settings, its hook calls decided by the engine and recorded as live `claude_code` sessions, the guard's status |
//! | [`ask`] | [`ask::InteractiveAsk`]: permission prompts as `permission_requested` events answered by `answer_permission` |
//! | [`interaction`] | AskUserQuestion questions and ExitPlanMode plan approvals as `interaction_requested`, answered by `answer_interaction`, replies checked |
//! | [`todos`] | the current todo list rebuilt from stored events (TodoWrite's `todos_updated`) |
//! | [`rules`] | [`rules::SqliteSessionRuleStore`]: session rules in SQLite, restored on resume |
//! | [`provider`] | a [`gatehouse_protocol::session::ProviderChoice`] turned into a model provider |
//! | [`keys`] | where API keys come from (environment, then the OS keychain) |
//! | [`logging`] | the process's log file (`tracing`, daily rotation in `<data dir>/logs`) |
//! | `hooks` | the session's hooks from its settings files (gatehouse-hooks), their warnings, the transcript they read |
//! | [`hooks_editor`] | the rule editor's Hooks view: hooks by source and event, one edit at a time, test runs |
//! | `live_settings` | an open session's settings files watched and reloaded (`settings_reloaded`) |
//! | [`mcp_panel`] | the app's MCP panel: servers from every source, probes, edits, approvals |
//! | [`preview`] | the diff an Edit/Write would make, for the permission prompt |
//! | [`mcp_auth`] | OAuth sign-in / sign-out of a project's HTTP MCP servers (tokens in the keychain) |
//! | [`subagents`] | the Agent tool of every session, agent types from `.claude/agents`, sub-agents stored as child sessions |
//! | `sandbox` | an open session's Bash sandbox: the typed `sandbox_unavailable`, rebuilt when a `sandbox` key changes (`sandbox_settings_read`) |
//! | [`sandbox_state`] | Settings → Bash sandbox: bwrap probed once (cached), why not and the fix, the settings in force with their files |
//! | [`skills`] | the Skill tool of a session with skills (`.claude/skills/<name>/SKILL.md`) |
//! | [`store_watch`] | sessions written by other processes (a guarded Claude Code's hooks, `gatehouse-cli run`) noticed for the session browser |
//! | [`web_search`] | the session's WebSearch provider from `~/.gatehouse/settings.json` (`webSearch`), or why it is unavailable |
//! | [`web_search_settings`] | Settings → Web search: the provider saved into `~/.gatehouse/settings.json`, Brave Search's key status, WebSearch's availability |
//! | [`web_prompt`] | WebFetch's `prompt` applied by a small, fast model through the session's provider (`ANTHROPIC_DEFAULT_HAIKU_MODEL`, `smallFastModel`) |
//! | [`writer`] | events stored in SQLite, then handed to the front end, in order |
//!
//! Nothing here knows about Tauri: the app forwards the events the host
//! hands to its sink, the CLI prints them.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod abandoned;
pub mod app_settings;
pub mod ask;
pub mod claude_guard;
pub mod connection;
mod hooks;
pub mod hooks_editor;
pub mod host;
pub mod interaction;
pub mod keys;
mod live_settings;
pub mod logging;
pub mod mcp;
pub mod mcp_auth;
pub mod mcp_panel;
pub mod preview;
pub mod provider;
pub mod rules;
pub mod rules_editor;
mod sandbox;
pub mod sandbox_state;
pub mod skills;
pub mod store_watch;
pub mod subagents;
pub mod todos;
pub mod tool_search;
pub mod web_prompt;
pub mod web_search;
pub mod web_search_settings;
pub mod writer;

pub use host::{HostConfig, HostError, PromptTicket, SessionHost, StartSpec};
