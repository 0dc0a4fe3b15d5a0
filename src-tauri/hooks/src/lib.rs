//! Claude Code-compatible hooks from settings files (issue 18; SPEC §3
//! stages 5 and 8, §6).
//!
//! * [`config`] — the `hooks` key of every settings source, with file,
//!   line and column for every malformed entry; trust and managed policy.
//! * [`matcher`] — Claude Code's matcher syntax (all, exact, `A|B`, regex).
//! * [`runner`] — command handlers: a process group, stdin JSON, capped
//!   output, timeout with SIGTERM then SIGKILL.
//! * [`http`] — HTTP handlers: a POST of the same JSON on a keep-alive client.
//! * [`protocol`] — what a hook is sent and how its answer is read.
//! * [`session`] — the hooks of one session: implements the runtime's
//!   PreToolUse / PostToolUse / PermissionRequest seams and runs the
//!   session-level events (UserPromptSubmit, Stop, SessionStart,
//!   SessionEnd, Notification), each run reported as a `hook_ran` event.
//! * [`editor`] — edits to a file's `hooks` (other keys kept, validated) and test runs.
//! * [`guard_entry`] — Gatehouse's own Claude Code guard entries, recognised (never run by Gatehouse sessions).
//! * [`transcript`] — the Claude Code-format JSONL behind `transcript_path`.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod config;
pub mod editor;
pub mod guard_entry;
pub mod http;
pub mod matcher;
pub mod protocol;
pub mod runner;
pub mod session;
pub mod transcript;

pub use config::{Handler, HookEvent, HookSpec, LoadedHooks, load_hooks, parse_hooks};
pub use session::{HookContext, SessionHooks};
