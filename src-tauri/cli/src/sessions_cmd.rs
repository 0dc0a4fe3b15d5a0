//! `gatehouse-cli sessions …`: list, show, search, import, export and
//! housekeeping of stored sessions.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use gatehouse_protocol::session::{
    ListSessionsArgs, SearchSessionsArgs, SessionOrigin, SessionSort,
};
use gatehouse_store::Store;
use gatehouse_transcripts::{claude, html, jsonl};
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Print sessions as one JSON object per line, most recently active
    /// first: {"id","project_path","provider","model","mode","status","title",
    /// "created_at_ms","updated_at_ms","event_count","origin","duration_ms",
    /// "tool_calls","asks","denials","errors","input_tokens","output_tokens",
    /// "parent_session_id","source_path","end_reason"}.
    List(ListArgs),
    /// Print a session's events as JSON lines, exactly as `run` printed them
    /// (with --summary: its summary as one JSON object, as `list` prints it).
    Show {
        /// The session id.
        id: String,
        /// Print the summary instead of the events.
        #[arg(long)]
        summary: bool,
    },
    /// Print a replay script (JSON) that re-runs a stored session's model
    /// replies: `run --provider replay --script FILE` plays it.
    Script {
        /// The session id.
        id: String,
    },
    /// Full-text search (SQLite FTS5 syntax) over prompts, replies and
    /// thinking, tool calls, results and errors; prints
    /// {"session_id","seq","type","snippet","session_title","project_path",
    /// "tool_name"} per match, best first. `seq` is the matching event's
    /// position in the session (what to jump to); matches are in [ ].
    /// A query that is not valid FTS5 syntax (`TODO-4917`, `rm(`) is searched
    /// as plain words instead, with a note saying so on stderr.
    Search {
        /// The query.
        query: String,
        /// At most this many matches.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Search for the words as typed (no FTS5 operators or syntax errors).
        #[arg(long)]
        literal: bool,
        /// Only sessions of this project folder.
        #[arg(long)]
        project: Option<PathBuf>,
        /// Only this session.
        #[arg(long)]
        session: Option<String>,
    },
    /// Import Claude Code transcripts from HOME/.claude/projects (sessions
    /// and sub-agents), all of them or those named; prints one JSON object
    /// per file: {"path","session_id","outcome","lines","events",
    /// "skipped_lines","problems"} (outcome imported|updated|unchanged|
    /// reimported|followed_live — the last for a guarded Claude Code
    /// session's transcript, recorded live under session_id and not imported
    /// again; problems: [{"path","line","message"}] for malformed lines,
    /// which are skipped). Re-running reads only lines added since. Exit 1
    /// when a file failed ({"path","error"} is printed for it).
    ImportClaude {
        /// The home folder holding .claude (default: $HOME).
        #[arg(long)]
        home: Option<PathBuf>,
        /// Only list what was found: {"path","project_dir","session_id",
        /// "parent_session_id","size_bytes","imported_bytes"} per file.
        #[arg(long)]
        dry_run: bool,
        /// Print progress to stderr as JSON lines {"progress": {"path",
        /// "files_done","files_total","bytes_done","bytes_total"}}.
        #[arg(long)]
        progress: bool,
        /// Transcripts to import, by path or session id (cc-<uuid> or
        /// <uuid>); all when none.
        select: Vec<String>,
    },
    /// Write a session as Gatehouse JSONL (re-importable with `import`) or
    /// as one self-contained HTML page that renders offline.
    Export {
        /// The session id.
        id: String,
        /// jsonl or html.
        #[arg(long, value_enum, default_value_t = ExportFormat::Jsonl)]
        format: ExportFormat,
        /// Write here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Import a Gatehouse JSONL export as a session; prints
    /// {"path","session_id","events","skipped_lines","problems"}.
    Import {
        /// The JSONL file.
        file: PathBuf,
        /// Store it under this id instead of the one in the file.
        #[arg(long = "as")]
        as_id: Option<String>,
    },
    /// Delete sessions with their events, sub-agent sessions and files;
    /// prints {"deleted": [ids]}.
    Delete {
        /// Session ids.
        ids: Vec<String>,
        /// Also (or instead) delete every session last active more
        /// than this many days ago.
        #[arg(long)]
        older_than_days: Option<u32>,
    },
    /// Show or change the retention setting (sessions last active more than
    /// N days ago are deleted when it is applied); prints
    /// {"retention_days": N|null} and, with --apply, "deleted".
    Retention {
        /// Keep sessions this many days.
        #[arg(long, conflicts_with = "off")]
        days: Option<u32>,
        /// Keep sessions forever.
        #[arg(long)]
        off: bool,
        /// Delete what the setting says to delete, now.
        #[arg(long)]
        apply: bool,
    },
    /// Disk used by sessions: {"database_bytes","wal_bytes",
    /// "reclaimable_bytes","session_files_bytes","sessions","events"}.
    Usage,
    /// Compact the database in short steps (the app's sessions keep writing
    /// between them); prints {"before": usage, "after": usage, "compaction":
    /// {"steps","freed_bytes","wal_truncated","cancelled","full_rewrite"}}.
    Vacuum,
}

