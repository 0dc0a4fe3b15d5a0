//! Guarding Claude Code itself (issue 25): Gatehouse's hook entries in
//! Claude Code's settings ([`install`]), the hook calls they make decided
//! by Gatehouse's engine and recorded as a live session ([`hook`]), asks
//! Claude Code is about to make answered in the running window over a local
//! socket ([`bridge`], `permission_request`; the window's pending asks in
//! [`window`]), the session's transcript followed live into the same
//! session ([`tail`], merged with the hook events by `merge`), and the
//! status `gatehouse-cli claude-code status` shows ([`state`]).
//!
//! `gatehouse-cli claude-code …` only parses arguments and prints what
//! these functions return.

pub mod bridge;
pub mod hook;
pub mod install;
pub mod ledger;
mod merge;
mod mode;
mod permission_request;
pub mod sandbox;
pub mod state;
mod switch;
pub mod tail;
pub mod window;

use std::path::{Path, PathBuf};

pub use gatehouse_protocol::claude_code::{GuardOutcome, GuardStatus};
pub use install::{GUARD_EVENTS, GuardChange, GuardScope, InstalledEntries, settings_file};
pub use state::LastCall;
pub use switch::{cli_beside, guard_view, set_guard};

/// Why guarding (or unguarding) failed; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// The settings file is not valid settings.
    #[error("{}:{line}:{column}: {cause}; the file was not changed", file.display())]
    Malformed {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        cause: String,
    },
    /// The hooks editor refused the edit.
    #[error("{}: {message}", file.display())]
    Edit {
        /// The file.
        file: PathBuf,
        /// Why.
        message: String,
    },
    /// Reading a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// Writing the settings file failed.
    #[error("{0}")]
    Write(String),
}

/// Installs (or with `off`, removes) Gatehouse's entries in the settings
/// file of `scope`, and records where in the data directory's state.
pub fn guard(
    scope: GuardScope,
    home: &Path,
    project: &Path,
    cli: &Path,
    data_dir: &Path,
    off: bool,
) -> Result<GuardOutcome, GuardError> {
    // Paths are compared canonically (status, the state's list).
    let project = match scope {
        GuardScope::Project => std::fs::canonicalize(project).map_err(|source| GuardError::Io {
            path: project.to_path_buf(),
            source,
        })?,
        GuardScope::User => project.to_path_buf(),
    };
    let file = settings_file(&scope, home, &project);
    let change = if off {
        install::unguard_file(&file)?
    } else {
        install::guard_file(&file, cli)?
    };
    let key = file.display().to_string();
    let note = state::update_state(data_dir, |s| {
        s.installs.retain(|f| *f != key);
        if !off {
            s.installs.push(key.clone());
        }
    })
    .err()
    .map(|e| {
        format!(
            "the settings file is done, but the guard's state in {} was not updated: {e}",
            data_dir.display()
        )
    });
    Ok(GuardOutcome {
        file: key,
        scope,
        installed: !off,
        change,
        note,
    })
}

/// Where Gatehouse's entries are, and the last call they made.
pub fn status(home: &Path, project: Option<&Path>, data_dir: &Path) -> GuardStatus {
    let (state, state_problem) = state::read_state(data_dir);
    let mut files = vec![settings_file(&GuardScope::User, home, Path::new(""))];
    if let Some(project) = project {
        files.push(settings_file(&GuardScope::Project, home, project));
    }
    files.extend(state.installs.iter().map(PathBuf::from));
    let mut seen = Vec::new();
    let mut installed = Vec::new();
    let mut problems: Vec<String> = state_problem.into_iter().collect();
    for file in files {
        let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        match install::installed_in(&file, home) {
            Ok(entries) if !entries.events.is_empty() => installed.push(entries),
            Ok(_) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    GuardStatus {
        installed,
        problems,
        last_call: state::read_last_call(data_dir, &state),
    }
}
