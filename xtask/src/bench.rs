//! `cargo xtask bench [GROUP…]`: every benchmark an issue asks for, built
//! in release mode, each printing its figures (medians, ratios against a
//! baseline run side by side, or criterion's estimates). Fails when one
//! misses its target.
//!
//! Adding a benchmark is one line in [`BENCHES`]: its group name, what it
//! measures, and the cargo arguments that run it.

use std::process::{Command, ExitCode};

use anyhow::bail;

/// One benchmark.
struct Bench {
    /// The name `cargo xtask bench GROUP` selects it by.
    group: &'static str,
    /// The cargo arguments that run it in a release profile (`bench …` or
    /// `run --release …`), separated by spaces.
    cargo: &'static str,
    /// Debian packages it compares against (installed when missing and
    /// root; without them the comparisons are skipped with a message).
    packages: &'static [&'static str],
    /// What it measures and its target, for `--help` and the log.
    what: &'static str,
    /// It drives the real window: the UI and the app (release) are built
    /// first and it runs with WebDriver on a display (see
    /// [`crate::run::webdriver_cargo`]).
    window: bool,
}

impl Bench {
    /// A cargo build the bench needs besides its own target: the sandbox's
    /// bench runs commands the way Bash does, under `gatehouse-sandbox-exec`
    /// (which `cargo run --example` does not build).
    fn prebuild(&self) -> Option<&'static str> {
        match self.group {
            "sandbox" => Some("build --release -p gatehouse-sandbox --bin gatehouse-sandbox-exec"),
            _ => None,
        }
    }
}

/// Every benchmark, in the order they run: one line each.
#[rustfmt::skip]
const BENCHES: &[Bench] = &[
    Bench { group: "tools", cargo: "bench -p gatehouse-tools --bench tools_vs_cli", packages: &["ripgrep", "fd-find"], what: "Grep vs rg (≤ 1.15×), Glob vs fdfind (≤ 1.3×), Read 10 MB vs head|cat -n (≤ 2×); warm and cold page cache (issue 5)", window: false },
    Bench { group: "bash", cargo: "run --release -p gatehouse-tools --example bash_bench", packages: &[], what: "Bash tool vs bash -c on 200 MB of output (≤ 1.5×, ≤ 64 MiB growth)", window: false },
    Bench { group: "sandbox", cargo: "run --release -p gatehouse-tools --example sandbox_bench", packages: &["bubblewrap"], what: "Bash sandbox cost through the Bash tool: median added time per `true` (≤ 10 ms) and 200 MB `yes | head -c` throughput, sandboxed vs plain (≤ 1.1×), with CPU time per run and the refusal trap's share (issue 24)", window: false },
    Bench { group: "permissions", cargo: "bench -p gatehouse-permissions --bench decide", packages: &[], what: "one decision with 10 vs 10,000 rules (criterion)", window: false },
    Bench { group: "core", cargo: "bench -p gatehouse-core --bench dispatch", packages: &[], what: "dispatch pipeline and streaming executor overhead (criterion)", window: false },
    Bench { group: "agent", cargo: "bench -p gatehouse-agent --bench turn_latency", packages: &[], what: "turn latency: 50 Read + 20 Grep, last reply byte to next request (≤ 110 ms; issue 7)", window: false },
    Bench { group: "subagent", cargo: "bench -p gatehouse-agent --bench subagent_start", packages: &[], what: "sub-agent start: Agent tool_use → the sub-agent's first model request, replay provider, median of 201 (issue 19)", window: false },
    Bench { group: "mcp", cargo: "bench -p gatehouse-mcp --bench echo", packages: &[], what: "1,000 server-everything echo calls through the pipeline vs direct rmcp (≤ 1.2×; issue 8)", window: false },
    Bench { group: "replay", cargo: "bench -p gatehouse-permissions --bench replay", packages: &[], what: "rule replay over 100,000 stored calls (< 5 s; issue 10)", window: false },
    Bench { group: "import", cargo: "bench -p gatehouse-transcripts --bench import", packages: &[], what: "Claude Code import: throughput and peak memory, 50 MB ×5 and 500 MB once (issue 11)", window: false },
    Bench { group: "ui", cargo: "bench -p gatehouse-e2e --bench open_session", packages: &[], what: "open a stored session in the real window: 100 vs 10,000 tool calls, resumed (click → last screen) and in the session browser's reader (click → first screen) (≤ 2×; issues 9, 11)", window: true },
    Bench { group: "app", cargo: "bench -p gatehouse-e2e --bench app_footprint", packages: &[], what: "app start-up (launch → first smoke round trip, ≤ 0.4 s) and PSS of the app and its WebKit processes after 10 s idle (≤ 150 MB), also with a 10,000-call session open; median of 5 (issue 23)", window: true },
    Bench { group: "hooks", cargo: "bench -p gatehouse-hooks --bench hooks", packages: &[], what: "added latency per call of one PreToolUse hook, median of 1,000: command `true` (≤ 3 ms) and http to a keep-alive 127.0.0.1 server (≤ 0.1 ms) vs no hooks (issue 18)", window: false },
    Bench { group: "toolsearch", cargo: "bench -p gatehouse-agent --bench toolsearch", packages: &[], what: "300 recorded MCP tools: first request bytes with vs without deferral, both provider forms (≥ 10× smaller); ToolSearch keyword query over 10,000 tools (median ≤ 1 ms; issue 21)", window: false },
    Bench { group: "webfetch", cargo: "bench -p gatehouse-tools --bench webfetch", packages: &[], what: "median WebFetch of a 100 KB local page through the pipeline (engine, SSRF guard, HTML → Markdown) vs a plain reqwest GET (issue 22)", window: false },
    Bench { group: "claude-code-hook", cargo: "bench -p gatehouse-cli --bench claude_code_hook", packages: &[], what: "median wall time of `gatehouse-cli claude-code hook` for a typical Bash call: PreToolUse with the window not running and running (≤ 15 ms), PermissionRequest answered over the socket and with no window (issue 25)", window: false },
    Bench { group: "scale", cargo: "bench -p gatehouse-transcripts --bench scale", packages: &[], what: "1,000,000 stored events: list and search latency (issue 11)", window: false },
];

