//! Importing Claude Code transcripts (`~/.claude/projects/*/*.jsonl`).
//!
//! [`discover`] lists the transcripts under a home folder (sessions and
//! their sub-agents' transcripts, `<session>/subagents/*.jsonl`);
//! [`import_transcripts`] imports some of them. Imports are streamed (one
//! line in memory at a time, lines over [`crate::lines::MAX_LINE_BYTES`]
//! skipped), committed in batches together with a checkpoint (byte offset,
//! line number and the mapper's state), and incremental: importing a file
//! again reads only the lines added since. A file that shrank or whose
//! first bytes changed was replaced, and is imported afresh.
//!
//! Malformed lines are reported with their file and line number and
//! skipped; unknown entry types are kept as `imported_entry` events. Only
//! I/O and database failures stop an import.

mod live;
mod mapping;
mod patch;
mod subagent_link;

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::session::SessionOrigin;
use gatehouse_store::{
    EventRecord, ImportCheckpoint, NewSession, SessionProvenance, Store, validate_session_id,
};
use serde_json::Value;

pub use gatehouse_protocol::transcript::{
    ClaudeTranscript, ImportFileReport, ImportOutcome, ImportProgress, LineProblem,
};

use crate::TranscriptError;
use crate::lines::{Line, LineReader};
use mapping::{MapState, Mapper};

pub use live::LiveTranscript;
pub use mapping::SOURCE;

/// The entry of one line: `None` for a blank line, the problem (skipped)
/// when it is too long, not JSON or not an object.
fn entry_of(line: Line) -> Result<Option<Value>, String> {
    match line {
        Line::TooLong(len) => Err(format!(
            "the line is {len} bytes, over the {} byte limit; skipped",
            crate::lines::MAX_LINE_BYTES
        )),
        Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => Ok(None),
        Line::Text(text) => match serde_json::from_slice::<Value>(&text) {
            Ok(entry @ Value::Object(_)) => Ok(Some(entry)),
            Ok(_) => Err("not a JSON object; skipped".to_owned()),
            Err(e) => Err(format!("not valid JSON ({e}); skipped")),
        },
    }
}

/// Events per transaction during an import.
/// The prefix of the import-source key under which a guarded Claude Code
/// session's transcript is followed live (`gatehouse-session`'s
/// `claude_guard::tail`): the key is this and the file's canonical path.
pub const LIVE_SOURCE_PREFIX: &str = "claude-code-live:";

const BATCH_EVENTS: usize = 2_000;
/// Source bytes per transaction during an import.
const BATCH_BYTES: u64 = 8 * 1024 * 1024;
/// Bytes at the start of a file hashed to notice a replaced file.
const HEAD_BYTES: u64 = 4096;
/// Lines read to find a transcript's project folder and start time.
const PEEK_LINES: usize = 200;
/// Line problems kept per file (the rest are only counted).
const MAX_PROBLEMS: usize = 100;

