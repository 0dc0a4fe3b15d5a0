//! What Glob and Grep share: the search root (the `path` given, else the
//! session's working directory), its permission subject, and ripgrep's
//! parallel, ignore-aware walk over the files below it, and the typed
//! results a front end lists.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::ProgressReporter;
use gatehouse_core::{ToolError, ToolUseContext};
use gatehouse_protocol::progress::{MAX_LISTED_SEARCH_ENTRIES, SearchUnit, ToolProgressData};
use ignore::{DirEntry, WalkBuilder, WalkState};
use tokio_util::sync::CancellationToken;

use crate::paths;

/// The most bytes of entries a `search_results` progress lists: a match in
/// a minified file is one very long line, and the event is stored.
const MAX_LISTED_SEARCH_BYTES: usize = 256 * 1024;

/// Reports a search's results as `search_results` progress: the `entries`
/// the model gets (at most [`MAX_LISTED_SEARCH_ENTRIES`] of them, and
/// [`MAX_LISTED_SEARCH_BYTES`], listed) and `count` in `unit`, so a front
/// end never reads the result's text.
pub(crate) fn report_results(
    progress: &ProgressReporter,
    unit: SearchUnit,
    count: u64,
    entries: &[String],
    truncated: bool,
) {
    let mut bytes = 0;
    let listed = entries
        .iter()
        .take(MAX_LISTED_SEARCH_ENTRIES)
        .take_while(|e| {
            bytes += e.len();
            bytes <= MAX_LISTED_SEARCH_BYTES
        })
        .count();
    progress.report(ToolProgressData::SearchResults {
        unit,
        count,
        entries: entries[..listed].to_vec(),
        more_entries: (entries.len() - listed) as u64,
        truncated,
    });
}

/// The directory a search without a `path` runs in: the context's working
/// directory, or an error saying that none is set.
fn default_root(ctx: &ToolUseContext) -> Result<&Path, ToolError> {
    if ctx.cwd.as_os_str().is_empty() {
        return Err(ToolError::invalid(
            "no `path` given and no working directory is set",
        ));
    }
    Ok(&ctx.cwd)
}

/// Resolves the search root: `path`, or the context's working directory,
/// canonicalised (it must exist).
pub(crate) fn search_root(path: Option<&str>, ctx: &ToolUseContext) -> Result<PathBuf, ToolError> {
    let raw = match path {
        Some(p) if !p.is_empty() => {
            paths::require_absolute("path", p)?;
            PathBuf::from(p)
        }
        _ => default_root(ctx)?.to_path_buf(),
    };
    raw.canonicalize()
        .map_err(|e| paths::io_error("search", &raw, e))
}

/// What permission rules match on for a search: the root it will really
/// search, canonicalised like every other path — `path` when given, else
/// the session's working directory, so a search without a `path` in a
/// denied folder is refused like one naming it. `None` only when there is
/// no working directory either (the call then fails validation-style in
/// [`search_root`] and nothing is searched).
pub(crate) fn search_subject(
    path: Option<&str>,
    ctx: &ToolUseContext,
) -> Option<PermissionSubject> {
    let root = match path {
        Some(p) if !p.is_empty() => paths::subject_path(p),
        _ => {
            let cwd = default_root(ctx).ok()?;
            paths::canonicalize_lenient(cwd).unwrap_or_else(|_| paths::normalize_lexically(cwd))
        }
    };
    Some(PermissionSubject::ReadPath(root))
}

