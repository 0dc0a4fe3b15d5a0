//! Gatehouse's permission engine: rules, sources, modes, shell analysis and
//! explained decisions. It knows nothing of Tauri or any front end.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod domain;
pub mod paths;
pub mod rule;
pub mod shell;
