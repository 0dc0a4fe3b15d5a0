//! Settings → Claude Code, the app's "Guard Claude Code" switch: the same
//! [`guard`](super::guard) and [`status`](super::status) as
//! `gatehouse-cli claude-code guard|status`, with the `gatehouse-cli` the
//! entries run found beside the app.

use std::path::{Path, PathBuf};

use gatehouse_protocol::claude_code::{ClaudeCodeGuard, GuardScope, SetClaudeCodeGuardArgs};

use super::install::{CLI_NAME, settings_file};
use super::{GUARD_EVENTS, guard, status};

/// The `gatehouse-cli` installed beside the app binary `exe` (the package
/// puts both in `/usr/bin`; a build puts both in `target/<profile>`), or
/// why there is none: the hook entries run it, so without it the switch
/// cannot install anything.
pub fn cli_beside(exe: &Path) -> Result<PathBuf, String> {
    let cli = exe.with_file_name(CLI_NAME);
    if cli.is_file() {
        Ok(cli)
    } else {
        Err(format!(
            "{CLI_NAME} was not found beside the app ({}): Claude Code's hook entries run it; \
             install Gatehouse's package, or build it with `cargo build -p gatehouse-cli`",
            cli.display()
        ))
    }
}

/// What Settings → Claude Code shows: the guard's status (the user's file,
/// `project`'s local file and every file the guard wrote to), whether the
/// user's file guards every event, and the `gatehouse-cli` the switch
/// installs (or why it cannot).
pub fn guard_view(
    home: &Path,
    project: Option<&Path>,
    data_dir: &Path,
    cli: &Result<PathBuf, String>,
) -> ClaudeCodeGuard {
    let status = status(home, project, data_dir);
    let user_guarded = status
        .installed
        .iter()
        .any(|e| e.scope == GuardScope::User && e.events.len() == GUARD_EVENTS.len());
    ClaudeCodeGuard {
        status,
        user_file: settings_file(&GuardScope::User, home, Path::new(""))
            .display()
            .to_string(),
        user_guarded,
        cli: cli.as_ref().ok().map(|p| p.display().to_string()),
        cli_problem: cli.as_ref().err().cloned(),
    }
}

/// The switch: installs (`on`) or removes the entries in the file of
/// `args.scope`, then returns the view again. Installing needs the
/// `gatehouse-cli` beside the app; removing takes out Gatehouse's entries
/// whichever `gatehouse-cli` they run.
pub fn set_guard(
    args: &SetClaudeCodeGuardArgs,
    home: &Path,
    data_dir: &Path,
    cli: &Result<PathBuf, String>,
) -> Result<ClaudeCodeGuard, String> {
    let project = match (&args.scope, &args.project) {
        (GuardScope::User, _) => None,
        (GuardScope::Project, Some(project)) => Some(PathBuf::from(project)),
        (GuardScope::Project, None) => {
            return Err("guarding one project needs the project's folder".to_owned());
        }
    };
    let program = match (args.on, cli) {
        (true, Err(problem)) => return Err(problem.clone()),
        (true, Ok(cli)) => cli.clone(),
        // Removal never writes a command.
        (false, _) => PathBuf::from(CLI_NAME),
    };
    let outcome = guard(
        args.scope.clone(),
        home,
        project.as_deref().unwrap_or(Path::new("")),
        &program,
        data_dir,
        !args.on,
    )
    .map_err(|e| e.to_string())?;
    let mut view = guard_view(home, project.as_deref(), data_dir, cli);
    // A state file that could not be updated is worth saying; the
    // settings file itself is done.
    view.status.problems.extend(outcome.note);
    Ok(view)
}
