//! `Glob`: file paths matching a glob pattern, newest first.
//!
//! The walk is ripgrep's (`ignore` crate, parallel): `.gitignore`,
//! `.ignore`, `.rgignore`, `.git/info/exclude` and the global git excludes
//! are honoured (gitignore files only inside a git repository, as in `rg`),
//! and hidden files and directories are skipped — unless the pattern itself
//! names a hidden component (`.github/**/*.yml`), as `rg --glob` users
//! expect. The pattern is matched against the path relative to the search
//! root with `globset` (`*` does not cross `/`; `**` does; `{a,b}` and
//! `[ab]` work). Results are sorted by modification time, newest first
//! (ties by path), and capped at `limit` with a `truncated` flag.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult, ToolUseContext, TypedTool};
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::progress::SearchUnit;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::paths;
use crate::search::{modified, report_results, search_root, search_subject, walk_files};

/// Paths returned when no `limit` is given.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest `limit` accepted.
pub const MAX_LIMIT: usize = 10_000;

/// The `Glob` tool.
#[derive(Debug, Clone, Default)]
pub struct GlobTool;

impl GlobTool {
    /// The Glob tool.
    pub fn new() -> Self {
        Self
    }
}

/// The input of `Glob`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// The glob pattern, relative to `path`, e.g. "**/*.rs" or
    /// "src/**/*.{ts,tsx}".
    pub pattern: String,
    /// The absolute directory to search in. Defaults to the working
    /// directory.
    #[serde(default)]
    pub path: Option<String>,
    /// At most this many paths (default 100).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// What `Glob` returns.
#[derive(Debug, Clone, Serialize)]
pub struct GlobOutput {
    /// The canonical search root.
    pub root: String,
    /// Matching file paths (absolute), newest first.
    pub filenames: Vec<String>,
    /// How many files matched in total.
    pub num_matches: usize,
    /// Whether `filenames` was cut at the limit.
    pub truncated: bool,
    /// Wall time of the search.
    pub duration_ms: u64,
}

const DESCRIPTION: &str = "Finds files by glob pattern (e.g. \"**/*.js\", \"src/**/*.{ts,tsx}\"), \
matched against paths relative to `path` (default: the working directory). Honours .gitignore and \
skips hidden files unless the pattern names them. Returns absolute paths sorted by modification \
time, newest first, at most `limit` (default 100).";

/// Whether a pattern names a hidden path component explicitly.
fn names_hidden(pattern: &str) -> bool {
    pattern
        .split('/')
        .any(|c| c.starts_with('.') && c != "." && c != "..")
}

/// Compiles a glob with ripgrep-like options, as a one-glob `GlobSet`
/// (whose literal, extension and prefix strategies avoid running a regex
/// on every path, unlike a lone `GlobMatcher`).
pub(crate) fn compile(pattern: &str) -> Result<GlobSet, ToolError> {
    let invalid =
        |e: globset::Error| ToolError::invalid(format!("invalid glob pattern {pattern:?}: {e}"));
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(invalid)?;
    GlobSetBuilder::new().add(glob).build().map_err(invalid)
}

#[async_trait]
impl TypedTool for GlobTool {
    type Input = GlobInput;
    type Output = GlobOutput;

