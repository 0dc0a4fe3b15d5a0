//! `cargo xtask test`: every check, one summary line.
//!
//! Each step is run even when an earlier one failed, so one run shows every
//! problem. Test suites contribute their own pass/fail counts; a check (fmt,
//! clippy, lint, typecheck, stale types) counts as one test. The last line is
//! always `N passed, M failed, K skipped` (CI reads its start).
//!
//! Rust tests run with `GATEHOUSE_REQUIRE_ALL=1` (unless the caller set it):
//! a test whose tool, server or keychain is missing fails instead of
//! skipping, since this command installs them. Skips that remain (a test
//! that does not apply here, e.g. a container without kernel keyutils) are written by
//! `gatehouse-test-support` as files in `GATEHOUSE_SKIP_DIR`, counted and
//! listed.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::Context as _;
use clap::ValueEnum;

use crate::process::run_captured;
use crate::{deps, gen_types, package_test, run};

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
    /// The `.deb` of the debug build: lintian, apt-get install, launch from
    /// its desktop entry, `gatehouse-cli --version`, apt-get remove.
    Package,
}

/// Pass/fail/skip counts of one step.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    passed: u64,
    failed: u64,
    skipped: u64,
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
                failed: 1,
                ..Counts::default()
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
            skipped: acc.skipped + s.counts.skipped,
        })
    }
}

/// A check that passes or fails as a whole.
fn check(cmd: &mut Command) -> anyhow::Result<Counts> {
    let (ok, _) = run_captured(cmd)?;
    Ok(Counts {
        passed: u64::from(ok),
        failed: u64::from(!ok),
        skipped: 0,
    })
}

/// The variables `gatehouse-test-support` reads (see its documentation).
const REQUIRE_ALL_ENV: &str = "GATEHOUSE_REQUIRE_ALL";
const SKIP_DIR_ENV: &str = "GATEHOUSE_SKIP_DIR";

/// An empty folder for one step's skip files: `target/test-skips/<step>`.
fn skip_dir(root: &Path, step: &str) -> anyhow::Result<std::path::PathBuf> {
    let dir = root.join("target/test-skips").join(step);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("clearing {}", dir.display())),
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// Makes missing requirements fail and skips land in `dir`.
fn count_skips_in(cmd: &mut Command, dir: &Path) {
    if std::env::var_os(REQUIRE_ALL_ENV).is_none() {
        cmd.env(REQUIRE_ALL_ENV, "1");
    }
    cmd.env(SKIP_DIR_ENV, dir);
}

/// The skips recorded in `dir`, one line each (`<binary>::<test>: <reason>`), sorted.
pub(crate) fn read_skips(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut skips = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "skip") {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            skips.push(text.trim_end().to_owned());
        }
    }
    skips.sort();
    Ok(skips)
}

