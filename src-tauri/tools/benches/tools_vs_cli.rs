//! Grep vs `rg`, Glob vs `fdfind`, Read vs `head -n 2000 | cat -n`, side by
//! side: medians of several runs, ours and theirs alternately (so load
//! from elsewhere on the machine hits both alike), with a warm page cache
//! (the corpus read once before timing) and a cold one.
//!
//! Cold means the corpus files' pages are evicted from the page cache
//! before every timed run (`posix_fadvise(DONTNEED)` on each file; no root
//! needed and nothing else on the machine is disturbed, unlike dropping
//! all caches). The kernel's directory and inode caches stay warm, so Glob,
//! which reads no file contents, measures the same cold as warm.
//!
//! Run: `cargo bench -p gatehouse-tools --bench tools_vs_cli` (or
//! `cargo xtask bench tools`). Corpus: `$GATEHOUSE_BENCH_CORPUS`, else
//! `~/.cargo/registry/src` (present on every machine that has built the
//! workspace). Runs per case: `$GATEHOUSE_BENCH_RUNS` warm (default 9) and
//! `$GATEHOUSE_BENCH_COLD_RUNS` cold (default 5; 0 skips the cold runs).
//! `$GATEHOUSE_BENCH_ONLY` (`grep`, `glob` or `read`) runs one kind of case.
//! Exits 1 when a warm ratio misses its target; cold ratios are reported
//! (they mostly measure the disk).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use gatehouse_tools::FileStateCache;
use gatehouse_tools::glob::glob;
use gatehouse_tools::grep::{GrepInput, OutputMode, grep};
use gatehouse_tools::read::{ReadInput, read};
use tokio_util::sync::CancellationToken;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

type Measured = (Duration, usize);

/// Times `ours` and `theirs` alternately (which goes first alternates
/// too), calling `before` ahead of every timed run (cache eviction).
fn compare(
    runs: usize,
    before: &dyn Fn(),
    mut ours: impl FnMut() -> usize,
    mut theirs: impl FnMut() -> usize,
) -> (Measured, Measured) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut na, mut nb) = (0, 0);
    for i in 0..runs {
        let mut run_ours = || {
            before();
            let t = Instant::now();
            na = ours();
            a.push(t.elapsed());
        };
        let mut run_theirs = || {
            before();
            let t = Instant::now();
            nb = theirs();
            b.push(t.elapsed());
        };
        if i % 2 == 0 {
            run_ours();
            run_theirs();
        } else {
            run_theirs();
            run_ours();
        }
    }
    ((median(a), na), (median(b), nb))
}

fn cli(program: &str, args: &[&str]) -> usize {
    let out = Command::new(program)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    out.stdout.iter().filter(|&&b| b == b'\n').count()
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Evicts the contents of every file under `root` from the page cache.
fn evict(root: &Path) {
    let walk = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .build();
    for entry in walk.flatten() {
        if entry.file_type().is_some_and(|t| t.is_file())
            && let Ok(file) = std::fs::File::open(entry.path())
        {
            let _ = rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed);
        }
    }
}

/// The results so far: every ratio and whether the warm ones met their
/// targets.
#[derive(Default)]
struct Report {
    missed: Vec<String>,
}

impl Report {
    fn line(
        &mut self,
        name: &str,
        cache: &str,
        ours: Measured,
        theirs: Measured,
        other: &str,
        target: f64,
    ) {
        let ratio = ours.0.as_secs_f64() / theirs.0.as_secs_f64();
        let verdict = match (ratio <= target, cache) {
            (true, _) => "ok",
            (false, "warm") => {
                self.missed.push(format!("{name} ({ratio:.2} > {target})"));
                "MISSED"
            }
            (false, _) => "over (cold: reported only)",
        };
        println!(
            "{name:<34} {cache:<4} ours {:>9.2} ms ({:>6} lines)   {other:<22} {:>9.2} ms ({:>6} lines)   ratio {ratio:.2} (target ≤ {target}) {verdict}",
            ours.0.as_secs_f64() * 1e3,
            ours.1,
            theirs.0.as_secs_f64() * 1e3,
            theirs.1
        );
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> ExitCode {
    // `cargo bench` passes `--bench`; ignore arguments.
    let corpus: PathBuf = std::env::var_os("GATEHOUSE_BENCH_CORPUS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo/registry/src")))
        .unwrap();
    let corpus = corpus.canonicalize().expect("the corpus directory exists");
    let warm_runs = env_usize("GATEHOUSE_BENCH_RUNS", 9);
    let cold_runs = env_usize("GATEHOUSE_BENCH_COLD_RUNS", 5);
    let c = corpus.to_str().unwrap();
    println!(
        "corpus {c}; medians of {warm_runs} warm and {cold_runs} cold runs per case, ours and theirs alternately"
    );
    let only = std::env::var("GATEHOUSE_BENCH_ONLY").unwrap_or_default();
    let wanted = |kind: &str| only.is_empty() || only == kind;
    let mut report = Report::default();
    let warm = || {};
    let cold = || evict(&corpus);
    let passes: Vec<(&str, usize, &dyn Fn())> = if cold_runs == 0 {
        vec![("warm", warm_runs, &warm)]
    } else {
        vec![("warm", warm_runs, &warm), ("cold", cold_runs, &cold)]
    };

