//! The Gatehouse protocol: every type that crosses a boundary between the
//! runtime and one of its front ends (the desktop UI, `gatehouse-cli`, the
//! transcript store).
//!
//! Types are defined here exactly once, with serde, and the UI's TypeScript
//! declarations are generated from them by [`typescript::bindings`] (run
//! `cargo xtask gen-types`; `cargo xtask test` fails when the checked-in file
//! is stale). Nothing in this crate knows about Tauri.
//!
//! * [`browser`] — the session browser: stats, imports, exports,
//!   housekeeping.
//! * [`claude_code`] — what a guarded Claude Code's hook asks the window, and its answer.
//! * [`event`] — what the runtime reports while it works (`tool_queued`,
//!   `tool_completed`, …), one JSON object per line with a `type` field.
//! * [`hooks`] — the rule editor's Hooks view: hooks by source, edits, test runs.
//! * [`command`] — what a front end may ask the backend to do, with typed
//!   arguments and results.
//! * [`interaction`] — AskUserQuestion, plan approval and todo types
//!   (issue 20).
//! * [`permission`] — permission decisions, their reasons and traces.
//! * [`progress`] — the typed payloads of `tool_progress` events.
//! * [`upgrade`] — reading events stored by earlier builds (read-time
//!   upgrade of their old shapes).
//! * [`diff`] — structured diffs of file changes (Write, Edit results).
//! * [`mcp`] — the MCP panel: configured servers, probes, edits.
//! * [`project`] — projects and application information.
//! * [`rules`] — the rule editor: rules by source, edits, tester, replay, save.
//! * [`session`] — driving sessions from a front end, session summaries.
//! * [`sandbox`] — the Bash sandbox's state: unavailable and why, settings in force.
//! * [`skills`] — the Skills panel: a project's skills and their last use.
//! * [`transcript`] — imports of Claude Code transcripts and JSONL exports.
//! * [`mcp_auth`] — OAuth sign-in / sign-out of HTTP MCP servers.
//! * [`onboarding`] — first run, the app's settings, connection tests,
//!   start-up problems (issue 23).

pub mod browser;
pub mod claude_code;
pub mod command;
pub mod diff;
pub mod event;
pub mod hooks;
pub mod interaction;
pub mod mcp;
pub mod mcp_auth;
pub mod onboarding;
pub mod permission;
pub mod progress;
pub mod project;
pub mod rules;
pub mod sandbox;
pub mod session;
pub mod skills;
pub mod transcript;
pub mod typescript;
pub mod upgrade;
pub mod web;
pub mod window;