/// Lists the transcripts under `<home>/.claude/projects`, sessions first
/// then sub-agents, each sorted by path. A missing folder lists nothing.
pub fn discover(home: &Path) -> Result<Vec<ClaudeTranscript>, TranscriptError> {
    let root = home.join(".claude").join("projects");
    let mut found = Vec::new();
    let read_dir = |dir: &Path| -> Result<Vec<PathBuf>, TranscriptError> {
        match std::fs::read_dir(dir) {
            Ok(entries) => {
                let mut paths: Vec<PathBuf> = entries
                    .map(|e| e.map(|e| e.path()))
                    .collect::<Result<_, _>>()
                    .map_err(|e| TranscriptError::io(dir, e))?;
                paths.sort();
                Ok(paths)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(TranscriptError::io(dir, e)),
        }
    };
    let is_jsonl = |p: &Path| p.is_file() && p.extension().is_some_and(|e| e == "jsonl");
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut agents = Vec::new();
    for project in read_dir(&root)?.into_iter().filter(|p| p.is_dir()) {
        let project_dir = project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for entry in read_dir(&project)? {
            if is_jsonl(&entry) {
                found.push(transcript(
                    &entry,
                    &project_dir,
                    format!("cc-{}", stem(&entry)),
                    None,
                )?);
            } else if entry.is_dir() {
                let parent = format!("cc-{}", stem(&entry));
                for agent in read_dir(&entry.join("subagents"))? {
                    if is_jsonl(&agent) {
                        agents.push(transcript(
                            &agent,
                            &project_dir,
                            format!("{parent}-{}", stem(&agent)),
                            Some(parent.clone()),
                        )?);
                    }
                }
            }
        }
    }
    found.extend(agents);
    Ok(found)
}

fn transcript(
    path: &Path,
    project_dir: &str,
    session_id: String,
    parent_session_id: Option<String>,
) -> Result<ClaudeTranscript, TranscriptError> {
    let size_bytes = std::fs::metadata(path)
        .map_err(|e| TranscriptError::io(path, e))?
        .len();
    Ok(ClaudeTranscript {
        path: path.to_string_lossy().into_owned(),
        project_dir: project_dir.to_owned(),
        session_id,
        parent_session_id,
        size_bytes,
    })
}

/// Imports `transcripts` (from [`discover`]) into `store`, calling
/// `progress` after every batch. One file's failure (I/O, a clashing
/// session id) is returned in its place and the others still run.
pub fn import_transcripts(
    store: &mut Store,
    transcripts: &[ClaudeTranscript],
    mut progress: impl FnMut(&ImportProgress),
) -> Vec<Result<ImportFileReport, TranscriptError>> {
    let bytes_total = transcripts.iter().map(|t| t.size_bytes).sum();
    let mut bytes_before = 0;
    let mut reports = Vec::with_capacity(transcripts.len());
    for (index, transcript) in transcripts.iter().enumerate() {
        let mut report_progress = |done_in_file: u64| {
            progress(&ImportProgress {
                path: transcript.path.clone(),
                files_done: index as u64,
                files_total: transcripts.len() as u64,
                bytes_done: bytes_before + done_in_file,
                bytes_total,
            });
        };
        reports.push(import_file(store, transcript, &mut report_progress));
        bytes_before += transcript.size_bytes;
    }
    progress(&ImportProgress {
        path: transcripts
            .last()
            .map(|t| t.path.clone())
            .unwrap_or_default(),
        files_done: transcripts.len() as u64,
        files_total: transcripts.len() as u64,
        bytes_done: bytes_total,
        bytes_total,
    });
    reports
}

fn head_hash(path: &Path, len: u64) -> Result<u64, TranscriptError> {
    let mut head = Vec::new();
    File::open(path)
        .and_then(|f| f.take(len).read_to_end(&mut head))
        .map_err(|e| TranscriptError::io(path, e))?;
    // Stable across releases (it is stored with the import's offset).
    Ok(gatehouse_core::stable_hash::fnv1a(&head))
}

/// The project folder (`cwd`) and start time of a transcript, from its
/// first lines.
fn peek(path: &Path) -> Result<(Option<String>, Option<u64>), TranscriptError> {
    let file = File::open(path).map_err(|e| TranscriptError::io(path, e))?;
    let mut reader = LineReader::new(BufReader::new(file), 0, 0);
    let (mut cwd, mut start) = (None, None);
    for _ in 0..PEEK_LINES {
        let Some(line) = reader
            .next_line()
            .map_err(|e| TranscriptError::io(path, e))?
        else {
            break;
        };
        let Line::Text(text) = line else { continue };
        let Ok(entry) = serde_json::from_slice::<Value>(&text) else {
            continue;
        };
        if start.is_none() {
            start = entry
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(mapping::parse_ts);
        }
        if cwd.is_none() {
            cwd = entry.get("cwd").and_then(Value::as_str).map(str::to_owned);
        }
        if cwd.is_some() && start.is_some() {
            break;
        }
    }
    Ok((cwd, start))
}

/// Imports one transcript (or its new lines), calling `progress` with the
/// bytes of this file read so far after every batch.
pub fn import_file(
    store: &mut Store,
    transcript: &ClaudeTranscript,
    progress: &mut dyn FnMut(u64),
) -> Result<ImportFileReport, TranscriptError> {
    let path = Path::new(&transcript.path);
    let canonical = path
        .canonicalize()
        .map_err(|e| TranscriptError::io(path, e))?;
    let key = canonical.to_string_lossy().into_owned();
    let size = std::fs::metadata(&canonical)
        .map_err(|e| TranscriptError::io(path, e))?
        .len();
    let mut outcome = ImportOutcome::Imported;
    let mut resume: Option<(String, u64, u64, MapState)> = None;
    if let Some(record) = store.import_record(&key)? {
        let state: MapState = serde_json::from_str(&record.state).unwrap_or_default();
        let replaced = size < record.byte_offset
            || state
                .head_hash
                .is_some_and(|h| head_hash(&canonical, state.head_len).ok() != Some(h));
        if replaced {
            store.delete_session(&record.session_id)?;
            outcome = ImportOutcome::Reimported;
        } else if size == record.byte_offset {
            return Ok(ImportFileReport {
                path: transcript.path.clone(),
                session_id: record.session_id,
                outcome: ImportOutcome::Unchanged,
                lines: 0,
                events: 0,
                skipped_lines: 0,
                problems: Vec::new(),
            });
        } else {
            outcome = ImportOutcome::Updated;
            resume = Some((record.session_id, record.byte_offset, record.line, state));
        }
    }
    let mut project = String::new();
    let (session_id, offset, line, state) = match resume {
        Some(resume) => resume,
        None => {
            // A guarded session already follows this file live.
            if let Some(live) = store.import_record(&format!("{LIVE_SOURCE_PREFIX}{key}"))? {
                return Ok(ImportFileReport {
                    path: transcript.path.clone(),
                    session_id: live.session_id,
                    outcome: ImportOutcome::FollowedLive,
                    lines: 0,
                    events: 0,
                    skipped_lines: 0,
                    problems: Vec::new(),
                });
            }
            let session_id = transcript.session_id.clone();
            validate_session_id(&session_id).map_err(|e| TranscriptError::Invalid {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
            if store.session(&session_id)?.is_some() {
                return Err(TranscriptError::Invalid {
                    path: path.to_path_buf(),
                    message: format!(
                        "session {session_id} is already stored from another file; \
                         delete it first to import this one"
                    ),
                });
            }
            let (cwd, start) = peek(&canonical)?;
            project = cwd.unwrap_or_else(|| transcript.project_dir.clone());
            store.create_session_with(
                &NewSession {
                    id: session_id.clone(),
                    project_path: project.clone(),
                    provider: SOURCE.into(),
                    model: String::new(),
                    mode: "default".into(),
                },
                &SessionProvenance {
                    origin: SessionOrigin::ClaudeCode,
                    created_at_ms: start.map(|s| i64::try_from(s).unwrap_or(i64::MAX)),
                    parent_session_id: transcript.parent_session_id.clone(),
                    source_path: Some(key.clone()),
                },
            )?;
            let head_len = size.min(HEAD_BYTES);
            let state = MapState {
                head_hash: Some(head_hash(&canonical, head_len)?),
                head_len,
                ..MapState::default()
            };
            (session_id, 0, 0, state)
        }
    };

    let mut file = File::open(&canonical).map_err(|e| TranscriptError::io(path, e))?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| TranscriptError::io(path, e))?;
    let mut reader = LineReader::new(BufReader::with_capacity(256 * 1024, file), offset, line);
    let had_model = state.model.is_some();
    let mut mapper = Mapper::new(&session_id, state);
    let mut report = ImportFileReport {
        path: transcript.path.clone(),
        session_id: session_id.clone(),
        outcome,
        lines: 0,
        events: 0,
        skipped_lines: 0,
        problems: Vec::new(),
    };
    let mut batch: Vec<EventRecord> = Vec::new();
    if offset == 0 {
        // The imported session begins like a live one.
        batch.push(EventRecord {
            event: Event {
                session_id: session_id.clone(),
                ts_ms: 0,
                body: EventBody::SessionStarted {
                    provider: SOURCE.into(),
                    model: String::new(),
                    project,
                    resumed: false,
                },
            },
            raw: None,
        });
    }
    let mut batch_start = offset;
    let mut model_stored = had_model;
    let commit = |store: &mut Store,
                  mapper: &Mapper,
                  batch: &mut Vec<EventRecord>,
                  reader_offset: u64,
                  reader_line: u64|
     -> Result<u64, TranscriptError> {
        let state = serde_json::to_string(&mapper.state).map_err(|e| TranscriptError::Invalid {
            path: path.to_path_buf(),
            message: format!("the import state cannot be saved: {e}"),
        })?;
        store.append_batch(
            &session_id,
            batch,
            Some(&ImportCheckpoint {
                path: key.clone(),
                byte_offset: reader_offset,
                line: reader_line,
                state,
            }),
        )?;
        let n = batch.len() as u64;
        batch.clear();
        Ok(n)
    };
    loop {
        let next = reader
            .next_line()
            .map_err(|e| TranscriptError::io(path, e))?;
        let Some(line) = next else { break };
        report.lines += 1;
        let line_no = reader.line;
        let problem = match entry_of(line) {
            Ok(Some(entry)) => {
                mapper.map_entry(line_no, entry, &mut batch);
                None
            }
            Ok(None) => None,
            Err(problem) => Some(problem),
        };
        if let Some(message) = problem {
            report.skipped_lines += 1;
            if report.problems.len() < MAX_PROBLEMS {
                report.problems.push(LineProblem {
                    path: transcript.path.clone(),
                    line: line_no,
                    message,
                });
            }
        }
        if !model_stored && let Some(model) = &mapper.state.model {
            store.set_session_model(&session_id, model)?;
            model_stored = true;
        }
        if batch.len() >= BATCH_EVENTS || reader.offset - batch_start >= BATCH_BYTES {
            fix_start_time(&mut batch, &mapper);
            report.events += commit(store, &mapper, &mut batch, reader.offset, reader.line)?;
            batch_start = reader.offset;
            progress(reader.offset - offset);
        }
    }
    mapper.flush_message(&mut batch);
    fix_start_time(&mut batch, &mapper);
    report.events += commit(store, &mapper, &mut batch, reader.offset, reader.line)?;
    progress(reader.offset - offset);
    Ok(report)
}

/// Gives the synthetic `session_started` (and any event before the first
/// timestamped entry) the time of the first entry that had one, and fills
/// in what `session_started` could not know at the start.
fn fix_start_time(batch: &mut [EventRecord], mapper: &Mapper) {
    let first_ts = batch
        .iter()
        .map(|r| r.event.ts_ms)
        .find(|&t| t > 0)
        .unwrap_or(mapper.state.last_ts_ms);
    for record in batch.iter_mut() {
        if record.event.ts_ms == 0 {
            record.event.ts_ms = first_ts;
        }
        if let EventBody::SessionStarted { model, .. } = &mut record.event.body
            && model.is_empty()
            && let Some(known) = &mapper.state.model
        {
            model.clone_from(known);
        }
    }
}
