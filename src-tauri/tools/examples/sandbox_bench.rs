//! The Bash sandbox's cost (issue 24 item 7), measured through the Bash
//! tool itself: the same tool runtime with the plain launcher and with the
//! sandbox launcher (bubblewrap, its seccomp filter and the refusal trap,
//! as the app runs it). Both sides spawn, read and store output the way
//! Bash does (its 1 MiB pipe, its reader thread, its output file), so the
//! only difference between them is the sandbox.
//!
//! `cargo xtask bench sandbox`, or
//! `cargo run --release -p gatehouse-tools --example sandbox_bench [-- BYTES]`
//! (after `cargo build --release -p gatehouse-sandbox --bin gatehouse-sandbox-exec`).
//! Exits with status 1 when a target is missed (≤ 10 ms added per
//! command, ≤ 1.1× on the median throughput of [`RUNS`] interleaved runs;
//! the best run is printed too, but the best of a side is its luckiest
//! placement of four busy threads on the cores, which moved plain's best
//! between 875 and 1640 MB/s from one run of this bench to the next on a
//! 2-core machine while the medians moved by ±4 %).
//!
//! Printed besides the targets:
//! - the refusal trap's own share (the same sandbox without
//!   `gatehouse-sandbox-exec`);
//! - the CPU time each 200 MB run costs (the whole machine's, from
//!   `/proc/stat`, so run it on a quiet machine): what the sandbox adds
//!   in work rather than in waiting (context switches count as work);
//! - whether the kernel's autogroup scheduling applies: bwrap's
//!   `--new-session` (item 1) puts a sandboxed command in a session of its
//!   own, and with autogroup on (and this process in the root CPU cgroup)
//!   the kernel then shares the CPU between that session and this process
//!   as two groups, which on a 2-core machine costs sandboxed commands
//!   about 3 % more (`src-tauri/sandbox/NOTES.md`, "Cost"). systemd ≥ 252
//!   puts a desktop's apps in CPU cgroups, where autogroup does not apply;
//! - the per-command figure again with [`RESIDENT_MB`] of memory touched
//!   first, as in the app (starting a process costs more there).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::events::{Emitter, EventSink, NullSink};
use gatehouse_core::testing::TestResolver;
use gatehouse_core::{CallStatus, ToolPool, ToolRuntime, ToolUseBlock, ToolUseContext};
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::progress::{BashSandboxUse, ToolProgressData};
use gatehouse_sandbox::{Sandbox, SandboxConfig, SandboxPolicy, find_bwrap};
use gatehouse_tools::bash::sandboxed::{BashSandbox, SandboxLauncher, SharedSandbox};
use gatehouse_tools::bash::{BashConfig, shell_tools};
use gatehouse_tools::tasks::TaskManager;
use tokio_util::sync::CancellationToken;

/// Commands timed for the per-command cost (odd, for a median).
const STARTS: usize = 101;
/// Throughput runs per side, interleaved (odd, for a median): with 15
/// the median ratio still moved by ±4 % between runs of the bench.
const RUNS: usize = 41;
/// Resident memory for the app-like measurement (the debug app holds
/// ≈ 38 MB of anonymous memory right after start, more with sessions).
const RESIDENT_MB: usize = 64;

/// Keeps how the last Bash call said it ran.
#[derive(Default)]
struct LastStart(std::sync::Mutex<Option<Option<BashSandboxUse>>>);

impl EventSink for LastStart {
    fn emit(&self, event: Event) {
        if let EventBody::ToolProgress {
            data: ToolProgressData::BashStarted { sandbox, .. },
            ..
        } = event.body
        {
            *self.0.lock().unwrap() = Some(sandbox);
        }
    }
}

/// One Bash tool: plain, or sandboxed with or without the refusal trap.
struct Side {
    name: &'static str,
    rt: Arc<ToolRuntime>,
    ctx: ToolUseContext,
    started: Arc<LastStart>,
    logs: PathBuf,
    /// What its calls must report (`None`: not sandboxed).
    expect_trap: Option<bool>,
    calls: usize,
}

impl Side {
    fn new(name: &'static str, base: &Path, cwd: &Path, sandbox: Option<Sandbox>) -> Self {
        let session = base.join(name);
        let logs = session.join("bash");
        let tasks = TaskManager::new(
            session.join("tasks"),
            Emitter::new(name, Arc::new(NullSink)),
        );
        let mut bash = BashConfig::new(logs.clone());
        let expect_trap = sandbox.as_ref().map(|s| s.helper().is_some());
        if let Some(sandbox) = sandbox {
            bash.sandbox = SharedSandbox::new(BashSandbox::On {
                launcher: Arc::new(SandboxLauncher::new(sandbox)),
                config: Arc::new(SandboxConfig {
                    enabled: true,
                    ..SandboxConfig::default()
                }),
            });
        }
        let started = Arc::new(LastStart::default());
        let rt = ToolRuntime::builder(
            Arc::new(ToolPool::new(shell_tools(tasks, bash))),
            // Allows everything: the bench measures running, not deciding.
            Arc::new(TestResolver::allow_all()),
            &session,
        )
        .session_id(name)
        .event_sink(started.clone())
        .build();
        let ctx = ToolUseContext {
            cwd: cwd.to_path_buf(),
            session_id: name.into(),
            ..ToolUseContext::default()
        };
        Self {
            name,
            rt,
            ctx,
            started,
            logs,
            expect_trap,
            calls: 0,
        }
    }

