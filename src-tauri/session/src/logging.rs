//! The process's log: `tracing` events of every crate go to
//! `<data dir>/logs/<program>.log.<date>`, one file per day, the last
//! [`KEPT_FILES`] kept (`tracing-appender`). Lines are written on the
//! appender's own thread through a bounded queue that drops lines rather
//! than block a caller when the disk is slow.
//!
//! What is logged is only what the code logs: no span or event in Gatehouse
//! carries a secret (API keys, header and env values, OAuth tokens are never
//! formatted: `ApiKey`'s `Debug`/`Display` print a placeholder), and this
//! module adds nothing (no environment, no arguments). The level is `info`,
//! or what `GATEHOUSE_LOG` says (`warn`, `debug`, `gatehouse_mcp=debug,info`).

use std::path::{Path, PathBuf};
use std::str::FromStr as _;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The variable that sets what is logged (a `tracing` targets filter).
pub const LOG_FILTER_ENV: &str = "GATEHOUSE_LOG";
/// How many daily files are kept.
pub const KEPT_FILES: usize = 7;
/// How many lines the queue to the writer thread holds before new lines are
/// dropped. `tracing-appender`'s default, 128,000, preallocates (and
/// touches) 4 MB at start — a third of the app's heap at idle (issue 23
/// item 6, measured with heaptrack); 4,096 lines (128 KB) is still far more
/// than the code logs in any burst.
pub const QUEUED_LINES: usize = 4096;

/// Keeps the log writer running; dropping it flushes what is queued.
#[must_use = "the log is flushed and closed when this is dropped"]
pub struct LogGuard {
    _worker: tracing_appender::non_blocking::WorkerGuard,
    /// The folder the log files are in.
    pub dir: PathBuf,
}

impl std::fmt::Debug for LogGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogGuard").field("dir", &self.dir).finish()
    }
}

/// The log folder of `data_dir`.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Installs the process-wide subscriber writing to `data_dir`'s
/// `logs/<program>.log.*`. Fails (saying why) when the folder cannot be
/// made, the filter does not parse, or a subscriber is already installed;
/// the caller then runs without a log.
pub fn init(data_dir: &Path, program: &str) -> Result<LogGuard, String> {
    let dir = log_dir(data_dir);
    let filter = match std::env::var(LOG_FILTER_ENV) {
        Ok(text) if !text.trim().is_empty() => Targets::from_str(&text)
            .map_err(|e| format!("{LOG_FILTER_ENV}={text:?} is not a log filter: {e}"))?,
        _ => Targets::new().with_default(tracing::Level::INFO),
    };
    // Made first: the appender prunes old files before it creates the
    // folder, and on a first run printed "Error reading the log
    // directory/files" to stderr (the CLI's contract).
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix(program)
        .filename_suffix("log")
        .max_log_files(KEPT_FILES)
        .build(&dir)
        .map_err(|e| format!("cannot write logs in {}: {e}", dir.display()))?;
    let (writer, worker) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(QUEUED_LINES)
        .lossy(true)
        .finish(appender);
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(writer)
                .with_ansi(false)
                .with_target(true),
        )
        .with(filter)
        .try_init()
        .map_err(|e| format!("a log subscriber is already installed: {e}"))?;
    Ok(LogGuard {
        _worker: worker,
        dir,
    })
}
