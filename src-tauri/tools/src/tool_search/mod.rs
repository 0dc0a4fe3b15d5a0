//! ToolSearch (SPEC §9, issue 21): finds deferred tools and loads their
//! definitions.
//!
//! * `select:A,B` returns those tools (deferred or not, names matched
//!   without regard to case); names that are no tool are reported, the
//!   rest still loaded.
//! * Anything else is a keyword query, scored as the seeds say
//!   ([`score`]), over the deferred tools.
//!
//! The result is one `tool_reference` block per tool found (the Messages
//! API expands each into the tool's definition; the agent loop records the
//! tool as loaded and, for providers without that form, appends its schema
//! to the next requests), or "No matching deferred tools found".

pub mod score;

use std::sync::{Arc, Mutex, PoisonError, Weak};

use async_trait::async_trait;
use gatehouse_core::deferral::ToolSearchView;
use gatehouse_core::permission::ToolPermissionVerdict;
use gatehouse_core::registry::ToolPool;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_core::{ToolError, ToolUseContext, names};
use gatehouse_protocol::event::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use score::SearchIndex;

/// How many tools a keyword query returns when `max_results` is not given.
pub const DEFAULT_MAX_RESULTS: usize = 5;
/// The most terms a keyword query may have (each is a pass over the
/// index); a longer query is refused, saying so.
pub const MAX_TERMS: usize = 64;
/// The seeds' text when nothing matched.
pub const NO_MATCH: &str = "No matching deferred tools found";

/// ToolSearch's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSearchInput {
    /// `select:Name1,Name2` to load those tools, or keywords to search the
    /// deferred tools (`+word` makes a word required).
    pub query: String,
    /// How many tools a keyword query returns at most (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100))]
    pub max_results: Option<u32>,
}

/// ToolSearch's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolSearchOutput {
    /// The tools found, best first (their definitions are now loaded).
    pub matches: Vec<String>,
    /// The query as given.
    pub query: String,
    /// How many deferred tools the session has.
    pub total_deferred_tools: usize,
    /// Names of a `select:` that are no tool of the session.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<String>,
}

/// ToolSearch. Keeps the index of the last pool it searched (a pool is
/// replaced, never changed, so the pointer says whether it is current).
#[derive(Debug, Default)]
pub struct ToolSearchTool {
    index: Mutex<Option<(Weak<ToolPool>, Arc<SearchIndex>)>>,
}

impl ToolSearchTool {
    /// A ToolSearch tool.
    pub fn new() -> Self {
        Self::default()
    }

    fn index_for(&self, pool: &Arc<ToolPool>) -> Arc<SearchIndex> {
        let mut slot = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((weak, index)) = slot.as_ref()
            && weak.upgrade().is_some_and(|p| Arc::ptr_eq(&p, pool))
        {
            return Arc::clone(index);
        }
        let index = Arc::new(SearchIndex::new(pool.deferred_tools().map(|t| t.as_ref())));
        *slot = Some((Arc::downgrade(pool), Arc::clone(&index)));
        index
    }
}

/// Runs `query` against `pool` (deferred tools indexed in `index`).
pub fn run_query(
    pool: &ToolPool,
    index: &SearchIndex,
    query: &str,
    max_results: usize,
) -> ToolSearchOutput {
    let trimmed = query.trim();
    let mut output = ToolSearchOutput {
        matches: Vec::new(),
        query: query.to_owned(),
        total_deferred_tools: index.len(),
        unknown: Vec::new(),
    };
    if let Some(list) = select_list(trimmed) {
        for wanted in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let found = pool
                .find(wanted)
                .or_else(|| pool.tools().find(|t| t.name().eq_ignore_ascii_case(wanted)));
            match found {
                Some(tool) if !output.matches.iter().any(|m| m == tool.name()) => {
                    output.matches.push(tool.name().to_owned());
                }
                Some(_) => {}
                None => output.unknown.push(wanted.to_owned()),
            }
        }
        return output;
    }
    output.matches = index
        .search(trimmed, max_results)
        .into_iter()
        .map(|(name, _)| name.to_owned())
        .collect();
    output
}