/// The groups, for `--help`.
pub(crate) fn groups_help() -> String {
    let mut text = String::from("Benchmark groups to run (default: all):");
    for b in BENCHES {
        text.push_str(&format!("\n  {:<12} {}", b.group, b.what));
    }
    text
}

/// Runs the benchmarks of `groups` (all when empty) in release mode, one
/// after the other; fails when one misses its target or does not run.
pub(crate) fn bench(groups: &[String]) -> anyhow::Result<ExitCode> {
    let selected: Vec<&Bench> = if groups.is_empty() {
        BENCHES.iter().collect()
    } else {
        let mut selected = Vec::new();
        for g in groups {
            match BENCHES.iter().find(|b| b.group == g) {
                Some(b) => selected.push(b),
                None => bail!(
                    "unknown benchmark group {g:?}; the groups are: {}",
                    BENCHES
                        .iter()
                        .map(|b| b.group)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        selected
    };
    let mut failed = Vec::new();
    for b in &selected {
        println!("== {}: {}", b.group, b.what);
        if let Err(e) = crate::deps::ensure_debian_packages(b.packages) {
            eprintln!("xtask bench: {e:#}\n(the comparisons needing them are skipped)");
        }
        let mut cmd = if b.window {
            let root = crate::root();
            let mut packages = crate::deps::BUILD_PACKAGES.to_vec();
            packages.extend(crate::deps::TEST_PACKAGES);
            crate::deps::ensure_system_packages(&packages)?;
            crate::run::build_ui(&root)?;
            crate::run::webdriver_cargo(&root, crate::run::Profile::Release)?
        } else {
            let mut cmd = Command::new(env!("CARGO"));
            cmd.current_dir(crate::root());
            cmd
        };
        if let Some(first) = b.prebuild() {
            let mut build = Command::new(env!("CARGO"));
            build
                .current_dir(crate::root())
                .args(first.split_whitespace());
            if !crate::process::run_captured(&mut build)?.0 {
                failed.push(b.group);
                continue;
            }
        }
        let (ok, _) = crate::process::run_captured(cmd.args(b.cargo.split_whitespace()))?;
        if !ok {
            failed.push(b.group);
        }
    }
    Ok(if failed.is_empty() {
        println!(
            "xtask bench: {} group(s) ran, every target met",
            selected.len()
        );
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "xtask bench: missed a target or failed: {} (see above)",
            failed.join(", ")
        );
        ExitCode::FAILURE
    })
}
