//! `gatehouse-cli rules`: checking settings files (`lint`) and re-deciding
//! stored tool calls with edited rules (`replay`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use gatehouse_permissions::lint::lint;
use gatehouse_permissions::replay::{ReplayRules, replay_calls};
use gatehouse_permissions::sources::{SettingsLayout, os_managed_policy_paths};
use gatehouse_session::rules_editor::replay_view;
use gatehouse_store::{CallFilter, Store};
use serde_json::json;

use crate::run::home_dir;

/// `gatehouse-cli rules …`.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Check every settings file; exit 1 on errors, 0 otherwise.
    ///
    /// Checks every settings file (managed policy and its drop-in folder,
    /// --settings files, the project's .claude/settings.local.json and
    /// .claude/settings.json, the user's ~/.claude/settings.json) and print
    /// one JSON object: {"files": [{"path","source","exists"}], "problems":
    /// [{"severity": "error"|"warning", "code", "file", "line", "column",
    /// "list", "rule", "message", "loses_restrictions"}], "errors": N,
    /// "warnings": N}. Error codes: settings_error (invalid JSON, a rule
    /// that does not parse, a key of the wrong shape). Warning codes:
    /// shadowed_by_deny, shadowed_by_ask (a rule that can never fire),
    /// duplicate, unknown_tool, not_applied (dropped by a managed policy).
    /// Exit 0 when there are no errors (warnings do not fail), 1 when there
    /// are.
    Lint(LintArgs),
    /// What edited rules would have decided over a project's stored calls.
    ///
    /// Re-decides the stored tool calls of a project with its settings plus
    /// the --settings files (and --edit replacements), and print one JSON
    /// object: {"total", "unchanged", "changes": [{"from","to","count"}],
    /// "changed_calls": [{"session_id","seq","ts_ms","project_path","mode",
    /// "tool_use_id","tool_name","input","decision","reason","from","to",
    /// "new_reason"}], "changed_calls_truncated", "settings_errors",
    /// "unreadable_events"}. Exit 0 whatever changed.
    Replay(ReplayArgs),
}

/// Arguments of `rules lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// The project whose .claude/ settings files are checked.
    #[arg(long, value_name = "DIR")]
    pub project: PathBuf,
    /// The home directory whose .claude/settings.json is checked (default:
    /// $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Extra settings files to check, as launch flags (repeatable).
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
}

/// Arguments of `rules replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The project whose stored sessions are replayed (and whose settings
    /// apply).
    #[arg(long, value_name = "DIR")]
    pub project: PathBuf,
    /// Settings files with the rules to try, added as launch flags do
    /// (repeatable): their deny rules win over everything, their allow
    /// rules add to the project's.
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// Read NEW in place of the settings file TARGET (an edited copy of
    /// e.g. PROJECT/.claude/settings.json; TARGET need not exist), so rules
    /// can be removed too (repeatable).
    #[arg(long = "edit", value_name = "TARGET=NEW")]
    pub edit: Vec<String>,
    /// Only calls made on or after this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only this session.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The home directory whose .claude/settings.json applies (default:
    /// $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Trust the project: its allow rules apply (deny and ask rules always
    /// do).
    #[arg(long)]
    pub trust_project: bool,
    /// At most this many changed calls are listed (every change is counted).
    #[arg(long, default_value_t = 1000)]
    pub limit: usize,
}

/// Runs `rules lint` or `rules replay`.
pub fn run(
    command: RulesCommand,
    open_store: impl Fn() -> anyhow::Result<Store>,
) -> anyhow::Result<ExitCode> {
    match command {
        RulesCommand::Lint(args) => run_lint(args),
        RulesCommand::Replay(args) => run_replay(args, &open_store()?),
    }
}