/// The names of a `select:` query (`^select:(.+)$`, any case).
fn select_list(query: &str) -> Option<&str> {
    let head = query.get(..7)?;
    head.eq_ignore_ascii_case("select:")
        .then(|| &query[7..])
        .filter(|rest| !rest.trim().is_empty())
}

#[async_trait]
impl TypedTool for ToolSearchTool {
    type Input = ToolSearchInput;
    type Output = ToolSearchOutput;

    fn name(&self) -> &str {
        names::TOOL_SEARCH
    }

    fn description(&self) -> &str {
        "Loads the definitions of deferred tools. Deferred tools are listed by name in \
         <available-deferred-tools>; until loaded, only the name is known and the tool cannot be called. \
         Query forms: \"select:Read,Edit\" loads those tools by name; \"notebook jupyter\" searches by keywords \
         and loads up to max_results best matches; \"+slack send\" requires \"slack\" and ranks by the other words. \
         Once loaded, a tool is called like any other."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("find and load deferred tools")
    }

    fn is_concurrency_safe(&self, _input: &ToolSearchInput) -> bool {
        true
    }

    fn is_read_only(&self, _input: &ToolSearchInput) -> bool {
        true
    }

    async fn validate_input(
        &self,
        input: &ToolSearchInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        let query = input.query.trim();
        if query.is_empty() {
            return Err(ToolError::invalid(
                "the query is empty: give keywords (\"github issue\") or \"select:Name1,Name2\"",
            ));
        }
        if select_list(query).is_none() {
            if query
                .get(..7)
                .is_some_and(|head| head.eq_ignore_ascii_case("select:"))
            {
                return Err(ToolError::invalid(
                    "\"select:\" names no tool: write \"select:Name1,Name2\"",
                ));
            }
            let terms = query.split_whitespace().count();
            if terms > MAX_TERMS {
                return Err(ToolError::invalid(format!(
                    "the query has {terms} words; at most {MAX_TERMS} are searched. Use a few keywords, \
                     or \"select:Name1,Name2\" for tools you know by name"
                )));
            }
        }
        Ok(())
    }

    async fn check_permissions(
        &self,
        _input: &ToolSearchInput,
        _ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        ToolPermissionVerdict::Allow {
            reason: "ToolSearch only reads the session's own tool list".into(),
        }
    }

    async fn call(
        &self,
        input: ToolSearchInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<ToolSearchOutput>, ToolError> {
        let Some(view) = cx.ctx.extensions.get::<ToolSearchView>() else {
            return Err(ToolError::failed(
                "ToolSearch cannot see the session's tools here (no tool list in its context)",
            ));
        };
        let index = self.index_for(&view.pool);
        let max = input.max_results.map_or(DEFAULT_MAX_RESULTS, |n| {
            usize::try_from(n.clamp(1, 100)).unwrap_or(DEFAULT_MAX_RESULTS)
        });
        Ok(ToolResult::new(run_query(
            &view.pool,
            &index,
            &input.query,
            max,
        )))
    }

    fn map_result(&self, output: &ToolSearchOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        let mut blocks: Vec<ContentBlock> = output
            .matches
            .iter()
            .map(|name| ContentBlock::ToolReference {
                tool_name: name.clone(),
            })
            .collect();
        if !output.unknown.is_empty() {
            blocks.push(ContentBlock::Text {
                text: format!(
                    "No tool is named {}; the other tools were loaded.",
                    output.unknown.join(", ")
                ),
            });
        }
        if output.matches.is_empty() {
            let text = if output.unknown.is_empty() {
                NO_MATCH.to_owned()
            } else {
                format!("{NO_MATCH}: no tool is named {}", output.unknown.join(", "))
            };
            return vec![ContentBlock::Text { text }];
        }
        blocks
    }
}

/// The ToolSearch tool as the registry takes it.
pub fn tool_search_tool() -> Arc<dyn gatehouse_core::Tool> {
    gatehouse_core::typed::Typed::arc(ToolSearchTool::new())
}
