//! Gatehouse's built-in tools, one module (file or folder) per tool, each
//! implementing `gatehouse_core`'s tool contract. Nothing here knows about
//! Tauri or any front end.
//!
//! File and search tools ([`file_tools()`] builds them for a session):
//!
//! | module | what |
//! |---|---|
//! | [`read`] | `Read`: text with `cat -n` numbering, images, PDFs, notebooks |
//! | [`write`](mod@write) | `Write`: create or overwrite, atomic, structured diff |
//! | [`edit`] | `Edit`: exact string replacement with stale-write protection |
//! | [`notebook_edit`] | `NotebookEdit`: replace / insert / delete a notebook cell |
//! | [`glob`] | `Glob`: file names by pattern, newest first |
//! | [`grep`] | `Grep`: the ripgrep engine |
//! | [`file_state`] | the session's file-state cache (what was read, when) |
//! | [`diff`] | structured diffs (hunks with line numbers) |
//! | [`encoding`] | text encodings and line endings kept across edits |
//! | [`atomic_write`] | temp file + rename, permissions and links kept (core's, re-exported) |
//! | [`change`] | load, stale check, atomic write, record, diff: shared by the writers |
//! | [`paths`] | absolute-path checks and canonicalisation |
//! | `search` | what Glob and Grep share: search root, permission subject, parallel walk |
//! | [`file_tools`](mod@file_tools) | the constructor the registry calls |
//!
//! Shell tools ([`bash::shell_tools`] builds them for a session):
//!
//! | module | what |
//! |---|---|
//! | [`bash`] | `Bash`: live output, timeouts, process groups, persistent cwd |
//! | [`tasks`] | background tasks (commands and agents), `TaskOutput`, `TaskStop`, `SendMessage` |
//!
//! Web tools ([`web`]): `WebFetch` (hop-by-hop permission, SSRF guard,
//! HTML → Markdown) and `WebSearch` (Brave Search, SearXNG).
//!
//! Git worktrees: [`worktree`] (`EnterWorktree`, `ExitWorktree`, and what
//! the Agent tool's `isolation: "worktree"` uses).
//!
//! Deferred tools: [`tool_search`] (`ToolSearch`: `select:` and the seeds'
//! keyword scoring over the deferred tools).
//!
//! Tools that put the user in the loop ([`talkback::talkback_tools`]):
//! `AskUserQuestion`, `TodoWrite`, `EnterPlanMode`, `ExitPlanMode`
//! (see [`talkback`]).

pub use gatehouse_core::atomic_write;
pub mod bash;
pub mod change;
pub mod diff;
pub mod edit;
pub mod encoding;
pub mod file_state;
pub mod file_tools;
pub mod glob;
pub mod grep;
pub mod notebook_edit;
pub mod paths;
pub mod read;
mod search;
pub mod talkback;
pub mod tasks;
pub mod tool_search;
pub mod web;
pub mod worktree;
pub mod write;

pub use file_state::FileStateCache;
pub use file_tools::file_tools;
