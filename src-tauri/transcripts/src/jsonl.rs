//! Gatehouse JSONL: a session as one event per line, exactly as
//! `gatehouse-cli run` and `sessions show` print them, and importing such a
//! file back as a session.
//!
//! The file carries everything needed to re-create the session: its id
//! (every event's `session_id`), and its provider, model and project (the
//! `session_started` event). Events of types this build does not know (a
//! newer Gatehouse wrote them) are kept as `imported_entry` events; lines
//! that are not JSON objects, or that belong to another session, are
//! reported with their line number and skipped.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;

use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::session::SessionOrigin;
use gatehouse_protocol::upgrade::EventUpgrader;
use gatehouse_store::{
    EventRecord, ImportCheckpoint, NewSession, SessionProvenance, Store, validate_session_id,
};
use serde_json::Value;

use crate::TranscriptError;
use crate::lines::{Line, LineReader};
pub use gatehouse_protocol::transcript::{JsonlImportReport, LineProblem};

/// The `source` of `imported_entry` events kept from Gatehouse JSONL.
pub const SOURCE: &str = "gatehouse";

/// Events per transaction during an import.
const BATCH_EVENTS: usize = 2_000;

/// Writes session `id`'s events to `out`, one JSON object per line;
/// returns how many were written. Events are streamed from the database,
/// not loaded all at once.
pub fn export_jsonl(store: &Store, id: &str, out: &mut dyn Write) -> Result<u64, TranscriptError> {
    if store.session(id)?.is_none() {
        return Err(gatehouse_store::StoreError::Invalid(format!(
            "no stored session with id {id}"
        ))
        .into());
    }
    let mut written = 0;
    let mut failure = None;
    store.for_each_event(id, |event| {
        let result = serde_json::to_writer(&mut *out, &event)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"));
        if let Err(e) = result {
            failure.get_or_insert(e);
        } else {
            written += 1;
        }
        Ok(())
    })?;
    if let Some(e) = failure {
        return Err(TranscriptError::io(Path::new("<output>"), e));
    }
    Ok(written)
}

fn open_lines(path: &Path) -> Result<LineReader<BufReader<File>>, TranscriptError> {
    let file = File::open(path).map_err(|e| TranscriptError::io(path, e))?;
    Ok(LineReader::new(
        BufReader::with_capacity(256 * 1024, file),
        0,
        0,
    ))
}

/// What a `session_started` event says: provider, model, project.
type StartedWith = (String, String, String);