    fn name(&self) -> &str {
        "Glob"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("find files by name pattern or wildcard")
    }
    fn is_concurrency_safe(&self, _input: &GlobInput) -> bool {
        true
    }
    fn is_read_only(&self, _input: &GlobInput) -> bool {
        true
    }
    async fn validate_input(
        &self,
        input: &GlobInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        if let Some(p) = &input.path {
            paths::require_absolute("path", p)?;
        }
        if input.limit == Some(0) {
            return Err(ToolError::invalid("`limit` must be at least 1"));
        }
        compile(&input.pattern).map(|_| ())
    }
    fn permission_subject(
        &self,
        input: &GlobInput,
        ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        search_subject(input.path.as_deref(), ctx)
    }
    async fn call(
        &self,
        input: GlobInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<GlobOutput>, ToolError> {
        let root = search_root(input.path.as_deref(), cx.ctx)?;
        let output = tokio::task::spawn_blocking(move || glob(&root, &input.pattern, input.limit))
            .await
            .map_err(|e| ToolError::failed(format!("the glob task failed: {e}")))??;
        report_results(
            cx.progress,
            SearchUnit::Files,
            output.num_matches as u64,
            &output.filenames,
            output.truncated,
        );
        Ok(ToolResult::new(output))
    }
    fn map_result(&self, output: &GlobOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        let mut text = if output.filenames.is_empty() {
            "No files found".to_owned()
        } else {
            output.filenames.join("\n")
        };
        if output.truncated {
            text.push_str(&format!(
                "\n(Results are truncated: {} of {} files shown. Use a more specific path or pattern.)",
                output.filenames.len(),
                output.num_matches
            ));
        }
        vec![ContentBlock::Text { text }]
    }
}

/// A match: its modification time (`None` when it could not be read; such
/// files sort last) and its path.
type Found = (Option<SystemTime>, PathBuf);

/// Newest first; equal times by path, so the order is stable.
fn newest_first(a: &Found, b: &Found) -> Ordering {
    b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1))
}

/// Keeps the `limit` newest of `all`, sorted newest first. Only those are
/// sorted: a selection splits them off the rest in linear time.
fn newest(mut all: Vec<Found>, limit: usize) -> Vec<Found> {
    if all.len() > limit {
        all.select_nth_unstable_by(limit, newest_first);
        all.truncate(limit);
    }
    all.sort_unstable_by(newest_first);
    all
}

/// Runs a glob search under `root` (blocking).
pub fn glob(root: &Path, pattern: &str, limit: Option<usize>) -> Result<GlobOutput, ToolError> {
    let started = std::time::Instant::now();
    let limit = limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    // An absolute pattern under the root is made relative to it.
    let pattern = match Path::new(pattern).strip_prefix(root) {
        Ok(rel) if Path::new(pattern).is_absolute() => rel.to_string_lossy().into_owned(),
        _ => pattern.trim_start_matches("./").to_owned(),
    };
    let matcher = compile(&pattern)?;
    let mut walk = WalkBuilder::new(root);
    walk.hidden(!names_hidden(&pattern)).threads(0);
    let all = walk_files(
        &walk,
        None,
        || (),
        |(), entry| {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(path);
            if !matcher.is_match(rel) {
                return None;
            }
            Some((modified(path), entry.into_path()))
        },
    );
    let num_matches = all.len();
    let kept = newest(all, limit);
    Ok(GlobOutput {
        root: root.display().to_string(),
        truncated: num_matches > kept.len(),
        // A UTF-8 path becomes its String without a copy.
        filenames: kept
            .into_iter()
            .map(|(_, p)| {
                p.into_os_string()
                    .into_string()
                    .unwrap_or_else(|raw| raw.to_string_lossy().into_owned())
            })
            .collect(),
        num_matches,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_newest_are_kept_in_order_whatever_the_limit() {
        let t = |s: u64| Some(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        let all: Vec<Found> = [
            (t(5), "e"),
            (None, "n"),
            (t(9), "b"),
            (t(9), "a"),
            (t(1), "z"),
            (t(7), "c"),
        ]
        .into_iter()
        .map(|(m, p)| (m, PathBuf::from(p)))
        .collect();
        let order = |v: Vec<Found>| -> Vec<String> {
            v.into_iter()
                .map(|(_, p)| p.display().to_string())
                .collect()
        };
        let mut sorted = all.clone();
        sorted.sort_by(newest_first);
        assert_eq!(order(sorted.clone()), ["a", "b", "c", "e", "z", "n"]);
        for limit in 1..=8 {
            let expected: Vec<Found> = sorted.iter().take(limit).cloned().collect();
            assert_eq!(
                order(newest(all.clone(), limit)),
                order(expected),
                "limit {limit}"
            );
        }
    }
}
