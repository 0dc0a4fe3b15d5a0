//! `Grep`: content search with ripgrep's engine.
//!
//! The same crates as `rg`: `grep-regex` (the regex engine with its literal
//! and SIMD prefilters), `grep-searcher` (line-oriented search, context,
//! binary detection, BOM sniffing) and `ignore` (the parallel, gitignore-
//! aware directory walk, `--glob` overrides, `--type` filters). Memory maps
//! are not used: building one is `unsafe` (forbidden in this workspace),
//! and ripgrep itself does not use them when searching directories.
//!
//! Semantics follow `rg` with the equivalent flags: hidden files and
//! gitignored files are skipped, binary files (a NUL byte) are skipped,
//! `-i`, `-A/-B/-C`, `-n`, `--multiline --multiline-dotall`, `--glob`
//! (repeatable: split on whitespace), `--type`. Output modes:
//!
//! * `files_with_matches` (default): paths, newest first;
//! * `content`: `path:line:text` lines (context lines `path-line-text`,
//!   groups separated by `--`), files in path order;
//! * `count`: `path:count` (matching lines per file), in path order.
//!
//! `offset` skips and `head_limit` caps the entries (lines, paths or
//! counts) after sorting.

pub mod sink;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult, ToolUseContext, TypedTool};
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::progress::SearchUnit;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use self::sink::{Collect, FileResult};
use crate::paths;
use crate::search::{modified, report_results, search_root, search_subject, walk_files};

/// The `Grep` tool.
#[derive(Debug, Clone, Default)]
pub struct GrepTool;

impl GrepTool {
    /// The Grep tool.
    pub fn new() -> Self {
        Self
    }
}

/// What Grep reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines (with context, line numbers).
    Content,
    /// Paths of files with at least one match (the default).
    #[default]
    FilesWithMatches,
    /// Matching lines per file.
    Count,
}

/// The input of `Grep`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// The regular expression (Rust regex syntax, as ripgrep).
    pub pattern: String,
    /// The absolute file or directory to search. Defaults to the working
    /// directory.
    #[serde(default)]
    pub path: Option<String>,
    /// Only search files matching this glob, e.g. "*.js" or "*.{ts,tsx}"
    /// (several separated by spaces; `!` excludes), as `rg --glob`.
    #[serde(default)]
    pub glob: Option<String>,
    /// Only search files of this type, e.g. "rust", "py", "js" (as
    /// `rg --type`).
    #[serde(default, rename = "type")]
    pub file_type: Option<String>,
    /// "content", "files_with_matches" (default) or "count".
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// Lines of context before each match (content mode).
    #[serde(default, rename = "-B")]
    pub before: Option<usize>,
    /// Lines of context after each match (content mode).
    #[serde(default, rename = "-A")]
    pub after: Option<usize>,
    /// Lines of context before and after each match (content mode).
    #[serde(default, rename = "-C")]
    pub context: Option<usize>,
    /// Show line numbers (content mode; default true).
    #[serde(default, rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Case-insensitive search.
    #[serde(default, rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Let patterns span lines (`.` matches newlines too).
    #[serde(default)]
    pub multiline: Option<bool>,
    /// Return at most this many entries (lines, paths or counts).
    #[serde(default)]
    pub head_limit: Option<usize>,
    /// Skip this many entries first.
    #[serde(default)]
    pub offset: Option<usize>,
}

/// What `Grep` returns.
#[derive(Debug, Clone, Serialize)]
pub struct GrepOutput {
    /// The mode used.
    pub mode: OutputMode,
    /// The canonical search root.
    pub root: String,
    /// The entries: output lines (content), paths (files) or `path:count`.
    pub entries: Vec<String>,
    /// Files with at least one match.
    pub num_files: usize,
    /// Matching lines in total (content and count modes).
    pub num_matches: u64,
    /// Entries before `offset`/`head_limit` were applied.
    pub total_entries: usize,
    /// Whether `head_limit` cut entries.
    pub truncated: bool,
    /// The offset applied.
    pub offset: usize,
    /// Wall time of the search.
    pub duration_ms: u64,
}

const DESCRIPTION: &str = "Searches file contents with ripgrep's engine. `pattern` is a regular \
expression (ripgrep/Rust syntax: escape braces in literals, e.g. `interface\\{\\}`). `path` is the \
absolute file or directory to search (default: the working directory). Filter files with `glob` \
(e.g. \"*.js\", \"*.{ts,tsx}\") or `type` (e.g. \"js\", \"py\", \"rust\"). `output_mode`: \
\"files_with_matches\" (default, paths newest first), \"content\" (matching lines as \
path:line:text; supports -A/-B/-C context and -n), or \"count\". `-i` ignores case; `multiline` \
lets a pattern span lines. `head_limit`/`offset` page through the results. Honours .gitignore; \
skips hidden and binary files.";

