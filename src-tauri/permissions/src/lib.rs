//! Gatehouse's permission engine: rules, sources, modes, shell analysis and
//! explained decisions. It knows nothing of Tauri or any front end.
//!
//! * [`rule`] — Claude Code's rule syntax (`Tool`, `Tool(specifier)`).
//! * [`settings`] — one settings file, with positions for every error.
//! * [`sources`] — where settings come from and how they merge.
//! * [`engine`] — the evaluation order and the modes; implements
//!   [`gatehouse_core::permission::PermissionResolver`].
//! * [`shell`] — bash analysis with a real parser.
//! * [`paths`], [`domain`] — path and domain matching.
//! * [`session`] — session rules and their store.
//! * [`check`] — the function behind `gatehouse-cli check`.
//! * [`hook`] — combining PreToolUse hook verdicts with a decision.
//! * [`replay`] — re-deciding stored calls with edited rules.
//! * [`lint`] — settings errors and rules that can never fire.
//! * [`suggest`] — rule suggestions for a permission prompt.
//! * [`writeback`] — "always allow" into a settings file, atomically.
//! * [`watch`] — reloading settings when their files change.
//! * [`index`], [`tools`] — rule index; built-in tools' subjects.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod check;
pub mod domain;
pub mod editor;
pub mod engine;
pub mod hook;
pub mod index;
pub mod lint;
pub mod paths;
pub mod replay;
pub mod rule;
pub mod sandbox;
pub mod session;
pub mod settings;
pub mod shell;
pub mod sources;
pub mod suggest;
pub mod tools;
pub mod watch;
pub mod writeback;

pub use check::{CheckReport, CheckRequest, check, check_with_sandbox};
pub use engine::{EngineContext, PermissionEngine, subagent_mode};
pub use shell::is_read_only;