    if !wanted("grep") {
    } else if have("rg") {
        // Warm the cache.
        cli("rg", &["-l", "zzzz_warmup_zzzz", c]);
        for (label, mode, pattern) in [
            (
                "Grep files_with_matches",
                OutputMode::FilesWithMatches,
                "fn main",
            ),
            ("Grep content -n", OutputMode::Content, "unsafe fn"),
            ("Grep count", OutputMode::Count, "TODO"),
        ] {
            let input = GrepInput {
                pattern: pattern.into(),
                output_mode: Some(mode),
                ..GrepInput::default()
            };
            let flag = match mode {
                OutputMode::FilesWithMatches => "-l",
                OutputMode::Content => "-n",
                OutputMode::Count => "-c",
            };
            for (cache, runs, before) in &passes {
                let (ours, theirs) = compare(
                    *runs,
                    *before,
                    || {
                        grep(&input, &corpus, &CancellationToken::new())
                            .unwrap()
                            .entries
                            .len()
                    },
                    || cli("rg", &[flag, pattern, c]),
                );
                report.line(
                    &format!("{label} /{pattern}/"),
                    cache,
                    ours,
                    theirs,
                    &format!("rg {flag}"),
                    1.15,
                );
            }
        }
    } else {
        println!("skipped Grep: `rg` is not installed (Debian: ripgrep)");
    }

    if !wanted("glob") {
    } else if have("fdfind") {
        for (label, limit) in [
            ("Glob **/*.rs, newest 10000", 10_000),
            ("Glob **/*.rs, newest 100", 100),
        ] {
            for (cache, runs, before) in &passes {
                let (ours, theirs) = compare(
                    *runs,
                    *before,
                    || glob(&corpus, "**/*.rs", Some(limit)).unwrap().num_matches,
                    || cli("fdfind", &["-g", "*.rs", c]),
                );
                report.line(label, cache, ours, theirs, "fdfind -g '*.rs'", 1.3);
            }
        }
    } else {
        println!("skipped Glob: `fdfind` is not installed (Debian: fd-find)");
    }

    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("ten_mb.txt");
    let line = "the quick brown fox jumps over the lazy dog, 0123456789 abcdefghij\n";
    let body = line.repeat(10 * 1024 * 1024 / line.len());
    std::fs::write(&big, body).unwrap();
    let state = FileStateCache::new();
    let input = ReadInput {
        file_path: big.to_str().unwrap().into(),
        offset: None,
        limit: Some(2000),
        pages: None,
    };
    let script = format!("head -n 2000 '{}' | cat -n", big.display());
    let evict_big = || evict(dir.path());
    let read_passes: Vec<(&str, usize, &dyn Fn())> = passes
        .iter()
        .map(|(cache, runs, _)| -> (&str, usize, &dyn Fn()) {
            if *cache == "warm" {
                (cache, runs * 3, &warm)
            } else {
                (cache, *runs, &evict_big)
            }
        })
        .collect();
    for (cache, runs, before) in read_passes.into_iter().filter(|_| wanted("read")) {
        let (ours, theirs) = compare(
            runs,
            before,
            || match read(&state, &input).unwrap() {
                gatehouse_tools::read::ReadOutput::Text(t) => t.num_lines as usize,
                _ => 0,
            },
            || cli("sh", &["-c", &script]),
        );
        report.line(
            "Read 10 MB, limit 2000",
            cache,
            ours,
            theirs,
            "head -n 2000 | cat -n",
            2.0,
        );
    }

    if report.missed.is_empty() {
        println!("tools_vs_cli: every warm target met");
        ExitCode::SUCCESS
    } else {
        println!("tools_vs_cli: MISSED {}", report.missed.join("; "));
        ExitCode::FAILURE
    }
}