fn run_lint(args: LintArgs) -> anyhow::Result<ExitCode> {
    let (managed_file, managed_dropin_dir) = os_managed_policy_paths();
    let mut layout = SettingsLayout::new(args.project, args.home.unwrap_or_else(home_dir));
    layout.managed_file = Some(managed_file);
    layout.managed_dropin_dir = Some(managed_dropin_dir);
    layout.flag_files = args.settings;
    let report = lint(&layout);
    crate::out::outln!("{}", serde_json::to_string(&report)?);
    Ok(if report.errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Milliseconds since the Unix epoch at 00:00 UTC of `date` (YYYY-MM-DD).
fn parse_day(date: &str) -> anyhow::Result<i64> {
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        bail!("--since {date:?}: expected a date as YYYY-MM-DD");
    };
    let (y, m, d): (i64, i64, i64) = (
        y.parse()
            .with_context(|| format!("--since {date:?}: the year"))?,
        m.parse()
            .with_context(|| format!("--since {date:?}: the month"))?,
        d.parse()
            .with_context(|| format!("--since {date:?}: the day"))?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || !(1970..=9999).contains(&y) {
        bail!("--since {date:?}: not a date (YYYY-MM-DD)");
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Ok(days * 86_400_000)
}

fn parse_edit(edit: &str) -> anyhow::Result<(PathBuf, String)> {
    let (target, new) = edit
        .split_once('=')
        .with_context(|| format!("--edit {edit:?}: expected TARGET=NEW"))?;
    let text =
        std::fs::read_to_string(new).with_context(|| format!("--edit {edit:?}: reading {new}"))?;
    Ok((absolute(Path::new(target))?, text))
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("the path {}", path.display()))
}

fn run_replay(args: ReplayArgs, store: &Store) -> anyhow::Result<ExitCode> {
    let project = args
        .project
        .canonicalize()
        .with_context(|| format!("the project folder {}", args.project.display()))?;
    let since_ms = args.since.as_deref().map(parse_day).transpose()?;
    let mut edits = HashMap::new();
    for edit in &args.edit {
        let (target, text) = parse_edit(edit)?;
        // The engine builds settings paths from the canonical project
        // folder: a target named through another spelling is mapped onto it.
        let target = match target.strip_prefix(absolute(&args.project)?) {
            Ok(rest) => project.join(rest),
            Err(_) => target,
        };
        edits.insert(target, text);
    }
    for file in &args.settings {
        std::fs::metadata(file).with_context(|| format!("--settings {}", file.display()))?;
    }
    let (managed_file, managed_dropin_dir) = os_managed_policy_paths();
    let replayer_rules = ReplayRules {
        home_dir: args.home.unwrap_or_else(home_dir),
        managed_file: Some(managed_file),
        managed_dropin_dir: Some(managed_dropin_dir),
        settings_files: args.settings,
        edits,
        trusted_projects: if args.trust_project {
            vec![project.clone()]
        } else {
            Vec::new()
        },
    };
    let filter = CallFilter {
        project_path: Some(project.to_string_lossy().into_owned()),
        session_id: args.session,
        since_ms,
        until_ms: None,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let mut unreadable = 0;
    let report = replay_calls(&replayer_rules, args.limit, threads, replay_view, |push| {
        let scan = store.for_each_stored_call(&filter, push)?;
        unreadable = scan.unreadable;
        Ok::<(), gatehouse_store::StoreError>(())
    })?;
    let mut out = serde_json::to_value(&report)?;
    if let Some(map) = out.as_object_mut() {
        map.insert("unreadable_events".into(), json!(unreadable));
    }
    crate::out::outln!("{out}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_day;

    #[test]
    fn days_are_utc_midnights() {
        assert_eq!(parse_day("1970-01-01").unwrap(), 0);
        assert_eq!(parse_day("2000-03-01").unwrap(), 951_868_800_000);
        assert_eq!(parse_day("2026-11-30").unwrap(), 1_795_996_800_000);
        assert!(parse_day("2026-13-01").is_err());
        assert!(parse_day("yesterday").is_err());
        assert!(parse_day("1969-12-31").is_err());
    }
}
