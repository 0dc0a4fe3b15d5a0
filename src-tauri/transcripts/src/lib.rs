//! Gatehouse's transcript formats, outside the database:
//!
//! - [`claude`]: discovering and importing Claude Code transcripts
//!   (`~/.claude/projects/*/*.jsonl` and sub-agent transcripts),
//!   incrementally and with bounded memory;
//! - [`jsonl`]: a session as Gatehouse JSONL (one event per line, the
//!   format `gatehouse-cli run` prints) and importing that back;
//! - [`html`]: a session as one self-contained HTML page that renders
//!   offline.
//!
//! - [`browser`]: what the session browser asks of the above (listing with
//!   import status, importing a selection, exporting to a file).
//!
//! The store (`gatehouse-store`) stays SQL only; format code and its
//! dependencies live here.

pub mod browser;
pub mod claude;
mod error;
pub mod html;
pub mod jsonl;
pub mod lines;

pub use error::TranscriptError;
