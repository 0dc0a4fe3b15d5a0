//! Gatehouse's own "Guard Claude Code" entries (issue 25): command hooks
//! running `gatehouse-cli claude-code hook <event>`, written into Claude
//! Code's settings for Claude Code to run. Recognised here so that
//! Gatehouse's own sessions, which read the same files, never run them
//! (they would decide every call twice and record it as a Claude Code
//! session), and so that `guard --off` removes exactly them.

use std::path::Path;

/// The Claude Code hook events Gatehouse answers, in the order they are
/// written.
/// PostToolUseFailure and SessionEnd (Claude Code 2.1.x) complete the
/// ledger: a failed call's result, and the end of the recorded session.
pub const GUARD_EVENTS: [&str; 5] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "SessionEnd",
];

/// The program name Gatehouse's entries run.
pub const CLI_NAME: &str = "gatehouse-cli";

/// The event of a Gatehouse entry's command line; `None` for any other
/// command. The program is `gatehouse-cli` in any folder (quoted or not),
/// its arguments `claude-code hook <event>`.
pub fn guard_event_of(command: &str) -> Option<&'static str> {
    let (program, rest) = command.trim().split_once(" claude-code hook ")?;
    let program = program.trim().trim_matches(['\'', '"']);
    let name = Path::new(program).file_name()?.to_str()?;
    if name != CLI_NAME && name != "gatehouse-cli.exe" {
        return None;
    }
    let event = rest.split_whitespace().next()?;
    GUARD_EVENTS.iter().copied().find(|e| *e == event)
}
