//! How a test says it cannot run here.
//!
//! A test that needs something the machine may lack (a program such as
//! `rg` or `python3`, the MCP test servers, a Secret Service, the e2e
//! driver) asks for it through [`require_tool`], [`require_env`] or
//! [`missing`]; a test that does not apply at all says so with
//! [`not_applicable`]. A test about file permissions does not skip as root:
//! [`rerun_unprivileged`] runs it in a child process as `nobody`. Either way the
//! skip is *counted*, never silent:
//!
//! * it prints `GATEHOUSE-SKIP: <test binary>::<test>: <reason>` on stdout
//!   (shown with `--nocapture`);
//! * when `GATEHOUSE_SKIP_DIR` names a folder, it writes one file there per
//!   skip, which `cargo xtask test` counts into its last line
//!   (`N passed, M failed, K skipped`);
//! * when `GATEHOUSE_REQUIRE_ALL=1` (set by `cargo xtask test`, which
//!   installs everything the tests need), a missing requirement panics
//!   instead: the test fails, naming what was missing. [`not_applicable`]
//!   still only skips: nothing can be installed to make it apply.

#[cfg(feature = "claude-code")]
pub mod claude_code;

use std::ffi::OsString;
use std::fmt::Display;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Set to `1` to make every missing requirement fail its test.
pub const REQUIRE_ALL_ENV: &str = "GATEHOUSE_REQUIRE_ALL";
/// A folder that receives one file per skip (read by `cargo xtask test`).
pub const SKIP_DIR_ENV: &str = "GATEHOUSE_SKIP_DIR";
/// The start of the line a skip prints.
pub const MARKER: &str = "GATEHOUSE-SKIP";

static SKIPS: AtomicU64 = AtomicU64::new(0);

/// Whether missing requirements fail (`GATEHOUSE_REQUIRE_ALL=1`).
pub fn require_all() -> bool {
    std::env::var_os(REQUIRE_ALL_ENV).is_some_and(|v| v == "1")
}

/// `<test binary>::<test>`: the binary's name without cargo's hash, and
/// the test's name, which libtest gives the thread it runs the test on.
pub fn current_test() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|stem| match stem.rsplit_once('-') {
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
            _ => stem,
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("unknown");
    format!("{binary}::{test}")
}

/// Something this test needs is missing. Under [`REQUIRE_ALL_ENV`] this
/// panics (the test fails, saying what is missing); otherwise the skip is
/// recorded and the caller returns without running the test.
pub fn missing(reason: impl Display) {
    let test = current_test();
    if require_all() {
        panic!(
            "{test} cannot run: {reason} ({REQUIRE_ALL_ENV}=1, as under `cargo xtask test`, \
             makes a missing requirement a failure instead of a skip)"
        );
    }
    record(&test, &reason.to_string());
}

/// This test does not apply here (nothing could be installed to make it
/// apply); the skip is recorded, and never fails.
pub fn not_applicable(reason: impl Display) {
    record(&current_test(), &format!("not applicable: {reason}"));
}

/// Set in the child process [`rerun_unprivileged`] starts.
pub const UNPRIVILEGED_ENV: &str = "GATEHOUSE_TEST_UNPRIVILEGED";

/// The uid and gid [`rerun_unprivileged`] runs a test under (`nobody` /
/// `nogroup` on Debian).
pub const UNPRIVILEGED_ID: u32 = 65534;

/// Whether this process runs as root (real uid 0, from `/proc/self/status`).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// For a test about file permissions, which root bypasses
/// (`CAP_DAC_OVERRIDE`): when this process runs as root (CI does), runs the
/// calling test again in a child process of the same test binary as uid
/// and gid [`UNPRIVILEGED_ID`], where permissions apply, and returns `true`
/// once the child ran exactly this one test and it passed; a failing child
/// fails the test with its output. Returns `false` when not root: the
/// caller runs the test itself. Nothing is skipped either way.
///
/// A child process rather than dropping capabilities for a thread: the
/// code under test does its file work on runtime threads, and lowering a
/// thread's capabilities takes `capset`, which needs `unsafe` (forbidden in
/// this workspace). The test binary and the temporary folder must be
/// readable by that uid (`target/` and `/tmp` are).
pub fn rerun_unprivileged() -> bool {
    use std::os::unix::process::CommandExt as _;
    if !is_root() {
        return false;
    }
    let test = current_test();
    assert!(
        std::env::var_os(UNPRIVILEGED_ENV).is_none(),
        "{test}: still root in the unprivileged child"
    );
    let thread = std::thread::current();
    let name = thread
        .name()
        .unwrap_or_else(|| panic!("{test}: the test thread has no name to run it by"));
    let exe = std::env::current_exe()
        .unwrap_or_else(|e| panic!("{test}: cannot find the test binary to run again: {e}"));
    let out = std::process::Command::new(&exe)
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(UNPRIVILEGED_ENV, "1")
        .uid(UNPRIVILEGED_ID)
        .gid(UNPRIVILEGED_ID)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{test}: running {} again as uid {UNPRIVILEGED_ID}: {e}",
                exe.display()
            )
        });
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test} as uid {UNPRIVILEGED_ID} ({}):\n{stdout}\n{stderr}",
        out.status
    );
    true
}

