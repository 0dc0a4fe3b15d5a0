//! `cargo xtask test`: every check, one summary line.
//!
//! Each step is run even when an earlier one failed, so one run shows every
//! problem. Test suites contribute their own pass/fail counts; a check (fmt,
//! clippy, lint, typecheck, stale types) counts as one test. The last line is
//! always `N passed, M failed`.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use clap::ValueEnum;

use crate::process::run_captured;
use crate::{deps, gen_types, run};

/// A group of checks that can be run on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Group {
    /// Stale generated types, `cargo fmt --check`, `cargo clippy -D warnings`.
    Lint,
    /// Every Rust test in the workspace except the end-to-end tests.
    Rust,
    /// UI typecheck, eslint and Vitest.
    Ui,
    /// End-to-end tests driving the real app window through WebDriver.
    E2e,
}

/// Pass/fail counts of one step.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    passed: u64,
    failed: u64,
}

struct Step {
    name: String,
    counts: Counts,
    seconds: f64,
}

#[derive(Default)]
struct Report {
    steps: Vec<Step>,
}

impl Report {
    /// Runs one step, recording its counts and duration.
    fn step(&mut self, name: &str, f: impl FnOnce() -> anyhow::Result<Counts>) {
        println!("\n==> {name}");
        let start = Instant::now();
        let counts = f().unwrap_or_else(|err| {
            eprintln!("xtask: {name}: {err:#}");
            Counts {
                passed: 0,
                failed: 1,
            }
        });
        self.steps.push(Step {
            name: name.to_owned(),
            counts,
            seconds: start.elapsed().as_secs_f64(),
        });
    }

    fn totals(&self) -> Counts {
        self.steps.iter().fold(Counts::default(), |acc, s| Counts {
            passed: acc.passed + s.counts.passed,
            failed: acc.failed + s.counts.failed,
        })
    }
}

/// A check that passes or fails as a whole.
fn check(cmd: &mut Command) -> anyhow::Result<Counts> {
    let (ok, _) = run_captured(cmd)?;
    Ok(if ok {
        Counts {
            passed: 1,
            failed: 0,
        }
    } else {
        Counts {
            passed: 0,
            failed: 1,
        }
    })
}

/// Sums libtest's `test result: ok. 3 passed; 1 failed; …` lines. A run that
/// failed without reporting a failed test (a build error) counts one failure.
pub(crate) fn cargo_test_counts(ok: bool, output: &str) -> Counts {
    let mut counts = Counts::default();
    for line in output.lines().filter(|l| l.starts_with("test result:")) {
        counts.passed += number_before(line, " passed");
        counts.failed += number_before(line, " failed");
    }
    if !ok && counts.failed == 0 {
        counts.failed = 1;
    }
    counts
}

/// Reads Vitest's `Tests  2 failed | 40 passed (42)` line.
pub(crate) fn vitest_counts(ok: bool, output: &str) -> Counts {
    let mut counts = Counts::default();
    if let Some(line) = output
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Tests "))
    {
        counts.passed = number_before(line, " passed");
        counts.failed = number_before(line, " failed");
    }
    if !ok && counts.failed == 0 {
        counts.failed = 1;
    }
    counts
}

/// The number written just before `word` in `line` (0 when absent).
fn number_before(line: &str, word: &str) -> u64 {
    line.find(word)
        .and_then(|end| {
            let head = &line[..end];
            let start = head
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |i| i + 1);
            head[start..].parse().ok()
        })
        .unwrap_or(0)
}

fn cargo(root: &Path) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(root).env("CARGO_TERM_COLOR", "never");
    cmd
}

fn npm(root: &Path, script: &str) -> Command {
    let mut cmd = Command::new("npm");
    cmd.args(["run", "--silent", script])
        .current_dir(root.join("ui"))
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0");
    cmd
}