/// A compiled search: matcher, searcher settings and walk filters.
pub struct Plan {
    matcher: RegexMatcher,
    mode: OutputMode,
    before: usize,
    after: usize,
    multiline: bool,
    line_numbers: bool,
    types: Option<Types>,
    overrides: Option<Override>,
}

impl Plan {
    /// Compiles `input` for a search under `root`.
    pub fn new(input: &GrepInput, root: &Path) -> Result<Self, ToolError> {
        let mode = input.output_mode.unwrap_or_default();
        let multiline = input.multiline.unwrap_or(false);
        let mut builder = RegexMatcherBuilder::new();
        builder
            .case_insensitive(input.case_insensitive.unwrap_or(false))
            .multi_line(true)
            .dot_matches_new_line(multiline);
        if !multiline {
            builder.line_terminator(Some(b'\n'));
        }
        let matcher = builder
            .build(&input.pattern)
            .map_err(|e| ToolError::invalid(format!("invalid regex {:?}: {e}", input.pattern)))?;
        let context = input.context.unwrap_or(0);
        let (before, after) = if mode == OutputMode::Content {
            (
                input.before.unwrap_or(context),
                input.after.unwrap_or(context),
            )
        } else {
            (0, 0)
        };
        let types = match &input.file_type {
            Some(t) => {
                let mut tb = TypesBuilder::new();
                tb.add_defaults();
                if !tb.definitions().iter().any(|d| d.name() == t) {
                    return Err(ToolError::invalid(format!(
                        "unknown file type {t:?} (ripgrep's types: rust, py, js, ts, go, java, c, cpp, md, json, …)"
                    )));
                }
                tb.select(t);
                Some(
                    tb.build()
                        .map_err(|e| ToolError::invalid(format!("invalid type {t:?}: {e}")))?,
                )
            }
            None => None,
        };
        let overrides = match &input.glob {
            Some(g) => {
                let mut ob = OverrideBuilder::new(root);
                for part in split_globs(g) {
                    ob.add(&part)
                        .map_err(|e| ToolError::invalid(format!("invalid glob {part:?}: {e}")))?;
                }
                Some(
                    ob.build()
                        .map_err(|e| ToolError::invalid(format!("invalid glob {g:?}: {e}")))?,
                )
            }
            None => None,
        };
        Ok(Self {
            matcher,
            mode,
            before,
            after,
            multiline,
            line_numbers: input.line_numbers.unwrap_or(true),
            types,
            overrides,
        })
    }

    fn searcher(&self) -> Searcher {
        SearcherBuilder::new()
            .line_number(true)
            .before_context(self.before)
            .after_context(self.after)
            .multi_line(self.multiline)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .build()
    }
}