/// Adds the skips of `dir` to `counts`, listing them.
fn with_skips(mut counts: Counts, dir: &Path) -> anyhow::Result<Counts> {
    let skips = read_skips(dir)?;
    for skip in &skips {
        println!("skipped: {skip}");
    }
    counts.skipped = skips.len() as u64;
    Ok(counts)
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

/// The last line: `N passed, M failed, K skipped` (CI parses its start).
pub(crate) fn summary_line(totals: Counts) -> String {
    format!(
        "{} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.skipped
    )
}

/// Points the tests `cmd` runs at the pinned Claude Code
/// (`@anthropic-ai/claude-code@2.1.332`, installed from the lock file in
/// `xtask/claude-code` when missing: [`deps::ensure_claude_code`]), or
/// marks them skipped with `--skip-claude-code`. When the registry cannot
/// be reached the other tests still run; the Claude Code tests fail
/// (GATEHOUSE_REQUIRE_ALL) after this message.
fn with_claude_code(cmd: &mut Command, root: &Path, skip: bool) {
    if skip {
        cmd.env(deps::SKIP_CLAUDE_CODE_ENV, "1");
        return;
    }
    match deps::ensure_claude_code(root) {
        Ok(claude) => {
            cmd.env(deps::CLAUDE_CODE_ENV, claude);
        }
        Err(e) => eprintln!("xtask: {e:#}"),
    }
}

pub(crate) fn test(
    groups: &[Group],
    e2e_tests: &[String],
    skip_claude_code: bool,
) -> anyhow::Result<ExitCode> {
    let all = [
        Group::Lint,
        Group::Rust,
        Group::Ui,
        Group::E2e,
        Group::Package,
    ];
    let groups = if groups.is_empty() { &all[..] } else { groups };
    let wants = |g: Group| groups.contains(&g);
    let root = crate::root();
    let started = Instant::now();
    let mut report = Report::default();

    report.step("install missing dependencies and build the UI", || {
        let mut packages = deps::BUILD_PACKAGES.to_vec();
        packages.extend(deps::RUN_PACKAGES);
        packages.extend(deps::TEST_PACKAGES);
        deps::ensure_system_packages(&packages)?;
        run::build_ui(&root)?;
        Ok(Counts {
            passed: 1,
            ..Counts::default()
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
                skipped: 0,
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
            let skips = skip_dir(&root, "rust")?;
            let mut cmd = Command::new("dbus-run-session");
            count_skips_in(&mut cmd, &skips);
            // Real Claude Code guarded by Gatehouse (cli/tests/claude_code_real.rs).
            with_claude_code(&mut cmd, &root, skip_claude_code);
            cmd.current_dir(&root)
                .env(deps::MCP_SERVERS_ENV, &mcp_servers)
                .env("CARGO_TERM_COLOR", "never")
                .args(["--", "sh", "-c"])
                .arg(
                    "printf pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null \
                     && exec cargo test --workspace --locked --no-fail-fast --exclude gatehouse-e2e",
                );
            let (ok, out) = run_captured(&mut cmd)?;
            with_skips(cargo_test_counts(ok, &out), &skips)
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
            let skips = skip_dir(&root, "e2e")?;
            count_skips_in(&mut cmd, &skips);
            // The MCP sign-in test runs the Python SDK's OAuth server.
            let mcp_servers = deps::ensure_mcp_test_servers(&root)?;
            // Real Claude Code asking in the real window (claude_code_real.rs).
            with_claude_code(&mut cmd, &root, skip_claude_code);
            cmd.env(deps::MCP_SERVERS_ENV, &mcp_servers).args([
                "test",
                "--locked",
                // One failing test file must not hide the others' results.
                "--no-fail-fast",
                "--package",
                "gatehouse-e2e",
            ]);
            for name in e2e_tests {
                cmd.args(["--test", name]);
            }
            cmd.args(["--", "--test-threads=1"]);
            let (ok, out) = run_captured(&mut cmd)?;
            with_skips(cargo_test_counts(ok, &out), &skips)
        });
    }
    if wants(Group::Package) {
        report.step("package (.deb: lintian, install, launch, remove)", || {
            let checks = package_test::run(&root)?;
            Ok(Counts {
                passed: checks.passed,
                failed: checks.failed,
                skipped: 0,
            })
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
            "  {mark} {:<52} {:>4} passed {:>3} failed {:>3} skipped {:>7.1} s",
            step.name, step.counts.passed, step.counts.failed, step.counts.skipped, step.seconds
        );
    }
    println!("{}", summary_line(totals));
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
                failed: 3,
                skipped: 0
            }
        );
        assert_eq!(
            cargo_test_counts(false, "error[E0425]: cannot find value"),
            Counts {
                passed: 0,
                failed: 1,
                skipped: 0
            }
        );
        assert_eq!(cargo_test_counts(true, ""), Counts::default());
    }

    #[test]
    fn skips_are_read_from_their_files_and_end_the_summary_line() {
        let dir = std::env::temp_dir().join(format!("xtask-skips-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.1.0.skip"), "files::b: not applicable: root\n").unwrap();
        std::fs::write(dir.join("a.1.1.skip"), "keychain::a: no keyutils\n").unwrap();
        std::fs::write(dir.join("stray.txt"), "not a skip").unwrap();
        assert_eq!(
            read_skips(&dir).unwrap(),
            ["files::b: not applicable: root", "keychain::a: no keyutils"]
        );
        let counts = with_skips(
            Counts {
                passed: 10,
                failed: 1,
                skipped: 0,
            },
            &dir,
        )
        .unwrap();
        assert_eq!(summary_line(counts), "10 passed, 1 failed, 2 skipped");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn vitest_summary_is_read() {
        let out = " Test Files  1 failed | 3 passed (4)\n      Tests  2 failed | 40 passed (42)\n";
        assert_eq!(
            vitest_counts(false, out),
            Counts {
                passed: 40,
                failed: 2,
                skipped: 0
            }
        );
        let out = "      Tests  7 passed (7)\n";
        assert_eq!(
            vitest_counts(true, out),
            Counts {
                passed: 7,
                failed: 0,
                skipped: 0
            }
        );
    }
}