pub(crate) fn test(groups: &[Group]) -> anyhow::Result<ExitCode> {
    let all = [Group::Lint, Group::Rust, Group::Ui, Group::E2e];
    let groups = if groups.is_empty() { &all[..] } else { groups };
    let wants = |g: Group| groups.contains(&g);
    let root = crate::root();
    let started = Instant::now();
    let mut report = Report::default();

    report.step("install missing dependencies and build the UI", || {
        let mut packages = deps::BUILD_PACKAGES.to_vec();
        packages.extend(deps::TEST_PACKAGES);
        deps::ensure_system_packages(&packages)?;
        run::build_ui(&root)?;
        Ok(Counts {
            passed: 1,
            failed: 0,
        })
    });

    if wants(Group::Lint) {
        report.step("generated TypeScript types are current", || {
            let fresh = gen_types::is_fresh()?;
            if !fresh {
                eprintln!(
                    "{} is stale: run `cargo xtask gen-types`",
                    gen_types::GENERATED
                );
            }
            Ok(Counts {
                passed: u64::from(fresh),
                failed: u64::from(!fresh),
            })
        });
        report.step("cargo fmt --check", || {
            check(cargo(&root).args(["fmt", "--all", "--check"]))
        });
        report.step("cargo clippy -D warnings", || {
            check(cargo(&root).args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--locked",
                "--",
                "-D",
                "warnings",
            ]))
        });
    }
    if wants(Group::Rust) {
        report.step("Rust tests", || {
            // A private D-Bus session with an unlocked gnome-keyring: the
            // keychain tests talk to a real Secret Service, never the
            // developer's own keyring.
            let mcp_servers = deps::ensure_mcp_test_servers(&root)?;
            let mut cmd = Command::new("dbus-run-session");
            cmd.current_dir(&root)
                .env(deps::MCP_SERVERS_ENV, &mcp_servers)
                .env("CARGO_TERM_COLOR", "never")
                .args(["--", "sh", "-c"])
                .arg(
                    "printf pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null \
                     && exec cargo test --workspace --locked --no-fail-fast --exclude gatehouse-e2e",
                );
            let (ok, out) = run_captured(&mut cmd)?;
            Ok(cargo_test_counts(ok, &out))
        });
    }
    if wants(Group::Ui) {
        report.step("UI typecheck", || check(&mut npm(&root, "typecheck")));
        report.step("UI lint", || check(&mut npm(&root, "lint")));
        report.step("UI unit tests (Vitest)", || {
            let (ok, out) = run_captured(&mut npm(&root, "test"))?;
            Ok(vitest_counts(ok, &out))
        });
    }
    if wants(Group::E2e) {
        report.step("end-to-end tests (tauri-driver, WebKitWebDriver)", || {
            let mut cmd = run::webdriver_cargo(&root, run::Profile::Debug)?;
            // The MCP sign-in test runs the Python SDK's OAuth server.
            let mcp_servers = deps::ensure_mcp_test_servers(&root)?;
            cmd.env(deps::MCP_SERVERS_ENV, &mcp_servers).args([
                "test",
                "--locked",
                // One failing test file must not hide the others' results.
                "--no-fail-fast",
                "--package",
                "gatehouse-e2e",
                "--",
                "--test-threads=1",
            ]);
            let (ok, out) = run_captured(&mut cmd)?;
            Ok(cargo_test_counts(ok, &out))
        });
    }

    let totals = report.totals();
    println!("\nSummary ({:.0} s):", started.elapsed().as_secs_f64());
    for step in &report.steps {
        let mark = if step.counts.failed == 0 {
            "ok  "
        } else {
            "FAIL"
        };
        println!(
            "  {mark} {:<52} {:>4} passed {:>3} failed {:>7.1} s",
            step.name, step.counts.passed, step.counts.failed, step.seconds
        );
    }
    println!("{} passed, {} failed", totals.passed, totals.failed);
    Ok(if totals.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_lines_are_summed_and_build_errors_count_as_failures() {
        let out = "running 2 tests\ntest result: ok. 2 passed; 0 failed; 0 ignored\n\
                   test result: FAILED. 10 passed; 3 failed; 1 ignored\n";
        assert_eq!(
            cargo_test_counts(false, out),
            Counts {
                passed: 12,
                failed: 3
            }
        );
        assert_eq!(
            cargo_test_counts(false, "error[E0425]: cannot find value"),
            Counts {
                passed: 0,
                failed: 1
            }
        );
        assert_eq!(
            cargo_test_counts(true, ""),
            Counts {
                passed: 0,
                failed: 0
            }
        );
    }

    #[test]
    fn vitest_summary_is_read() {
        let out = " Test Files  1 failed | 3 passed (4)\n      Tests  2 failed | 40 passed (42)\n";
        assert_eq!(
            vitest_counts(false, out),
            Counts {
                passed: 40,
                failed: 2
            }
        );
        let out = "      Tests  7 passed (7)\n";
        assert_eq!(
            vitest_counts(true, out),
            Counts {
                passed: 7,
                failed: 0
            }
        );
    }
}