    /// Runs `command` through Bash: wall time, the machine's CPU time,
    /// bytes of output stored.
    async fn run(&mut self, command: &str) -> (Duration, Duration, u64) {
        self.calls += 1;
        let id = format!("{}-{}", self.name, self.calls);
        let cpu_before = cpu_time();
        let start = Instant::now();
        let result = self
            .rt
            .run_one(
                ToolUseBlock::new(
                    id.as_str(),
                    "Bash",
                    serde_json::json!({ "command": command, "timeout": 600_000 }),
                ),
                &mut self.ctx,
                &CancellationToken::new(),
            )
            .await;
        let wall = start.elapsed();
        let cpu = cpu_time().saturating_sub(cpu_before);
        assert_eq!(
            result.status,
            CallStatus::Succeeded,
            "{}: {command}: {}",
            self.name,
            result.text()
        );
        let how = self.started.0.lock().unwrap().take().expect("Bash started");
        match (self.expect_trap, how) {
            (None, None) => {}
            (
                Some(trap),
                Some(BashSandboxUse::Sandboxed {
                    reports_blocked_writes,
                    ..
                }),
            ) => assert_eq!(
                reports_blocked_writes, trap,
                "{}: the refusal trap",
                self.name
            ),
            (expected, got) => panic!("{}: expected sandbox {expected:?}, ran {got:?}", self.name),
        }
        let log = self.logs.join(format!("{id}.log"));
        let bytes = std::fs::metadata(&log).map_or(0, |m| m.len());
        let _ = std::fs::remove_file(&log);
        (wall, cpu, bytes)
    }
}

/// CPU time the whole machine spent busy so far (`/proc/stat`, all
/// processes): a sandboxed command's processes are not reaped by this one
/// (bwrap leaves its pid namespace's init to the system), so `getrusage`
/// would miss them. On a quiet machine the rest is noise.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    let line = stat.lines().next().unwrap();
    // user nice system idle iowait irq softirq steal …, in USER_HZ (100/s).
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|n| n.parse().unwrap())
        .collect();
    let busy: u64 = ticks
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| !matches!(i, 3 | 4))
        .map(|(_, t)| t)
        .sum();
    Duration::from_millis(busy * 10)
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[v.len() / 2]
}

