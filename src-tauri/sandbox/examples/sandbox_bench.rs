//! The sandbox's cost (issue 24 item 7): the median added time of a
//! sandboxed `true` over a plain `bash -c true`, and the throughput of
//! `yes | head -c 200000000` read through a pipe, sandboxed vs plain.
//!
//! `cargo xtask bench sandbox`, or
//! `cargo run --release -p gatehouse-sandbox --example sandbox_bench [-- BYTES]`.
//! Exits with status 1 when a target is missed (≤ 10 ms added per
//! command, ≤ 1.1× on throughput).
//!
//! Then, for information, the per-command figure again with
//! [`RESIDENT_MB`] of memory touched first, as in the app (whose process
//! holds tens of MB of its own): starting a process costs more there when
//! it `fork`s (the page tables are copied) than when it is spawned.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use gatehouse_sandbox::blocked::RefusalWatch;
use gatehouse_sandbox::launch::Wrapped;
use gatehouse_sandbox::{Sandbox, SandboxPolicy, find_bwrap};
use tokio::io::AsyncReadExt;

/// Commands timed for the per-command cost (odd, for a median).
const STARTS: usize = 101;
/// Throughput runs per side; the best is kept.
const RUNS: usize = 11;
/// Resident memory for the app-like measurement (the debug app holds
/// ≈ 38 MB of anonymous memory right after start, more with sessions).
const RESIDENT_MB: usize = 64;

/// How a command runs: plain, or in the sandbox with or without the
/// refusal trap (Bash uses it whenever `gatehouse-sandbox-exec` is there).
#[derive(Clone, Copy)]
enum How<'a> {
    Plain,
    Sandboxed(&'a Sandbox),
    Trapped(&'a Sandbox, &'a RefusalWatch),
}

fn command(how: How<'_>, dir: &Path, script: &str) -> tokio::process::Command {
    let args = [OsStr::new("-c"), OsStr::new(script)];
    let (sandbox, writes) = match how {
        How::Plain => (None, None),
        How::Sandboxed(s) => (Some(s), None),
        How::Trapped(s, w) => (Some(s), Some(w)),
    };
    let mut cmd = match sandbox {
        Some(s) => s
            .command(&Wrapped {
                program: Path::new("/bin/bash"),
                args: &args,
                cwd: dir,
                env: &[],
                working_dirs: &[dir.to_path_buf()],
                writable_files: &[],
                proxy: None,
                writes,
            })
            .unwrap(),
        None => {
            let mut c = tokio::process::Command::new("/bin/bash");
            c.args(args).current_dir(dir);
            c
        }
    };
    cmd.stdin(Stdio::null()).stderr(Stdio::null());
    cmd
}