/// The session id of the file's first event, and its `session_started`
/// (provider, model, project) when it has one.
fn peek(path: &Path) -> Result<(Option<String>, Option<StartedWith>), TranscriptError> {
    let mut reader = open_lines(path)?;
    let mut id = None;
    while let Some(line) = reader
        .next_line()
        .map_err(|e| TranscriptError::io(path, e))?
    {
        let Line::Text(text) = line else { continue };
        let Ok(value) = serde_json::from_slice::<Value>(&text) else {
            continue;
        };
        if id.is_none() {
            id = value
                .get("session_id")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Ok(Event {
            body:
                EventBody::SessionStarted {
                    provider,
                    model,
                    project,
                    ..
                },
            ..
        }) = serde_json::from_value::<Event>(value)
        {
            return Ok((id, Some((provider, model, project))));
        }
        if reader.line > 1000 && id.is_some() {
            break;
        }
    }
    Ok((id, None))
}

/// Imports a Gatehouse JSONL file as a new session, under its own id or
/// `new_id`. Refuses an id that is already stored.
pub fn import_jsonl(
    store: &mut Store,
    path: &Path,
    new_id: Option<&str>,
) -> Result<JsonlImportReport, TranscriptError> {
    let invalid = |message: String| TranscriptError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let canonical = path
        .canonicalize()
        .map_err(|e| TranscriptError::io(path, e))?;
    let (file_id, started) = peek(&canonical)?;
    let Some(file_id) = file_id else {
        return Err(invalid(
            "no event with a session_id: this is not a Gatehouse JSONL export".into(),
        ));
    };
    let session_id = new_id.unwrap_or(&file_id).to_owned();
    validate_session_id(&session_id).map_err(|e| invalid(e.to_string()))?;
    if store.session(&session_id)?.is_some() {
        return Err(invalid(format!(
            "session {session_id} is already stored; import under another id (--as NEW_ID) \
             or delete it first"
        )));
    }
    let (provider, model, project) =
        started.unwrap_or_else(|| ("unknown".into(), String::new(), String::new()));
    let mut reader = open_lines(&canonical)?;
    let mut report = JsonlImportReport {
        path: path.to_string_lossy().into_owned(),
        session_id: session_id.clone(),
        events: 0,
        skipped_lines: 0,
        problems: Vec::new(),
    };
    let mut batch: Vec<EventRecord> = Vec::new();
    // A file exported by an earlier build holds its events' old shapes.
    let mut upgrader = EventUpgrader::new();
    let mut created = false;
    let key = canonical.to_string_lossy().into_owned();
    loop {
        let next = reader
            .next_line()
            .map_err(|e| TranscriptError::io(path, e))?;
        let Some(line) = next else { break };
        let line_no = reader.line;
        let problem = match line {
            Line::TooLong(len) => Some(format!("the line is {len} bytes, over the limit; skipped")),
            Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => None,
            Line::Text(text) => match serde_json::from_slice::<Value>(&text) {
                Ok(value) => match to_event(&mut upgrader, value, &file_id, &session_id, line_no) {
                    Ok(event) => {
                        batch.push(EventRecord { event, raw: None });
                        None
                    }
                    Err(message) => Some(message),
                },
                Err(e) => Some(format!("not valid JSON ({e}); skipped")),
            },
        };
        if let Some(message) = problem {
            report.skipped_lines += 1;
            if report.problems.len() < 100 {
                report.problems.push(LineProblem {
                    path: path.to_string_lossy().into_owned(),
                    line: line_no,
                    message,
                });
            }
        }
        if !created && let Some(first) = batch.first() {
            store.create_session_with(
                &NewSession {
                    id: session_id.clone(),
                    project_path: project.clone(),
                    provider: provider.clone(),
                    model: model.clone(),
                    mode: "default".into(),
                },
                &SessionProvenance {
                    origin: SessionOrigin::Gatehouse,
                    created_at_ms: Some(i64::try_from(first.event.ts_ms).unwrap_or(i64::MAX)),
                    parent_session_id: None,
                    source_path: Some(key.clone()),
                },
            )?;
            created = true;
        }
        if batch.len() >= BATCH_EVENTS {
            report.events += batch.len() as u64;
            append(store, &session_id, &mut batch, &key, &reader)?;
        }
    }
    if !created {
        return Err(invalid(
            "no line is a Gatehouse event; nothing was imported".into(),
        ));
    }
    report.events += batch.len() as u64;
    append(store, &session_id, &mut batch, &key, &reader)?;
    Ok(report)
}

fn append(
    store: &mut Store,
    session_id: &str,
    batch: &mut Vec<EventRecord>,
    key: &str,
    reader: &LineReader<BufReader<File>>,
) -> Result<(), TranscriptError> {
    store.append_batch(
        session_id,
        batch,
        Some(&ImportCheckpoint {
            path: key.to_owned(),
            byte_offset: reader.offset,
            line: reader.line,
            state: "{}".into(),
        }),
    )?;
    batch.clear();
    Ok(())
}

/// One line's value as an event of `session_id` (upgraded when an earlier
/// build wrote it).
fn to_event(
    upgrader: &mut EventUpgrader,
    value: Value,
    file_id: &str,
    session_id: &str,
    line: u64,
) -> Result<Event, String> {
    let Value::Object(map) = &value else {
        return Err("not a JSON object; skipped".into());
    };
    let line_session = map.get("session_id").and_then(Value::as_str);
    if line_session != Some(file_id) {
        return Err(format!(
            "the event belongs to session {}, not {file_id}; skipped",
            line_session.unwrap_or("(none)")
        ));
    }
    let ts_ms = map.get("ts_ms").and_then(Value::as_u64).unwrap_or(0);
    let entry_type = map
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned();
    let body = match upgrader.read_value(value.clone()) {
        Ok(event) => event.body,
        // A type (or shape) this build does not know: kept verbatim.
        Err(_) => EventBody::ImportedEntry {
            source: SOURCE.into(),
            entry_type,
            line,
            raw: value,
        },
    };
    Ok(Event {
        session_id: session_id.to_owned(),
        ts_ms,
        body,
    })
}