/// Filters and order of `sessions list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Only sessions of this project folder.
    #[arg(long)]
    project: Option<PathBuf>,
    /// Order by (biggest/newest first unless --ascending).
    #[arg(long, value_enum, default_value_t = SortArg::Updated)]
    sort: SortArg,
    /// Smallest/oldest first.
    #[arg(long)]
    ascending: bool,
    /// Only sessions started at or after this date (YYYY-MM-DD, UTC) or
    /// time (RFC 3339).
    #[arg(long)]
    since: Option<String>,
    /// Only sessions started before this date (YYYY-MM-DD, UTC) or time.
    #[arg(long)]
    until: Option<String>,
    /// Only sessions with this model.
    #[arg(long)]
    model: Option<String>,
    /// Only sessions with at least one denied call.
    #[arg(long, conflicts_with = "no_denials")]
    had_denials: bool,
    /// Only sessions without denied calls.
    #[arg(long)]
    no_denials: bool,
    /// Only sessions with at least one error.
    #[arg(long, conflicts_with = "no_errors")]
    had_errors: bool,
    /// Only sessions without errors.
    #[arg(long)]
    no_errors: bool,
    /// Only sessions recorded by Gatehouse, or only Claude Code imports.
    #[arg(long, value_enum)]
    origin: Option<OriginArg>,
    /// At most this many.
    #[arg(long)]
    limit: Option<u32>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum SortArg {
    Updated,
    Started,
    Duration,
    ToolCalls,
    Errors,
    Denials,
    Tokens,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum OriginArg {
    Gatehouse,
    ClaudeCode,
}

/// Formats of `sessions export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Gatehouse JSONL: one event per line.
    Jsonl,
    /// One self-contained HTML page.
    Html,
}

/// `--since`/`--until`: a date (midnight UTC) or an RFC 3339 time, in ms.
fn parse_time(flag: &str, text: &str) -> anyhow::Result<i64> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    let date: jiff::civil::Date = text.parse().with_context(|| {
        format!("--{flag} {text:?}: expected a date (2026-11-30) or an RFC 3339 time")
    })?;
    let ts = date
        .to_zoned(jiff::tz::TimeZone::UTC)
        .with_context(|| format!("--{flag} {text:?}: the date is out of range"))?
        .timestamp();
    Ok(ts.as_millisecond())
}

fn canonical_project(project: Option<PathBuf>) -> anyhow::Result<Option<String>> {
    project
        .map(|p| {
            p.canonicalize()
                .with_context(|| format!("the project folder {}", p.display()))
                .map(|p| p.to_string_lossy().into_owned())
        })
        .transpose()
}

fn print(value: &impl serde::Serialize) -> anyhow::Result<()> {
    crate::out::outln!("{}", serde_json::to_string(value)?);
    Ok(())
}

fn require_session(store: &Store, id: &str) -> anyhow::Result<()> {
    if store.session(id)?.is_none() {
        anyhow::bail!("no stored session with id {id}");
    }
    Ok(())
}