fn best(v: &[Duration]) -> Duration {
    v.iter().copied().min().unwrap()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median `true` on each side, `starts` of each, interleaved.
async fn per_command(sides: &mut [Side], starts: usize) -> Vec<Duration> {
    let mut times = vec![Vec::new(); sides.len()];
    for _ in 0..starts {
        for (side, t) in sides.iter_mut().zip(&mut times) {
            t.push(side.run("true").await.0);
        }
    }
    times.iter().map(|t| median(t)).collect()
}

/// Prints `/proc/loadavg`'s three load averages.
fn load_average(when: &str) {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let three: Vec<&str> = text.split_whitespace().take(3).collect();
    println!("sandbox: load average {when}: {}", three.join(" "));
}

/// Whether the kernel's autogroup scheduling applies to this process: on
/// in the kernel and this process in the root CPU cgroup.
fn autogroup() -> String {
    let on = std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled")
        .map(|s| s.trim() == "1")
        .unwrap_or(false);
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    // cgroup v1 names the `cpu` controller; v2 has one `0::` line.
    let cpu_group = cgroup
        .lines()
        .find(|l| {
            l.split(':')
                .nth(1)
                .is_some_and(|c| c.split(',').any(|c| c == "cpu"))
        })
        .or_else(|| cgroup.lines().find(|l| l.starts_with("0::")))
        .and_then(|l| l.splitn(3, ':').nth(2))
        .unwrap_or("?")
        .to_owned();
    format!(
        "autogroup {} (kernel.sched_autogroup_enabled={}, CPU cgroup {cpu_group})",
        if on && cpu_group == "/" {
            "applies"
        } else {
            "does not apply"
        },
        u8::from(on)
    )
}

#[tokio::main]
async fn main() {
    let bytes: u64 = std::env::args()
        .nth(1)
        .map_or(200_000_000, |a| a.parse().expect("BYTES must be a number"));
    let bwrap = find_bwrap(std::env::var_os("PATH").as_deref())
        .unwrap_or_else(|e| panic!("the sandbox bench needs bubblewrap: {e}"));
    // The work folder is outside /tmp, which is private in the sandbox;
    // removed when `scratch` drops, at the end.
    let scratch = tempfile::Builder::new()
        .prefix("gatehouse-sandbox-bench-")
        .tempdir_in(std::env::current_dir().unwrap())
        .unwrap();
    let base: PathBuf = scratch.path().canonicalize().unwrap();
    let cwd = base.join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/root"), PathBuf::from);
    let sandbox = Sandbox::new(bwrap.clone(), SandboxPolicy::new(&home, None)).unwrap();
    assert!(
        sandbox.helper().is_some(),
        "the sandbox bench runs commands as Bash does, under gatehouse-sandbox-exec: \
         cargo build --release -p gatehouse-sandbox --bin gatehouse-sandbox-exec"
    );
    let untrapped = Sandbox::new(bwrap, SandboxPolicy::new(&home, None))
        .unwrap()
        .without_helper();
    let mut sides = [
        Side::new("plain", &base, &cwd, None),
        Side::new("sandboxed", &base, &cwd, Some(sandbox)),
        Side::new("untrapped", &base, &cwd, Some(untrapped)),
    ];
    // The figures move with the machine's load (2.5× between a quiet and
    // a busy 2-core machine, NOTES.md): say what it was.
    load_average("before");
    println!("sandbox: {}", autogroup());

    let starts = per_command(&mut sides, STARTS).await;
    let (plain, boxed, untrapped) = (starts[0], starts[1], starts[2]);
    let added = boxed.saturating_sub(plain);
    println!(
        "sandbox: Bash `true` median {:.2} ms plain, {:.2} ms sandboxed: +{:.2} ms per command (target ≤ 10 ms)",
        ms(plain),
        ms(boxed),
        ms(added)
    );
    println!(
        "sandbox: of which the refusal trap (gatehouse-sandbox-exec, its filter and socket): +{:.2} ms ({:.2} ms sandboxed without it)",
        ms(boxed.saturating_sub(untrapped)),
        ms(untrapped)
    );

    let script = format!("yes | head -c {bytes}");
    let mut wall = vec![Vec::new(); sides.len()];
    let mut cpu = vec![Vec::new(); sides.len()];
    for _ in 0..RUNS {
        for (i, side) in sides.iter_mut().enumerate() {
            let (w, c, n) = side.run(&script).await;
            assert_eq!(n, bytes, "{}: the whole output is stored", side.name);
            wall[i].push(w);
            cpu[i].push(c);
        }
    }
    let mb = bytes as f64 / 1e6;
    let rate = |d: Duration| mb / d.as_secs_f64();
    for (i, side) in sides.iter().enumerate() {
        println!(
            "sandbox: {mb:.0} MB of `yes | head -c` through Bash, {:>9}: best {:.0} MB/s, median {:.0} MB/s, CPU {:.0} ms per run (median)",
            side.name,
            rate(best(&wall[i])),
            rate(median(&wall[i])),
            ms(median(&cpu[i]))
        );
    }
    let ratio = |i: usize, f: fn(&[Duration]) -> Duration| {
        f(&wall[i]).as_secs_f64() / f(&wall[0]).as_secs_f64()
    };
    let cpu_ratio = |i: usize| median(&cpu[i]).as_secs_f64() / median(&cpu[0]).as_secs_f64();
    let median_ratio = ratio(1, median);
    println!(
        "sandbox: throughput sandboxed vs plain: {median_ratio:.3}× median of {RUNS} (target ≤ 1.1×), {:.3}× best; CPU per run {:.3}×",
        ratio(1, best),
        cpu_ratio(1)
    );
    println!(
        "sandbox: without the refusal trap: {:.3}× median, {:.3}× best; CPU per run {:.3}×",
        ratio(2, median),
        ratio(2, best),
        cpu_ratio(2)
    );

    // Touched, so it is resident (a fresh zeroed allocation is not).
    let mut resident = vec![0_u8; RESIDENT_MB << 20];
    for byte in resident.iter_mut().step_by(4096) {
        *byte = 1;
    }
    let starts = per_command(&mut sides[..2], STARTS).await;
    println!(
        "sandbox: with {RESIDENT_MB} MB resident (app-like): Bash `true` median {:.2} ms plain, {:.2} ms sandboxed: +{:.2} ms per command",
        ms(starts[0]),
        ms(starts[1]),
        ms(starts[1].saturating_sub(starts[0]))
    );
    drop(std::hint::black_box(resident));
    load_average("after");
    // `exit` runs no destructors.
    drop(sides);
    drop(scratch);
    if added > Duration::from_millis(10) || median_ratio > 1.1 {
        eprintln!("sandbox: a target was missed");
        std::process::exit(1);
    }
}