/// Runs `script` and reads its stdout to the end: elapsed time, bytes.
/// With `trap`, the call's refusal watch is started inside the timing, as
/// Bash starts one per call.
async fn timed(sandbox: Option<&Sandbox>, trap: bool, dir: &Path, script: &str) -> (Duration, u64) {
    let start = Instant::now();
    let watch = match (sandbox, trap) {
        (Some(s), true) => Some(
            s.watch_refusals()
                .unwrap()
                .expect("gatehouse-sandbox-exec is built"),
        ),
        _ => None,
    };
    let how = match (sandbox, &watch) {
        (None, _) => How::Plain,
        (Some(s), None) => How::Sandboxed(s),
        (Some(s), Some(w)) => How::Trapped(s, w),
    };
    let mut cmd = command(how, dir, script);
    cmd.stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    let mut out = child.stdout.take().unwrap();
    let mut buf = vec![0_u8; 1 << 20];
    let mut total = 0_u64;
    loop {
        let n = out.read(&mut buf).await.unwrap();
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    assert!(child.wait().await.unwrap().success(), "{script} failed");
    (start.elapsed(), total)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median `true` plain, sandboxed with the refusal trap (as Bash runs it)
/// and without, `starts` of each, interleaved.
async fn per_command(
    sandbox: &Sandbox,
    dir: &Path,
    starts: usize,
) -> (Duration, Duration, Duration) {
    let mut plain = Vec::new();
    let mut boxed = Vec::new();
    let mut untrapped = Vec::new();
    for _ in 0..starts {
        plain.push(timed(None, false, dir, "true").await.0);
        boxed.push(timed(Some(sandbox), true, dir, "true").await.0);
        untrapped.push(timed(Some(sandbox), false, dir, "true").await.0);
    }
    (median(plain), median(boxed), median(untrapped))
}

/// Prints `/proc/loadavg`'s three load averages.
fn load_average(when: &str) {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let three: Vec<&str> = text.split_whitespace().take(3).collect();
    println!("sandbox: load average {when}: {}", three.join(" "));
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let bytes: u64 = std::env::args()
        .nth(1)
        .map_or(200_000_000, |a| a.parse().expect("BYTES must be a number"));
    let bwrap = find_bwrap(std::env::var_os("PATH").as_deref())
        .unwrap_or_else(|e| panic!("the sandbox bench needs bubblewrap: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let dir: PathBuf = dir.path().canonicalize().unwrap();
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/root"), PathBuf::from);
    let sandbox = Sandbox::new(bwrap, SandboxPolicy::new(&home, None)).unwrap();
    // The figures move with the machine's load (2.5× between a quiet and
    // a busy 2-core machine, NOTES.md): say what it was.
    load_average("before");

    assert!(
        sandbox.helper().is_some(),
        "the sandbox bench runs commands as Bash does, under gatehouse-sandbox-exec: \
         cargo build --release -p gatehouse-sandbox --bin gatehouse-sandbox-exec"
    );
    let (plain, boxed, untrapped) = per_command(&sandbox, &dir, STARTS).await;
    let added = boxed.saturating_sub(plain);

    let script = format!("yes | head -c {bytes}");
    let mut plain_best = Duration::MAX;
    let mut boxed_best = Duration::MAX;
    for _ in 0..RUNS {
        let (t, n) = timed(None, false, &dir, &script).await;
        assert_eq!(n, bytes);
        plain_best = plain_best.min(t);
        let (t, n) = timed(Some(&sandbox), true, &dir, &script).await;
        assert_eq!(n, bytes);
        boxed_best = boxed_best.min(t);
    }
    let ratio = boxed_best.as_secs_f64() / plain_best.as_secs_f64();
    let mb = bytes as f64 / 1e6;
    println!(
        "sandbox: `true` median {:.2} ms plain, {:.2} ms sandboxed: +{:.2} ms per command (target ≤ 10 ms)",
        ms(plain),
        ms(boxed),
        ms(added)
    );
    println!(
        "sandbox: of which the refusal trap (gatehouse-sandbox-exec, its filter and socket): +{:.2} ms ({:.2} ms sandboxed without it)",
        ms(boxed.saturating_sub(untrapped)),
        ms(untrapped)
    );
    println!(
        "sandbox: {mb:.0} MB of `yes | head -c`: plain {:.0} MB/s, sandboxed {:.0} MB/s: {ratio:.3}× (target ≤ 1.1×)",
        mb / plain_best.as_secs_f64(),
        mb / boxed_best.as_secs_f64()
    );
    // Touched, so it is resident (a fresh zeroed allocation is not).
    let mut resident = vec![0_u8; RESIDENT_MB << 20];
    for byte in resident.iter_mut().step_by(4096) {
        *byte = 1;
    }
    let (plain_r, boxed_r, _) = per_command(&sandbox, &dir, STARTS).await;
    println!(
        "sandbox: with {RESIDENT_MB} MB resident (app-like): `true` median {:.2} ms plain, {:.2} ms sandboxed: +{:.2} ms per command",
        ms(plain_r),
        ms(boxed_r),
        ms(boxed_r.saturating_sub(plain_r))
    );
    drop(std::hint::black_box(resident));
    load_average("after");
    if added > Duration::from_millis(10) || ratio > 1.1 {
        eprintln!("sandbox: a target was missed");
        std::process::exit(1);
    }
}
