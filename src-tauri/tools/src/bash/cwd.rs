//! The shell's persistent working directory.
//!
//! A `cd` in one Bash call carries over to the next call of the same
//! session, but only inside the working directories (the session's cwd and
//! its additional directories, compared as canonical paths). The directory
//! the shell ended in is captured by an `EXIT` trap that writes `pwd -P` to
//! a side file — never by parsing the command's output.
//!
//! The shell state is the tool's own: the session's `ToolUseContext::cwd`
//! stays the project root that containment is measured against.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The environment variable carrying the command text into the wrapper.
pub const COMMAND_VAR: &str = "__GATEHOUSE_COMMAND";
/// The environment variable naming the file the final cwd is written to.
pub const CWD_FILE_VAR: &str = "__GATEHOUSE_CWD_FILE";

/// The script the shell runs: it takes the command from the environment
/// (so no quoting can go wrong), records the final directory on exit
/// (however the command exits) and keeps the command's exit status.
pub const WRAPPER: &str = concat!(
    "__gh_cmd=\"$__GATEHOUSE_COMMAND\"; unset __GATEHOUSE_COMMAND\n",
    "trap '__gh_status=$?; builtin pwd -P >| \"$__GATEHOUSE_CWD_FILE\" 2>/dev/null; exit $__gh_status' EXIT\n",
    "eval \"$__gh_cmd\"\n",
);

/// Each session's shell directory.
#[derive(Debug, Default)]
pub struct ShellDirs {
    by_session: Mutex<HashMap<String, PathBuf>>,
}

/// Where a command should start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartDir {
    /// The directory.
    pub dir: PathBuf,
    /// Set when the remembered directory was dropped, with why.
    pub reset_note: Option<String>,
}

impl ShellDirs {
    /// The directory the next command of `session` starts in: the
    /// remembered one if it still exists inside the working directories,
    /// else `root`.
    pub fn start_dir(&self, session: &str, root: &Path, roots: &[PathBuf]) -> StartDir {
        let remembered = self.lock().get(session).cloned();
        match remembered {
            None => StartDir {
                dir: root.to_path_buf(),
                reset_note: None,
            },
            Some(dir) if dir.is_dir() && contained(&dir, roots) => StartDir {
                dir,
                reset_note: None,
            },
            Some(dir) => {
                self.lock().remove(session);
                StartDir {
                    dir: root.to_path_buf(),
                    reset_note: Some(format!(
                        "The shell's working directory {} no longer exists or is outside the working directories; it was reset to {}.",
                        dir.display(),
                        root.display()
                    )),
                }
            }
        }
    }

    /// Records where a command of `session` ended (`reported` is the
    /// trailer's content). Returns a note when the directory was refused
    /// and the shell reset to `root`.
    pub fn record(
        &self,
        session: &str,
        reported: &str,
        root: &Path,
        roots: &[PathBuf],
    ) -> Option<String> {
        let reported = reported.trim_end_matches(['\n', '\r']);
        if reported.is_empty() {
            return None;
        }
        let dir = PathBuf::from(reported);
        let canonical = dir.canonicalize().unwrap_or(dir);
        if contained(&canonical, roots) {
            self.lock().insert(session.to_owned(), canonical);
            None
        } else {
            self.lock().remove(session);
            Some(format!(
                "The command changed directory to {}, which is outside the working directories; the shell's working directory was reset to {}.",
                canonical.display(),
                root.display()
            ))
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, PathBuf>> {
        self.by_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The canonical working directories: `cwd` first, then the additional ones
/// (those that don't exist are left out).
pub fn working_dirs(cwd: &Path, additional: &[PathBuf]) -> Vec<PathBuf> {
    std::iter::once(cwd)
        .chain(additional.iter().map(PathBuf::as_path))
        .filter_map(|p| p.canonicalize().ok())
        .collect()
}

/// Whether canonical `dir` is one of `roots` or below one (component-wise,
/// never by string prefix).
pub fn contained(dir: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| dir.starts_with(root))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn containment_is_by_component_not_prefix() {
        let roots = vec![PathBuf::from("/a/proj")];
        assert!(contained(Path::new("/a/proj"), &roots));
        assert!(contained(Path::new("/a/proj/src"), &roots));
        assert!(!contained(Path::new("/a/project"), &roots));
        assert!(!contained(Path::new("/a"), &roots));
    }

    #[test]
    fn directories_inside_are_remembered_and_outside_reset() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let roots = working_dirs(&root, &[]);
        let dirs = ShellDirs::default();
        let sub = root.join("sub");
        assert_eq!(
            dirs.record("s", &format!("{}\n", sub.display()), &root, &roots),
            None
        );
        assert_eq!(dirs.start_dir("s", &root, &roots).dir, sub);
        assert_eq!(dirs.start_dir("other", &root, &roots).dir, root);
        let note = dirs.record("s", "/", &root, &roots).unwrap();
        assert!(note.contains("outside the working directories"), "{note}");
        assert_eq!(dirs.start_dir("s", &root, &roots).dir, root);
    }
}
