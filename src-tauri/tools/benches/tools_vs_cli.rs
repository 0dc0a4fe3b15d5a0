//! Grep vs `rg`, Glob vs `fdfind`, Read vs `head -n 2000 | cat -n`, side by
//! side: medians of several runs, warm page cache (the corpus is read once
//! before timing). Cold-cache runs would need dropping the machine's page
//! cache, which would disturb everything else running on it, so they are
//! not done here.
//!
//! Run: `cargo bench -p gatehouse-tools --bench tools_vs_cli`
//! Corpus: `$GATEHOUSE_BENCH_CORPUS`, else `~/.cargo/registry/src` (present
//! on every machine that has built the workspace). Runs per case:
//! `$GATEHOUSE_BENCH_RUNS` (default 9).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
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
/// too), so load from elsewhere on the machine hits both alike.
fn compare(
    runs: usize,
    mut ours: impl FnMut() -> usize,
    mut theirs: impl FnMut() -> usize,
) -> (Measured, Measured) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut na, mut nb) = (0, 0);
    for i in 0..runs {
        let mut run_ours = || {
            let t = Instant::now();
            na = ours();
            a.push(t.elapsed());
        };
        let mut run_theirs = || {
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

fn report(
    name: &str,
    ours: (Duration, usize),
    theirs: (Duration, usize),
    other: &str,
    target: f64,
) {
    let ratio = ours.0.as_secs_f64() / theirs.0.as_secs_f64();
    println!(
        "{name:<34} ours {:>9.2} ms ({:>6} lines)   {other:<22} {:>9.2} ms ({:>6} lines)   ratio {ratio:.2} (target ≤ {target})",
        ours.0.as_secs_f64() * 1e3,
        ours.1,
        theirs.0.as_secs_f64() * 1e3,
        theirs.1
    );
}

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    let corpus: PathBuf = std::env::var_os("GATEHOUSE_BENCH_CORPUS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo/registry/src")))
        .unwrap();
    let corpus = corpus.canonicalize().expect("the corpus directory exists");
    let runs: usize = std::env::var("GATEHOUSE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9);
    let c = corpus.to_str().unwrap();
    println!("corpus {c}, {runs} runs per case, medians, warm cache");

    if have("rg") {
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
            let (ours, theirs) = compare(
                runs,
                || {
                    grep(&input, &corpus, &CancellationToken::new())
                        .unwrap()
                        .entries
                        .len()
                },
                || cli("rg", &[flag, pattern, c]),
            );
            report(
                &format!("{label} /{pattern}/"),
                ours,
                theirs,
                &format!("rg {flag}"),
                1.15,
            );
        }
    } else {
        println!("skipped Grep: `rg` is not installed (Debian: ripgrep)");
    }

    if have("fdfind") {
        let (ours, theirs) = compare(
            runs,
            || glob(&corpus, "**/*.rs", Some(10_000)).unwrap().num_matches,
            || cli("fdfind", &["-g", "*.rs", c]),
        );
        report(
            "Glob **/*.rs (sorted by mtime)",
            ours,
            theirs,
            "fdfind -g '*.rs'",
            1.3,
        );
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
    let (ours, theirs) = compare(
        runs * 3,
        || match read(&state, &input).unwrap() {
            gatehouse_tools::read::ReadOutput::Text(t) => t.num_lines as usize,
            _ => 0,
        },
        || cli("sh", &["-c", &script]),
    );
    report(
        "Read 10 MB, limit 2000",
        ours,
        theirs,
        "head -n 2000 | cat -n",
        2.0,
    );
}
