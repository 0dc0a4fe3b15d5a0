//! `cargo xtask fuzz`: runs each cargo-fuzz target of the permission engine
//! for a bounded time. Not part of `cargo xtask test` (it needs a nightly
//! toolchain and minutes of CPU).
//!
//! cargo-fuzz is installed with `cargo install cargo-fuzz` when missing; the
//! nightly toolchain must already be there (it cannot be installed from
//! here: `rustup toolchain install nightly` is the user's call). A target
//! that finds a crash, a hang or an out-of-memory input leaves it under
//! `src-tauri/permissions/fuzz/artifacts/<target>/`; its path is printed
//! and the command exits non-zero.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, bail};

use crate::process::{run_captured, run_checked, succeeds};

/// The fuzz targets, in the order they run (see `src-tauri/permissions/fuzz`).
pub(crate) const TARGETS: &[&str] = &["rule_parser", "settings_loader", "shell_analyser"];

/// Options of one `cargo xtask fuzz` run.
#[derive(Debug, Clone)]
pub(crate) struct FuzzOptions {
    /// Seconds each target runs.
    pub seconds: u64,
    /// Only these targets (all when empty).
    pub targets: Vec<String>,
    /// The sanitizer cargo-fuzz builds with (`none`, `address`, …).
    pub sanitizer: String,
}

fn fuzz_dir() -> PathBuf {
    crate::root().join("src-tauri/permissions/fuzz")
}

/// Whether a nightly toolchain is installed (cargo-fuzz needs one).
fn has_nightly() -> anyhow::Result<bool> {
    let out = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .context("running `rustup toolchain list` (is rustup installed?)")?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|line| line.starts_with("nightly")))
}

fn ensure_cargo_fuzz() -> anyhow::Result<()> {
    if succeeds(Command::new("cargo").args(["fuzz", "--version"])) {
        return Ok(());
    }
    eprintln!("xtask: installing cargo-fuzz (cargo install cargo-fuzz, ~1 min)");
    run_checked(Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]))
}

/// Every file under `dir` (recursively), for spotting new artifacts.
fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.insert(path);
            }
        }
    }
    out
}

/// Strings found under `key` anywhere in `value` (arrays are searched).
fn strings_under(value: &serde_json::Value, key: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                if k == key {
                    collect_leaves(v, out);
                } else {
                    strings_under(v, key, out);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings_under(v, key, out)),
        _ => {}
    }
}

/// Strings (or, for objects, their JSON text) of `value` and its arrays.
fn collect_leaves(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_leaves(v, out)),
        other => out.push(other.to_string()),
    }
}

/// Seeds the corpus of `target` with the inputs of the conformance suite
/// (commands, rules, settings files), so even a one-minute run starts from
/// realistic inputs instead of growing them from nothing. Idempotent.
fn seed_corpus(target: &str, corpus: &Path) -> anyhow::Result<usize> {
    let cases = crate::root().join("src-tauri/permissions/tests/conformance");
    let mut seeds = Vec::new();
    for entry in std::fs::read_dir(&cases)
        .with_context(|| format!("reading {}", cases.display()))?
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let doc: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?;
        match target {
            "shell_analyser" => strings_under(&doc, "command", &mut seeds),
            "rule_parser" => {
                for key in [
                    "allow",
                    "deny",
                    "ask",
                    "session_allow",
                    "session_deny",
                    "flag_deny",
                ] {
                    strings_under(&doc, key, &mut seeds);
                }
            }
            _ => {
                for key in ["user", "project", "local", "policy", "flag"] {
                    strings_under(&doc, key, &mut seeds);
                }
            }
        }
    }
    seeds.sort();
    seeds.dedup();
    for (i, seed) in seeds.iter().enumerate() {
        let file = corpus.join(format!("seed-conformance-{i:04}"));
        std::fs::write(&file, seed).with_context(|| format!("writing {}", file.display()))?;
    }
    Ok(seeds.len())
}

/// Builds and runs every selected target for `options.seconds` seconds.
pub(crate) fn fuzz(options: &FuzzOptions) -> anyhow::Result<ExitCode> {
    if !has_nightly()? {
        bail!(
            "cargo-fuzz needs a nightly Rust toolchain and none is installed \
             (`rustup toolchain list` shows no `nightly-…`); install one with \
             `rustup toolchain install nightly` and run this again"
        );
    }
    ensure_cargo_fuzz()?;
    for t in &options.targets {
        if !TARGETS.contains(&t.as_str()) {
            bail!(
                "unknown fuzz target `{t}`; the targets are {}",
                TARGETS.join(", ")
            );
        }
    }
    let selected: Vec<&str> = TARGETS
        .iter()
        .copied()
        .filter(|t| options.targets.is_empty() || options.targets.iter().any(|s| s == t))
        .collect();
    let dir = fuzz_dir();
    let artifacts = dir.join("artifacts");
    let mut findings = Vec::new();
    for target in selected {
        let before = files_under(&artifacts);
        let corpus = dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus)
            .with_context(|| format!("creating the corpus folder of {target}"))?;
        let seeded = seed_corpus(target, &corpus)?;
        println!("xtask fuzz: {target}: {seeded} seed inputs from the conformance suite");
        // `-timeout=3`: hangs are the dangerous finds (the parser runs on
        // the calling thread under the `fuzzing` feature, so a hang is a
        // libFuzzer timeout). `-max_len=512`: every bug found so far fit in
        // far less. `-len_control=0`: use that length from the start — by
        // default libFuzzer grows it slowly and a one-minute run never
        // tried inputs longer than 14 bytes.
        let (ok, output) = run_captured(
            Command::new("cargo")
                .current_dir(dir.parent().unwrap_or(&dir))
                .args(["+nightly", "fuzz", "run", "--sanitizer"])
                .arg(&options.sanitizer)
                .arg(target)
                .arg("--")
                .arg(format!("-max_total_time={}", options.seconds))
                .args([
                    "-timeout=3",
                    "-max_len=512",
                    "-len_control=0",
                    "-rss_limit_mb=2048",
                ]),
        )?;
        let new: Vec<PathBuf> = files_under(&artifacts)
            .difference(&before)
            .cloned()
            .collect();
        if !ok || !new.is_empty() {
            let summary = output
                .lines()
                .rev()
                .find(|l| l.contains("Done ") && l.contains(" runs in "))
                .unwrap_or("stopped early");
            findings.push((target, new, summary.to_owned()));
        } else if let Some(done) = output
            .lines()
            .rev()
            .find(|l| l.contains("Done ") && l.contains(" runs in "))
        {
            println!("xtask fuzz: {target}: nothing found ({})", done.trim());
        }
    }
    if findings.is_empty() {
        println!("xtask fuzz: no crashes, hangs or out-of-memory inputs found");
        return Ok(ExitCode::SUCCESS);
    }
    for (target, new, summary) in &findings {
        eprintln!("xtask fuzz: {target} failed ({summary})");
        for artifact in new {
            eprintln!("  artifact: {}", artifact.display());
        }
        if new.is_empty() {
            eprintln!("  (no artifact written: the build or the run itself failed, see above)");
        }
    }
    eprintln!(
        "Reproduce one with `cd src-tauri/permissions && cargo +nightly fuzz run --sanitizer {} \
         TARGET ARTIFACT`, print it with `cargo +nightly fuzz fmt TARGET ARTIFACT`, then add it \
         to `fuzz_regressions` in src-tauri/permissions/tests/robustness.rs and fix or refuse it \
         (see the Fuzzing section of src-tauri/permissions/NOTES.md).",
        options.sanitizer
    );
    Ok(ExitCode::FAILURE)
}