/// Runs a `sessions` subcommand.
pub fn run(command: SessionsCommand, mut store: Store) -> anyhow::Result<ExitCode> {
    match command {
        SessionsCommand::List(args) => list(&store, args)?,
        SessionsCommand::Show { id, summary } => {
            let Some(found) = store.session(&id)? else {
                anyhow::bail!("no stored session with id {id}");
            };
            if summary {
                print(&found)?;
            } else {
                let mut stdout = std::io::stdout().lock();
                let mut closed = None;
                let listed = store.for_each_event(&id, |event| {
                    let line = gatehouse_core::events::to_json_line(&event);
                    stdout.write_all(line.as_bytes()).map_err(|e| {
                        // A closed stdout (e.g. `| head`) stops the reading;
                        // `main` ends quietly on it.
                        let stop = gatehouse_store::StoreError::Invalid(e.to_string());
                        closed = Some(e);
                        stop
                    })
                });
                if let Some(e) = closed {
                    return Err(anyhow::Error::new(e).context("writing to stdout"));
                }
                let skipped = listed?;
                if skipped > 0 {
                    eprintln!(
                        "gatehouse-cli: note: {skipped} event(s) were written by a newer Gatehouse and not shown"
                    );
                }
            }
        }
        SessionsCommand::Script { id } => {
            require_session(&store, &id)?;
            let (events, _) = store.session_events(&id)?;
            let script = gatehouse_agent::provider::replay::Script::from_events(&events);
            crate::out::outln!("{}", serde_json::to_string_pretty(&script.to_json())?);
        }
        SessionsCommand::Search {
            query,
            limit,
            literal,
            project,
            session,
        } => {
            let args = SearchSessionsArgs {
                query,
                limit: Some(limit),
                literal: Some(literal),
                project_path: canonical_project(project)?,
                session_id: session,
            };
            let found = store.search_detailed(&args)?;
            if let Some(words) = &found.as_words {
                eprintln!(
                    "gatehouse-cli: note: {:?} is not FTS5 query syntax; searched for the words {words} instead",
                    args.query
                );
            }
            for hit in found.hits {
                print(&hit)?;
            }
        }
        SessionsCommand::ImportClaude {
            home,
            dry_run,
            progress,
            select,
        } => return import_claude(&mut store, home, dry_run, progress, &select),
        SessionsCommand::Export { id, format, output } => {
            require_session(&store, &id)?;
            let mut sink: Box<dyn Write> = match &output {
                Some(path) => Box::new(std::io::BufWriter::new(
                    std::fs::File::create(path)
                        .with_context(|| format!("creating {}", path.display()))?,
                )),
                None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
            };
            match format {
                ExportFormat::Jsonl => {
                    jsonl::export_jsonl(&store, &id, &mut sink)?;
                }
                ExportFormat::Html => html::export_html(&store, &id, &mut sink)?,
            }
            sink.flush().with_context(|| match &output {
                Some(path) => format!("writing {}", path.display()),
                None => "writing to stdout".into(),
            })?;
        }
        SessionsCommand::Import { file, as_id } => {
            let report = jsonl::import_jsonl(&mut store, &file, as_id.as_deref())?;
            print(&report)?;
        }
        SessionsCommand::Delete {
            ids,
            older_than_days,
        } => {
            if ids.is_empty() && older_than_days.is_none() {
                anyhow::bail!("name the sessions to delete, or pass --older-than-days N");
            }
            let mut deleted = Vec::new();
            for id in &ids {
                let gone = store.delete_session(id)?;
                if gone.is_empty() {
                    anyhow::bail!("no stored session with id {id}");
                }
                deleted.extend(gone);
            }
            if let Some(days) = older_than_days {
                let cutoff =
                    jiff::Timestamp::now().as_millisecond() - i64::from(days) * 24 * 60 * 60 * 1000;
                deleted.extend(store.delete_sessions_before(cutoff)?);
            }
            print(&json!({ "deleted": deleted }))?;
        }
        SessionsCommand::Retention { days, off, apply } => {
            if off {
                store.set_retention_days(None)?;
            } else if let Some(days) = days {
                store.set_retention_days(Some(days))?;
            }
            let mut out = json!({ "retention_days": store.retention_days()? });
            if apply {
                out["deleted"] = json!(store.apply_retention()?);
            }
            print(&out)?;
        }
        SessionsCommand::Usage => print(&store.storage_usage()?)?,
        SessionsCommand::Vacuum => {
            let before = store.storage_usage()?;
            // No session of the CLI is open: a database of an earlier
            // version gets its one full rewrite now (the app's sessions, if
            // it runs, wait for it; it compacts in steps from then on).
            let compaction = store.vacuum(0)?;
            let after = store.storage_usage()?;
            print(&json!({ "before": before, "after": after, "compaction": compaction }))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn list(store: &Store, args: ListArgs) -> anyhow::Result<()> {
    let flag = |yes: bool, no: bool| match (yes, no) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    let query = ListSessionsArgs {
        project_path: canonical_project(args.project)?,
        // Unlimited unless asked, as `list` always was.
        limit: Some(args.limit.unwrap_or(u32::MAX)),
        sort: Some(match args.sort {
            SortArg::Updated => SessionSort::Updated,
            SortArg::Started => SessionSort::Started,
            SortArg::Duration => SessionSort::Duration,
            SortArg::ToolCalls => SessionSort::ToolCalls,
            SortArg::Errors => SessionSort::Errors,
            SortArg::Denials => SessionSort::Denials,
            SortArg::Tokens => SessionSort::Tokens,
        }),
        ascending: Some(args.ascending),
        since_ms: args
            .since
            .as_deref()
            .map(|t| parse_time("since", t))
            .transpose()?,
        until_ms: args
            .until
            .as_deref()
            .map(|t| parse_time("until", t))
            .transpose()?,
        model: args.model,
        had_denials: flag(args.had_denials, args.no_denials),
        had_errors: flag(args.had_errors, args.no_errors),
        origin: args.origin.map(|o| match o {
            OriginArg::Gatehouse => SessionOrigin::Gatehouse,
            OriginArg::ClaudeCode => SessionOrigin::ClaudeCode,
        }),
    };
    for session in store.query_sessions(&query)? {
        print(&session)?;
    }
    Ok(())
}

fn import_claude(
    store: &mut Store,
    home: Option<PathBuf>,
    dry_run: bool,
    progress: bool,
    select: &[String],
) -> anyhow::Result<ExitCode> {
    let home = match home {
        Some(home) => home,
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .context("HOME is not set: pass --home DIR")?,
    };
    let found = claude::discover(&home)?;
    let chosen: Vec<claude::ClaudeTranscript> = if select.is_empty() {
        found
    } else {
        let mut chosen = Vec::new();
        for wanted in select {
            let as_path = Path::new(wanted).canonicalize().ok();
            let hit = found.iter().find(|t| {
                t.session_id == *wanted
                    || t.session_id == format!("cc-{wanted}")
                    || (as_path.is_some() && Path::new(&t.path).canonicalize().ok() == as_path)
            });
            match hit {
                Some(t) => chosen.push(t.clone()),
                None => anyhow::bail!(
                    "{wanted:?} is not a transcript under {}; run with --dry-run to list them",
                    home.join(".claude/projects").display()
                ),
            }
        }
        chosen
    };
    if dry_run {
        for t in &chosen {
            let key = Path::new(&t.path)
                .canonicalize()
                .map_or_else(|_| t.path.clone(), |p| p.to_string_lossy().into_owned());
            let imported = store.import_record(&key)?.map(|r| r.byte_offset);
            let mut value = serde_json::to_value(t)?;
            value["imported_bytes"] = json!(imported);
            print(&value)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let reports = claude::import_transcripts(store, &chosen, |p| {
        if progress {
            eprintln!("{}", json!({ "progress": p }));
        }
    });
    let mut failed = false;
    for (transcript, report) in chosen.iter().zip(reports) {
        match report {
            Ok(report) => print(&report)?,
            Err(e) => {
                failed = true;
                print(&json!({ "path": transcript.path, "error": e.to_string() }))?;
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
