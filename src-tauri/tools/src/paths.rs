//! Path checks shared by the file tools: absolute paths only, and every path
//! canonicalised (symlinks and `..` resolved) before permission checks and
//! use, so a rule about `/repo/src` cannot be dodged through a symlink.

use std::io;
use std::path::{Component, Path, PathBuf};

use gatehouse_core::ToolError;

/// Refuses a relative path with a validation error that says why.
pub fn require_absolute(field: &str, path: &str) -> Result<(), ToolError> {
    if path.is_empty() {
        return Err(ToolError::invalid(format!(
            "`{field}` is empty; it must be an absolute path"
        )));
    }
    if !Path::new(path).is_absolute() {
        return Err(ToolError::invalid(format!(
            "`{field}` must be an absolute path, not a relative one: {path}"
        )));
    }
    Ok(())
}

/// Removes `.` and resolves `..` without touching the file system.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The canonical form of `path`, which need not exist: the longest existing
/// ancestor is canonicalised (resolving symlinks) and the missing rest is
/// appended after lexical normalisation.
pub fn canonicalize_lenient(path: &Path) -> io::Result<PathBuf> {
    let normalized = normalize_lexically(path);
    let mut existing = normalized.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut canonical) => {
                for part in rest.iter().rev() {
                    canonical.push(part);
                }
                return Ok(canonical);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                match (existing.parent(), existing.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name);
                        existing = parent;
                    }
                    _ => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// The path rules match on: canonical when possible, else normalised.
pub fn subject_path(path: &str) -> PathBuf {
    let p = Path::new(path);
    canonicalize_lenient(p).unwrap_or_else(|_| normalize_lexically(p))
}

/// Checks that `path` is absolute and returns its canonical form, with an
/// error naming the path when it cannot be resolved.
pub fn resolve(field: &str, path: &str) -> Result<PathBuf, ToolError> {
    require_absolute(field, path)?;
    canonicalize_lenient(Path::new(path))
        .map_err(|e| ToolError::io(format!("cannot resolve {path}"), e))
}

/// Describes an I/O error on `path` in words a model can act on.
pub fn io_error(action: &str, path: &Path, e: io::Error) -> ToolError {
    let cause = match e.kind() {
        io::ErrorKind::NotFound => "it does not exist".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::IsADirectory => "it is a directory".to_owned(),
        io::ErrorKind::ReadOnlyFilesystem => "the file system is read-only".to_owned(),
        io::ErrorKind::StorageFull => "the disk is full".to_owned(),
        _ => e.to_string(),
    };
    ToolError::failed(format!("cannot {action} {}: {cause}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_refused_with_the_reason() {
        let err = require_absolute("file_path", "src/main.rs").unwrap_err();
        assert!(err.to_string().contains("must be an absolute path"));
        assert!(require_absolute("file_path", "").is_err());
        assert!(require_absolute("file_path", "/tmp/x").is_ok());
    }

    #[test]
    fn missing_tails_are_kept_and_symlinks_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let got = canonicalize_lenient(&link.join("a/../b/c.txt")).unwrap();
        assert_eq!(got, real.canonicalize().unwrap().join("b/c.txt"));
    }
}