/// The modification time of `path` itself (a symlink's own, as the walk
/// does not follow links). Only the mtime is asked for, without syncing
/// with a remote file system: `statx` fills nothing else.
pub(crate) fn modified(path: &Path) -> Option<SystemTime> {
    let stat = rustix::fs::statx(
        rustix::fs::CWD,
        path,
        rustix::fs::AtFlags::SYMLINK_NOFOLLOW | rustix::fs::AtFlags::STATX_DONT_SYNC,
        rustix::fs::StatxFlags::MTIME,
    )
    .ok()?;
    if stat.stx_mask & rustix::fs::StatxFlags::MTIME.bits() == 0 {
        return std::fs::symlink_metadata(path).ok()?.modified().ok();
    }
    let since_epoch = Duration::new(stat.stx_mtime.tv_sec.unsigned_abs(), stat.stx_mtime.tv_nsec);
    if stat.stx_mtime.tv_sec >= 0 {
        SystemTime::UNIX_EPOCH.checked_add(since_epoch)
    } else {
        SystemTime::UNIX_EPOCH.checked_sub(since_epoch)
    }
}

/// How many results a walker thread keeps before handing them over, so
/// threads rarely contend for the shared list.
const BATCH: usize = 256;

/// Walks the regular files `builder` yields on all threads (ripgrep's
/// parallel walker: `.gitignore`, `.ignore`, hidden-file rules) and returns
/// what `visit` made of each, in no particular order. Each walker thread
/// gets its own state from `init` (a searcher, a buffer). Entries that
/// cannot be read are skipped, as `rg` and `fd` do. The walk stops early
/// when `cancel` fires.
pub(crate) fn walk_files<T, S>(
    builder: &WalkBuilder,
    cancel: Option<&CancellationToken>,
    init: impl Fn() -> S + Sync,
    visit: impl Fn(&mut S, DirEntry) -> Option<T> + Sync,
) -> Vec<T>
where
    T: Send,
    S: Send,
{
    let found: Mutex<Vec<T>> = Mutex::new(Vec::new());
    builder.build_parallel().run(|| {
        let mut state = init();
        let mut batch = Batch {
            local: Vec::new(),
            sink: &found,
        };
        let visit = &visit;
        Box::new(move |entry| {
            if cancel.is_some_and(CancellationToken::is_cancelled) {
                return WalkState::Quit;
            }
            if let Ok(entry) = entry
                && entry.file_type().is_some_and(|t| t.is_file())
                && let Some(item) = visit(&mut state, entry)
            {
                batch.push(item);
            }
            WalkState::Continue
        })
    });
    found.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// One walker thread's results, appended to the shared list in batches
/// (and when the thread's visitor is dropped at the end of the walk).
struct Batch<'a, T> {
    local: Vec<T>,
    sink: &'a Mutex<Vec<T>>,
}

impl<T> Batch<'_, T> {
    fn push(&mut self, item: T) {
        self.local.push(item);
        if self.local.len() >= BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let mut all = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
        all.append(&mut self.local);
    }
}

impl<T> Drop for Batch<'_, T> {
    fn drop(&mut self) {
        if !self.local.is_empty() {
            self.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_without_path_is_about_the_canonical_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let ctx = ToolUseContext {
            cwd: link.join("."),
            ..ToolUseContext::default()
        };
        assert_eq!(
            search_subject(None, &ctx),
            Some(PermissionSubject::ReadPath(real.canonicalize().unwrap()))
        );
        assert_eq!(
            search_subject(Some(""), &ctx),
            search_subject(None, &ctx),
            "an empty path means the cwd, as in search_root"
        );
        assert_eq!(
            search_root(None, &ctx).unwrap(),
            real.canonicalize().unwrap()
        );
        let other = dir.path().join("other");
        assert_eq!(
            search_subject(Some(other.to_str().unwrap()), &ctx),
            Some(PermissionSubject::ReadPath(
                dir.path().canonicalize().unwrap().join("other")
            ))
        );
        assert_eq!(search_subject(None, &ToolUseContext::default()), None);
    }

    #[test]
    fn statx_gives_the_same_mtime_as_std() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let link = dir.path().join("l");
        std::os::unix::fs::symlink("missing-target", &link).unwrap();
        for p in [&file, &link] {
            let std_time = std::fs::symlink_metadata(p).unwrap().modified().unwrap();
            assert_eq!(modified(p), Some(std_time), "{}", p.display());
        }
        assert_eq!(modified(&dir.path().join("absent")), None);
    }
}
