//! Gatehouse's project commands, run as `cargo xtask …` (an alias in
//! `.cargo/config.toml`). A newcomer needs only two:
//!
//! * `cargo xtask run` — install what is missing, build the UI and the app,
//!   launch the window (`--smoke`: exit once the UI has talked to the backend);
//! * `cargo xtask test` — every check the project has, ending with one line
//!   `N passed, M failed`. `.ci/run` calls exactly this.

mod bench;
mod bundle;
mod deps;
mod fuzz;
mod gen_types;
mod package_test;
mod process;
mod run;
mod test;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Gatehouse's project commands.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Install what is missing, build the UI and the app, and launch it.
    Run {
        /// Exit 0 once the UI has loaded and made a round trip to the
        /// backend (non-zero with the reason otherwise). Starts a virtual X
        /// display when there is no display.
        #[arg(long)]
        smoke: bool,
    },
    /// Run every check: format, lints, Rust tests, UI checks and tests, and
    /// end-to-end tests in the real app window. Ends with `N passed, M failed`.
    Test {
        /// Run only these groups (default: all): lint, rust, ui, e2e, package.
        #[arg(value_enum)]
        groups: Vec<test::Group>,
        /// Run only these end-to-end test files (`tests/e2e/tests/<name>.rs`),
        /// e.g. `cargo xtask test e2e --e2e-test layout`.
        #[arg(long = "e2e-test", value_name = "NAME")]
        e2e_tests: Vec<String>,
        /// Do not install or run the real Claude Code (offline
        /// development): its tests are counted as skipped. CI does not use it.
        #[arg(long)]
        skip_claude_code: bool,
    },
    /// Build the Linux packages (`.deb` and `.rpm`) of the release build
    /// with Tauri's bundler, into `<target>/package/release/bundle/`.
    /// No AppImage: its tools are downloaded from GitHub at build time.
    Bundle {
        /// Package the debug build instead (quicker; what
        /// `cargo xtask test package` installs).
        #[arg(long)]
        debug: bool,
    },
    /// Regenerate ui/src/generated/protocol.ts from the Rust protocol crate.
    GenTypes {
        /// Do not write; fail if the checked-in file is stale.
        #[arg(long)]
        check: bool,
    },
    /// Run the performance benchmarks (release build), printing their
    /// figures; fails when one misses its target.
    Bench {
        /// Run only these groups (default: all); see `--help`.
        #[arg(long_help = bench::groups_help())]
        groups: Vec<String>,
    },
    /// Run the permission engine's cargo-fuzz targets (rule parser, settings
    /// loader, shell analyser) for a bounded time each. Needs a nightly
    /// toolchain; installs cargo-fuzz when missing. Exits non-zero and
    /// prints the artifact paths when an input crashed, hung or ran out of
    /// memory. Not part of `test`.
    Fuzz {
        /// Seconds each target runs.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Run only this target (repeatable): rule_parser, settings_loader,
        /// shell_analyser.
        #[arg(long = "target", value_name = "NAME")]
        targets: Vec<String>,
        /// The sanitizer to build with. `none` (default): the engine is safe
        /// Rust and the finds so far were panics, hangs and runaway memory,
        /// which need no sanitizer, and an uninstrumented build runs about
        /// twice as many inputs; `address` looks for memory errors in
        /// dependencies' unsafe code too.
        #[arg(long, default_value = "none", value_parser = ["none", "address", "leak", "memory", "thread"])]
        sanitizer: String,
    },
}

/// The repository root (the parent of this crate).
pub(crate) fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map_or(manifest.clone(), PathBuf::from)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { smoke } => run::run(smoke),
        Command::Test {
            groups,
            e2e_tests,
            skip_claude_code,
        } => test::test(&groups, &e2e_tests, skip_claude_code),
        Command::Bundle { debug } => bundle::bundle(debug),
        Command::GenTypes { check } => gen_types::gen_types(check),
        Command::Bench { groups } => bench::bench(&groups),
        Command::Fuzz {
            seconds,
            targets,
            sanitizer,
        } => fuzz::fuzz(&fuzz::FuzzOptions {
            seconds,
            targets,
            sanitizer,
        }),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
