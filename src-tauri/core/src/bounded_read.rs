//! Reading a small text file that somebody else wrote (a settings file, a
//! project's `.mcp.json`, an agent or skill definition), the one
//! implementation every crate uses.
//!
//! A cloned repository decides what those paths are: `.claude/settings.json`
//! may be a symlink to `/dev/zero` (git keeps symlinks), which a plain
//! `read_to_string` would read until memory runs out, or to a FIFO, which
//! would never answer. So only a regular file is read, and never more than
//! the caller's limit (a file that grows past it while being read is refused
//! too).

use std::fs;
use std::io::{self, Read};
use std::path::Path;

/// Why a text file was not read. Its `Display` completes "`<path>` …".
#[derive(Debug, thiserror::Error)]
pub enum ReadTextError {
    /// A device, a FIFO, a socket or a folder.
    #[error("is not a regular file (it is {0})")]
    NotAFile(&'static str),
    /// Larger than the caller allows.
    #[error("is {size} bytes; the limit is {limit}")]
    TooLarge {
        /// Bytes on disk (or read so far, for a file that grew).
        size: u64,
        /// The caller's limit.
        limit: u64,
    },
    /// Not UTF-8.
    #[error("is not UTF-8 text: {0}")]
    NotUtf8(std::string::FromUtf8Error),
    /// The file system refused (permissions, I/O).
    #[error("cannot be read: {0}")]
    Io(#[from] io::Error),
}

/// Reads `path` (following symlinks) as UTF-8 text of at most `limit`
/// bytes; `Ok(None)` when nothing is there (nor at a symlink's target).
pub fn read_text(path: &Path, limit: u64) -> Result<Option<String>, ReadTextError> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if !meta.is_file() {
        return Err(ReadTextError::NotAFile(kind(&meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadTextError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    let file = match fs::File::open(path) {
        Ok(file) => file,
        // Removed between the two calls: as if it had never been there.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    // `meta.len()` is a hint: the file may have grown since.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    let size = bytes.len() as u64;
    if size > limit {
        return Err(ReadTextError::TooLarge { size, limit });
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(ReadTextError::NotUtf8)
}

fn kind(file_type: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_file_within_the_limit_and_nothing_for_an_absent_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{}").unwrap();
        assert_eq!(read_text(&path, 2).unwrap().as_deref(), Some("{}"));
        assert!(
            read_text(&dir.path().join("absent.json"), 2)
                .unwrap()
                .is_none()
        );
        // A dangling symlink is an absent file too.
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(read_text(&dangling, 2).unwrap().is_none());
    }

    #[test]
    fn refuses_a_file_over_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{ }").unwrap();
        let err = read_text(&path, 2).unwrap_err();
        assert!(
            matches!(err, ReadTextError::TooLarge { size: 3, limit: 2 }),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "is 3 bytes; the limit is 2");
    }

    #[test]
    fn refuses_a_symlink_to_a_device_a_fifo_or_a_folder_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let err = read_text(&zero, 1 << 20).unwrap_err();
        assert_eq!(
            err.to_string(),
            "is not a regular file (it is a character device)"
        );
        // Opening a FIFO for reading waits for a writer: it is never opened.
        let fifo = dir.path().join("fifo.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            read_text(&fifo, 1 << 20),
            Err(ReadTextError::NotAFile("a FIFO"))
        ));
        assert!(matches!(
            read_text(dir.path(), 1 << 20),
            Err(ReadTextError::NotAFile("a folder"))
        ));
    }

    #[test]
    fn refuses_what_is_not_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        assert!(matches!(
            read_text(&path, 16),
            Err(ReadTextError::NotUtf8(_))
        ));
    }
}
