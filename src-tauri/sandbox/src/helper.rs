//! The small binary bwrap starts inside the sandbox before the shell:
//! `gatehouse-sandbox-exec`, installed beside the app and `gatehouse-cli`.
//!
//! It is a program of its own, not a hidden subcommand of the app, because
//! it starts once per sandboxed command: the app links WebKitGTK and its
//! ~170 shared libraries, which took 0.4 s to load per start (measured,
//! debug build), against ~1 ms for this binary, which links only
//! libseccomp. It has two jobs, picked by a hidden first argument:
//!
//! * [`EXEC_ARG`]: the blocked-write trap ([`crate::blocked::trap`]);
//! * [`crate::bridge::BRIDGE_ARG`]: the network bridge for allowed domains.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The hidden first argument that installs the blocked-write trap and
/// execs the command.
pub const EXEC_ARG: &str = "__gatehouse-sandbox-exec";
/// The helper's file name.
pub const PROGRAM: &str = "gatehouse-sandbox-exec";
/// Names the helper explicitly (tests, unusual installs).
pub const PROGRAM_VAR: &str = "GATEHOUSE_SANDBOX_EXEC";

/// The helper's `main`: runs the job its first argument names; the exit
/// code (the trap does not return when it starts the command).
pub fn main_with(args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter();
    match args.next() {
        Some(a) if a == EXEC_ARG => crate::blocked::trap::run(args.collect()),
        Some(a) if a == crate::bridge::BRIDGE_ARG => crate::bridge::run(args.collect()),
        _ => {
            eprintln!(
                "{PROGRAM} is started by Gatehouse inside its Bash sandbox:\n  \
                 {PROGRAM} {EXEC_ARG} <fd> -- <program> <args…>\n  \
                 {PROGRAM} {} <socket> <port> -- <program> <args…>",
                crate::bridge::BRIDGE_ARG
            );
            2
        }
    }
}

/// Where the helper is: `$GATEHOUSE_SANDBOX_EXEC`, else beside the running
/// executable (the app and the CLI are installed beside it), else one
/// folder up (Cargo puts test executables in `target/<profile>/deps`).
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(PROGRAM_VAR) {
        let p = PathBuf::from(p);
        return is_executable(&p).then_some(p);
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .map(|d| d.join(PROGRAM))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
