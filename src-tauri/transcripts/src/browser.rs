//! What the session browser asks of transcripts, in one place so the app's
//! handlers only map: the import panel's listing (each transcript with how
//! much of it is imported), importing a chosen subset with per-file results,
//! and exporting a session to a file.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use gatehouse_core::atomic_write::write_atomic_with;
use gatehouse_protocol::browser::{
    ClaudeDiscovery, DiscoveredTranscript, ExportFormat, ExportResult, ImportFileResult,
};
use gatehouse_store::Store;

use crate::claude::{self, ClaudeTranscript, ImportProgress};
use crate::{TranscriptError, html, jsonl};

/// Environment variable naming the home folder whose `.claude/projects`
/// the browser searches instead of `$HOME`'s (tests, other accounts).
pub const CLAUDE_HOME_ENV: &str = "GATEHOUSE_CLAUDE_HOME";

/// The home folder to search: `$GATEHOUSE_CLAUDE_HOME`, else `$HOME`.
pub fn claude_home() -> Result<PathBuf, TranscriptError> {
    [CLAUDE_HOME_ENV, "HOME"]
        .iter()
        .find_map(|name| std::env::var_os(name).filter(|v| !v.is_empty()))
        .map(PathBuf::from)
        .ok_or_else(|| TranscriptError::Invalid {
            path: PathBuf::from("~/.claude/projects"),
            message: format!(
                "neither {CLAUDE_HOME_ENV} nor HOME is set, so there is no home folder to search"
            ),
        })
}

/// The key an import is recorded under: the canonical path (the file
/// itself when it cannot be canonicalised, e.g. it was removed).
fn import_key(path: &str) -> String {
    Path::new(path)
        .canonicalize()
        .map_or_else(|_| path.to_owned(), |p| p.to_string_lossy().into_owned())
}

/// The transcripts under `<home>/.claude/projects`, each with the bytes
/// of it imported so far.
pub fn discover_with_status(
    store: &Store,
    home: &Path,
) -> Result<ClaudeDiscovery, TranscriptError> {
    let transcripts = claude::discover(home)?
        .into_iter()
        .map(|transcript| {
            let imported_bytes = store
                .import_record(&import_key(&transcript.path))?
                .map(|r| r.byte_offset);
            Ok(DiscoveredTranscript {
                transcript,
                imported_bytes,
            })
        })
        .collect::<Result<_, TranscriptError>>()?;
    Ok(ClaudeDiscovery {
        root: home.join(".claude").join("projects").display().to_string(),
        transcripts,
    })
}

/// Imports the transcripts under `home` whose paths are in `paths` (all of
/// them when `None`), calling `progress` with the transcript being read
/// after every batch. A path that is not a discovered transcript is
/// reported as that file's error; the others still run.
pub fn import_selected(
    store: &mut Store,
    home: &Path,
    paths: Option<&[String]>,
    mut progress: impl FnMut(&ClaudeTranscript, &ImportProgress),
) -> Result<Vec<ImportFileResult>, TranscriptError> {
    let found = claude::discover(home)?;
    let mut results = Vec::new();
    let chosen: Vec<ClaudeTranscript> = match paths {
        None => found,
        Some(paths) => {
            let mut chosen = Vec::new();
            for wanted in paths {
                let key = import_key(wanted);
                match found
                    .iter()
                    .find(|t| t.path == *wanted || import_key(&t.path) == key)
                {
                    Some(t) => chosen.push(t.clone()),
                    None => results.push(ImportFileResult {
                        path: wanted.clone(),
                        report: None,
                        error: Some(format!(
                            "{wanted} is not a Claude Code transcript under {}",
                            home.join(".claude").join("projects").display()
                        )),
                    }),
                }
            }
            chosen
        }
    };
    let reports = claude::import_transcripts(store, &chosen, |p| {
        if let Some(t) = chosen.iter().find(|t| t.path == p.path) {
            progress(t, p);
        }
    });
    for (transcript, report) in chosen.iter().zip(reports) {
        results.push(match report {
            Ok(report) => ImportFileResult {
                path: transcript.path.clone(),
                report: Some(report),
                error: None,
            },
            Err(e) => ImportFileResult {
                path: transcript.path.clone(),
                report: None,
                error: Some(e.to_string()),
            },
        });
    }
    Ok(results)
}

/// Writes stored session `id` to `path` as `format`, atomically (the shared
/// implementation: a temporary file beside it, renamed into place; an
/// existing file's permissions and a symlink are kept), so a failed export
/// never leaves half a file under the chosen name.
pub fn export_to_file(
    store: &Store,
    id: &str,
    format: ExportFormat,
    path: &Path,
) -> Result<ExportResult, TranscriptError> {
    // The export's own error (an unknown session, a store failure) is kept
    // as it is; the temp file's I/O errors come back from the write.
    let mut failure = None;
    let written = write_atomic_with(path, false, |file| {
        let mut out = BufWriter::new(file);
        let result = match format {
            ExportFormat::Jsonl => jsonl::export_jsonl(store, id, &mut out).map(drop),
            ExportFormat::Html => html::export_html(store, id, &mut out),
        };
        match result {
            Ok(()) => out.flush(),
            Err(e) => {
                let io = std::io::Error::other(e.to_string());
                failure = Some(e);
                Err(io)
            }
        }
    });
    if let Err(e) = written {
        return Err(failure.unwrap_or_else(|| TranscriptError::io(path, e.into())));
    }
    let bytes = std::fs::metadata(path)
        .map_err(|e| TranscriptError::io(path, e))?
        .len();
    Ok(ExportResult {
        path: path.display().to_string(),
        bytes,
    })
}