/// Splits a `glob` argument on whitespace outside braces.
fn split_globs(g: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0_i32;
    for c in g.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth <= 0 {
            if !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// One file with matches.
struct Hit {
    path: PathBuf,
    mtime: Option<SystemTime>,
    result: FileResult,
}

/// Runs a search under `root` (blocking). Stops early when `cancel` fires.
pub fn grep(
    input: &GrepInput,
    root: &Path,
    cancel: &CancellationToken,
) -> Result<GrepOutput, ToolError> {
    let started = std::time::Instant::now();
    let plan = Plan::new(input, root)?;
    let mut walk = WalkBuilder::new(root);
    walk.threads(0);
    if let Some(t) = &plan.types {
        walk.types(t.clone());
    }
    if let Some(o) = &plan.overrides {
        walk.overrides(o.clone());
    }
    let hits = walk_files(
        &walk,
        Some(cancel),
        || plan.searcher(),
        |searcher, entry| {
            let path = entry.path();
            let shown = path.to_string_lossy();
            let mut sink = Collect {
                mode: plan.mode,
                path: &shown,
                line_numbers: plan.line_numbers,
                result: FileResult::default(),
            };
            // Unreadable files are skipped, as rg does (it warns on stderr).
            if searcher
                .search_path(&plan.matcher, path, &mut sink)
                .is_err()
                || sink.result.count == 0
            {
                return None;
            }
            let mtime = match plan.mode {
                OutputMode::FilesWithMatches => modified(path),
                _ => None,
            };
            let result = sink.result;
            Some(Hit {
                path: entry.into_path(),
                mtime,
                result,
            })
        },
    );
    if cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let mut hits = hits;
    match plan.mode {
        OutputMode::FilesWithMatches => {
            hits.sort_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| a.path.cmp(&b.path)));
        }
        _ => hits.sort_by(|a, b| a.path.cmp(&b.path)),
    }
    let num_files = hits.len();
    let num_matches = hits.iter().map(|h| h.result.count).sum();
    let separate = plan.mode == OutputMode::Content && (plan.before > 0 || plan.after > 0);
    let mut entries = Vec::new();
    for hit in hits {
        match plan.mode {
            OutputMode::FilesWithMatches => entries.push(hit.path.display().to_string()),
            OutputMode::Count => {
                entries.push(format!("{}:{}", hit.path.display(), hit.result.count))
            }
            OutputMode::Content => {
                // rg separates files' context groups with `--` too.
                if separate && !entries.is_empty() {
                    entries.push("--".to_owned());
                }
                entries.extend(hit.result.lines);
            }
        }
    }
    let total_entries = entries.len();
    let offset = input.offset.unwrap_or(0);
    let mut entries: Vec<String> = entries.into_iter().skip(offset).collect();
    let truncated = input.head_limit.is_some_and(|limit| entries.len() > limit);
    if let Some(limit) = input.head_limit {
        entries.truncate(limit);
    }
    Ok(GrepOutput {
        mode: plan.mode,
        root: root.display().to_string(),
        entries,
        num_files,
        num_matches,
        total_entries,
        truncated,
        offset,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

#[async_trait]
impl TypedTool for GrepTool {
    type Input = GrepInput;
    type Output = GrepOutput;

    fn name(&self) -> &str {
        "Grep"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("search file contents with regex (ripgrep)")
    }
    fn is_concurrency_safe(&self, _input: &GrepInput) -> bool {
        true
    }
    fn is_read_only(&self, _input: &GrepInput) -> bool {
        true
    }
    fn interrupt_behavior(&self) -> gatehouse_core::InterruptBehavior {
        gatehouse_core::InterruptBehavior::Cancel
    }
    async fn validate_input(
        &self,
        input: &GrepInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        if let Some(p) = &input.path {
            paths::require_absolute("path", p)?;
        }
        if input.head_limit == Some(0) {
            return Err(ToolError::invalid("`head_limit` must be at least 1"));
        }
        // Compiles the regex, glob and type: errors reach the model early.
        Plan::new(input, Path::new("/")).map(|_| ())
    }
    fn permission_subject(
        &self,
        input: &GrepInput,
        ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        search_subject(input.path.as_deref(), ctx)
    }
    async fn call(
        &self,
        input: GrepInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<GrepOutput>, ToolError> {
        let root = search_root(input.path.as_deref(), cx.ctx)?;
        let cancel = cx.cancel.clone();
        let output = tokio::task::spawn_blocking(move || grep(&input, &root, &cancel))
            .await
            .map_err(|e| ToolError::failed(format!("the search task failed: {e}")))??;
        let (unit, count) = match output.mode {
            OutputMode::FilesWithMatches => (SearchUnit::Files, output.num_files as u64),
            OutputMode::Content | OutputMode::Count => (SearchUnit::Lines, output.num_matches),
        };
        report_results(cx.progress, unit, count, &output.entries, output.truncated);
        Ok(ToolResult::new(output))
    }
    fn map_result(&self, output: &GrepOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: render(output),
        }]
    }
}

/// The tool_result text.
pub fn render(output: &GrepOutput) -> String {
    let mut text = match output.mode {
        OutputMode::FilesWithMatches if output.num_files == 0 => "No files found".to_owned(),
        OutputMode::FilesWithMatches => format!(
            "Found {} file{}\n{}",
            output.num_files,
            if output.num_files == 1 { "" } else { "s" },
            output.entries.join("\n")
        ),
        _ if output.num_files == 0 => "No matches found".to_owned(),
        OutputMode::Content => output.entries.join("\n"),
        OutputMode::Count => format!(
            "{}\n\nFound {} matching line{} across {} file{}.",
            output.entries.join("\n"),
            output.num_matches,
            if output.num_matches == 1 { "" } else { "s" },
            output.num_files,
            if output.num_files == 1 { "" } else { "s" }
        ),
    };
    if output.truncated || output.offset > 0 {
        text.push_str(&format!(
            "\n\n(Showing entries {}–{} of {}; use offset/head_limit to page.)",
            output.offset + 1,
            output.offset + output.entries.len(),
            output.total_entries
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_split_on_spaces_outside_braces() {
        assert_eq!(
            split_globs("*.js  *.{ts, tsx} !x"),
            ["*.js", "*.{ts, tsx}", "!x"]
        );
    }
}