/// `name` found on `PATH` (an absolute or relative path is taken as is).
pub fn find_tool(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The program `name`, or a [`missing`] requirement (`install` says how to
/// get it, e.g. "Debian package ripgrep").
pub fn require_tool(name: &str, install: &str) -> Option<PathBuf> {
    let found = find_tool(name);
    if found.is_none() {
        missing(format!("`{name}` is not installed ({install})"));
    }
    found
}

/// The environment variable `name`, or a [`missing`] requirement (`why`
/// says who sets it).
pub fn require_env(name: &str, why: &str) -> Option<OsString> {
    let value = std::env::var_os(name).filter(|v| !v.is_empty());
    if value.is_none() {
        missing(format!("{name} is not set ({why})"));
    }
    value
}

fn record(test: &str, reason: &str) {
    let line = format!("{MARKER}: {test}: {reason}");
    // stdout is the test's captured output; stderr as well, so a skip is
    // seen in either stream.
    println!("{line}");
    let _ = writeln!(std::io::stderr(), "{line}");
    let Some(dir) = std::env::var_os(SKIP_DIR_ENV) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let safe: String = test
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let file = dir.join(format!(
        "{safe}.{}.{}.skip",
        std::process::id(),
        SKIPS.fetch_add(1, Ordering::Relaxed)
    ));
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&file, format!("{test}: {reason}\n")));
    if let Err(e) = written {
        // A skip that cannot be counted must not pass as a success.
        panic!(
            "{test}: the skip could not be recorded in {}: {e}",
            file.display()
        );
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_found_on_the_path_and_absent_ones_are_not() {
        assert!(find_tool("sh").is_some());
        assert!(find_tool("gatehouse-no-such-tool-4917").is_none());
        assert_eq!(find_tool("/bin/sh").as_deref(), Some(Path::new("/bin/sh")));
    }

    #[test]
    fn a_permission_test_runs_unprivileged_when_root() {
        if rerun_unprivileged() {
            return;
        }
        // Here: not root — never was, or the child as nobody.
        assert!(!is_root());
        if std::env::var_os(UNPRIVILEGED_ENV).is_some() {
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            let uid = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
            assert_eq!(uid.split_whitespace().nth(1), Some("65534"), "{uid}");
        }
    }

    #[test]
    fn the_test_is_named_after_its_binary_and_thread() {
        let name = current_test();
        assert!(
            name.ends_with("::tests::the_test_is_named_after_its_binary_and_thread"),
            "{name}"
        );
        assert!(name.starts_with("gatehouse_test_support::"), "{name}");
    }

    /// Run only as a child of the test below, with its environment.
    #[test]
    #[ignore = "run by a_missing_requirement_is_counted_or_fails_under_require_all"]
    fn child_missing_a_tool() {
        if require_tool("gatehouse-no-such-tool-4917", "nowhere").is_none() {
            return;
        }
        unreachable!("the tool does not exist");
    }

    fn child(env: &[(&str, &Path)]) -> std::process::Output {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--ignored",
            "--exact",
            "tests::child_missing_a_tool",
            "--nocapture",
        ])
        .env_remove(REQUIRE_ALL_ENV)
        .env_remove(SKIP_DIR_ENV);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    #[test]
    fn a_missing_requirement_is_counted_or_fails_under_require_all() {
        let dir = std::env::temp_dir().join(format!("gatehouse-skips-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = child(&[(SKIP_DIR_ENV, &dir)]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        assert!(
            stdout.contains(
                "GATEHOUSE-SKIP: gatehouse_test_support::tests::child_missing_a_tool: \
                 `gatehouse-no-such-tool-4917` is not installed (nowhere)"
            ),
            "{stdout}"
        );
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(files.len(), 1, "one file per skip");
        let text = std::fs::read_to_string(files[0].as_ref().unwrap().path()).unwrap();
        assert!(
            text.contains("child_missing_a_tool: `gatehouse-no-such-tool-4917`"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();

        let out = child(&[(REQUIRE_ALL_ENV, Path::new("1"))]);
        let both = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{both}");
        assert!(
            both.contains(
                "child_missing_a_tool cannot run: `gatehouse-no-such-tool-4917` is not installed"
            ),
            "{both}"
        );
    }
}
