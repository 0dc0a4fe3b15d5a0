//! The registry of built-in tools and the per-session tool pool (SPEC §2).
//!
//! * [`Registry::all_base_tools`]: every built-in whose [`Gate`] is open.
//! * [`Registry::tools`]: minus tools blanket-denied by a rule, minus
//!   disabled ones; only Bash, Read and Edit in simple mode.
//! * [`Registry::assemble_pool`]: built-ins sorted by name, then the allowed
//!   MCP tools sorted by name, de-duplicated by name (built-in wins). The
//!   order is part of the model request, so it must not depend on MCP
//!   connection timing: a reorder breaks prompt caching.
//!
//! A [`ToolPool`] serialises its schemas once and returns the same bytes on
//! every request of the session.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::Value;

use crate::deferral::{
    ToolBlock, ToolDefinition, ToolSearchMode, append_definitions, deferred_listing,
    is_deferred_tool,
};
use crate::names;
use crate::permission::PermissionResolver;
use crate::tool::Tool;
use crate::validation::SchemaValidator;

/// What [`ToolPool::check_input`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputCheck {
    /// The pipeline would take the input to hooks and the permission decision.
    Valid,
    /// No tool of that name (or alias) in the pool: nothing to check against
    /// (an MCP tool whose server is not running here).
    UnknownTool,
    /// The pipeline would refuse the call before asking anyone.
    Invalid {
        /// The stage that refuses it (`schema` or `validate_input`).
        stage: gatehouse_protocol::event::RejectionStage,
        /// The offending fields by path (`command`, `edits.0.old_string`),
        /// when the stage names them.
        fields: Vec<String>,
        /// The message the model would get.
        message: String,
    },
}

/// The condition under which a built-in is part of the base tool set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Always present.
    Always,
    /// Present when the named feature flag is on (config or env).
    Feature(String),
    /// Present on the given OS only (`std::env::consts::OS`: `windows`,
    /// `macos`, `linux`).
    Os(String),
    /// Present when the environment variable is set to a truthy value
    /// (`1`, `true`, `yes`, `on`).
    Env(String),
    /// Present when every inner gate is open.
    All(Vec<Gate>),
}

/// What gates are evaluated against: a snapshot taken once per session so
/// that the tool list cannot change mid-session when the environment does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateContext {
    /// Feature flags that are on.
    pub features: BTreeSet<String>,
    /// The OS (`std::env::consts::OS`).
    pub os: String,
    /// Environment variables relevant to gates.
    pub env: HashMap<String, String>,
}

impl GateContext {
    /// A snapshot of this process: its OS and environment, plus `features`.
    pub fn from_process(features: impl IntoIterator<Item = String>) -> Self {
        Self {
            features: features.into_iter().collect(),
            os: std::env::consts::OS.to_owned(),
            env: std::env::vars().collect(),
        }
    }

    /// Whether `gate` is open.
    pub fn is_open(&self, gate: &Gate) -> bool {
        match gate {
            Gate::Always => true,
            Gate::Feature(f) => self.features.contains(f),
            Gate::Os(os) => self.os == *os,
            Gate::Env(var) => self.env.get(var).is_some_and(|v| is_truthy(v)),
            Gate::All(gates) => gates.iter().all(|g| self.is_open(g)),
        }
    }
}

/// `1`, `true`, `yes`, `on` (any case).
pub fn is_truthy(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// The environment variable that turns on simple mode.
pub const SIMPLE_MODE_ENV: &str = "GATEHOUSE_SIMPLE";

/// The built-in tools and the gates they sit behind.
#[derive(Default)]
pub struct Registry {
    builtins: Vec<(Arc<dyn Tool>, Gate)>,
    gates: GateContext,
    simple_mode: bool,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field(
                "builtins",
                &self
                    .builtins
                    .iter()
                    .map(|(t, g)| (t.name(), g))
                    .collect::<Vec<_>>(),
            )
            .field("gates", &self.gates)
            .field("simple_mode", &self.simple_mode)
            .finish()
    }
}

impl Registry {
    /// An empty registry evaluating gates against `gates`. Simple mode is on
    /// when `GATEHOUSE_SIMPLE` is truthy in that snapshot.
    pub fn new(gates: GateContext) -> Self {
        let simple_mode = gates.is_open(&Gate::Env(SIMPLE_MODE_ENV.into()));
        Self {
            builtins: Vec::new(),
            gates,
            simple_mode,
        }
    }

    /// Turns simple mode on or off (a setting may override the env var).
    pub fn set_simple_mode(&mut self, on: bool) {
        self.simple_mode = on;
    }

    /// Whether simple mode is on.
    pub fn simple_mode(&self) -> bool {
        self.simple_mode
    }

    /// Registers a built-in behind `gate`.
    pub fn register(&mut self, tool: Arc<dyn Tool>, gate: Gate) -> &mut Self {
        self.builtins.push((tool, gate));
        self
    }

    /// Every built-in whose gate is open, in registration order.
    pub fn all_base_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.builtins
            .iter()
            .filter(|(_, gate)| self.gates.is_open(gate))
            .map(|(tool, _)| Arc::clone(tool))
            .collect()
    }

    /// The built-ins the model may see: minus blanket-denied tools, minus
    /// disabled ones; only Bash, Read and Edit in simple mode.
    pub fn tools(&self, resolver: &dyn PermissionResolver) -> Vec<Arc<dyn Tool>> {
        self.all_base_tools()
            .into_iter()
            .filter(|t| !self.simple_mode || names::SIMPLE_MODE_TOOLS.contains(&t.name()))
            .filter(|t| !resolver.is_blanket_denied(t.name()))
            .filter(|t| t.is_enabled())
            .collect()
    }

    /// The session's pool: built-ins by name, then allowed MCP tools by
    /// name, de-duplicated by name with the built-in winning.
    pub fn assemble_pool(
        &self,
        resolver: &dyn PermissionResolver,
        mcp_tools: Vec<Arc<dyn Tool>>,
    ) -> ToolPool {
        let mut builtins = self.tools(resolver);
        builtins.sort_by(|a, b| a.name().cmp(b.name()));
        let mut mcp: Vec<Arc<dyn Tool>> = mcp_tools
            .into_iter()
            .filter(|t| !resolver.is_blanket_denied(t.name()))
            .filter(|t| t.is_enabled())
            .collect();
        mcp.sort_by(|a, b| a.name().cmp(b.name()));
        builtins.extend(mcp);
        ToolPool::new(builtins)
    }
}

/// Which restricted tool set a sub-agent gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentToolSet {
    /// A foreground sub-agent: everything except
    /// [`names::ALL_AGENT_DISALLOWED_TOOLS`].
    Subagent,
    /// A background agent: only [`names::ASYNC_AGENT_ALLOWED_TOOLS`] among
    /// the built-ins (MCP tools stay available).
    Background,
    /// A coordinator: only [`names::COORDINATOR_MODE_ALLOWED_TOOLS`].
    Coordinator,
}

impl AgentToolSet {
    /// Whether a tool of this name belongs to the set.
    pub fn allows(self, name: &str) -> bool {
        let is_mcp = name.starts_with(names::MCP_PREFIX);
        match self {
            Self::Subagent => !names::ALL_AGENT_DISALLOWED_TOOLS.contains(&name),
            Self::Background => {
                !names::ALL_AGENT_DISALLOWED_TOOLS.contains(&name)
                    && (is_mcp || names::ASYNC_AGENT_ALLOWED_TOOLS.contains(&name))
            }
            Self::Coordinator => names::COORDINATOR_MODE_ALLOWED_TOOLS.contains(&name),
        }
    }
}

struct PoolEntry {
    tool: Arc<dyn Tool>,
    // Compiled on first use: most sessions call a handful of the tools.
    validator: OnceLock<SchemaValidator>,
    /// The tool's API definition, serialised once (and carried over to the
    /// pools made from this one while the tool is the same).
    definition: OnceLock<Arc<str>>,
    /// `deferral::is_deferred_tool`, decided once.
    deferred: bool,
}

/// The first block of definitions: the JSON array and its elements.
type BaseBlock = (Arc<str>, Arc<[Arc<str>]>);

/// The parts of the tool block that depend only on the pool.
#[derive(Default)]
struct BlockCache {
    /// Base definitions with deferral on / off.
    base_on: OnceLock<BaseBlock>,
    base_off: OnceLock<BaseBlock>,
    deferred: OnceLock<Arc<[ToolDefinition]>>,
    listing: OnceLock<Arc<str>>,
    /// (deferred tools, characters of their definitions).
    deferred_size: OnceLock<(usize, usize)>,
}

/// The tools of one session, in the order the model sees them.
pub struct ToolPool {
    entries: Vec<PoolEntry>,
    by_name: HashMap<String, usize>,
    by_alias: HashMap<String, usize>,
    schemas_json: OnceLock<Arc<str>>,
    block: BlockCache,
    /// Tools taken out by [`Self::refreshed`] (an MCP server dropped them
    /// from its list) and not back since: a call to one is told so.
    removed: HashSet<String>,
}

impl fmt::Debug for ToolPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolPool")
            .field("tools", &self.names())
            .finish()
    }
}

/// One tool of the pool's API tool list.
#[derive(Serialize)]
struct ApiTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

impl ToolPool {
    /// A pool of `tools` in the given order; later tools whose name is
    /// already present are dropped (first wins). An alias never shadows a
    /// name, and the first tool claiming an alias keeps it.
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Self {
        let mut entries = Vec::with_capacity(tools.len());
        let mut by_name = HashMap::with_capacity(tools.len());
        for tool in tools {
            if by_name.contains_key(tool.name()) {
                continue;
            }
            by_name.insert(tool.name().to_owned(), entries.len());
            entries.push(PoolEntry {
                deferred: is_deferred_tool(tool.as_ref()),
                tool,
                validator: OnceLock::new(),
                definition: OnceLock::new(),
            });
        }
        let mut by_alias = HashMap::new();
        for (i, entry) in entries.iter().enumerate() {
            for alias in entry.tool.aliases() {
                if !by_name.contains_key(*alias) {
                    by_alias.entry((*alias).to_owned()).or_insert(i);
                }
            }
        }
        Self {
            entries,
            by_name,
            by_alias,
            schemas_json: OnceLock::new(),
            block: BlockCache::default(),
            removed: HashSet::new(),
        }
    }

    /// Reuses `from`'s serialised definitions for the tools that are the
    /// very same objects here (a refresh keeps most tools).
    fn carry_definitions(mut self, from: &ToolPool) -> Self {
        for entry in &mut self.entries {
            let same = from
                .by_name
                .get(entry.tool.name())
                .map(|&i| &from.entries[i])
                .filter(|old| Arc::ptr_eq(&old.tool, &entry.tool));
            if let Some(json) = same.and_then(|old| old.definition.get()) {
                entry.definition = OnceLock::from(Arc::clone(json));
            }
        }
        self
    }

    /// The pool after tools changed during the session (an MCP server's
    /// `notifications/tools/list_changed`), keeping the order the model has
    /// seen: every tool keeps its position, a tool of `incoming` whose name
    /// is already in the pool replaces it in place (its schema may have
    /// changed), the tools named in `removed` are taken out, and the new
    /// ones are appended sorted by name. New tools pass the same filters as
    /// at assembly (blanket deny rules, `is_enabled`).
    pub fn refreshed(
        &self,
        resolver: &dyn PermissionResolver,
        removed: &HashSet<String>,
        incoming: Vec<Arc<dyn Tool>>,
    ) -> ToolPool {
        let mut incoming: HashMap<String, Arc<dyn Tool>> = incoming
            .into_iter()
            .filter(|t| !resolver.is_blanket_denied(t.name()) && t.is_enabled())
            .map(|t| (t.name().to_owned(), t))
            .collect();
        let mut tools: Vec<Arc<dyn Tool>> = self
            .entries
            .iter()
            .filter(|e| !removed.contains(e.tool.name()))
            .map(|e| {
                incoming
                    .remove(e.tool.name())
                    .unwrap_or_else(|| Arc::clone(&e.tool))
            })
            .collect();
        let mut added: Vec<Arc<dyn Tool>> = incoming.into_values().collect();
        added.sort_by(|a, b| a.name().cmp(b.name()));
        tools.extend(added);
        let mut pool = ToolPool::new(tools).carry_definitions(self);
        pool.removed = self
            .removed
            .iter()
            .chain(removed)
            .filter(|name| !pool.by_name.contains_key(name.as_str()))
            .cloned()
            .collect();
        pool
    }

    /// Whether a tool of this name was in the pool earlier in the session
    /// and was taken out by [`Self::refreshed`].
    pub fn was_removed(&self, name: &str) -> bool {
        self.removed.contains(name)
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tool names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.tool.name()).collect()
    }

    /// The tools, in order.
    pub fn tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.entries.iter().map(|e| &e.tool)
    }

    /// The index of the tool called `name`, looking at names first and
    /// aliases second.
    pub fn lookup(&self, name: &str) -> Option<usize> {
        self.by_name
            .get(name)
            .or_else(|| self.by_alias.get(name))
            .copied()
    }

    /// The tool called `name` (by name, then alias).
    pub fn find(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.lookup(name).map(|i| &self.entries[i].tool)
    }

    /// The tool at `index` (from [`Self::lookup`]).
    pub fn get(&self, index: usize) -> Option<&Arc<dyn Tool>> {
        self.entries.get(index).map(|e| &e.tool)
    }

    /// The compiled input schema of the tool at `index`.
    pub fn validator(&self, index: usize) -> Option<&SchemaValidator> {
        self.entries.get(index).map(|e| {
            e.validator
                .get_or_init(|| SchemaValidator::new(e.tool.input_schema()))
        })
    }

    /// Pipeline stages 3–4 for one call without running anything (what
    /// `gatehouse-cli check` asks before deciding): the input against the
    /// tool's schema, then the tool's `validate_input`. The messages are the
    /// ones the model would get.
    pub async fn check_input(
        &self,
        name: &str,
        input: &Value,
        ctx: &crate::context::ToolUseContext,
    ) -> InputCheck {
        let Some(index) = self.lookup(name) else {
            return InputCheck::UnknownTool;
        };
        if let Some(Err(e)) = self.validator(index).map(|v| v.validate(name, input)) {
            return InputCheck::Invalid {
                stage: gatehouse_protocol::event::RejectionStage::Schema,
                fields: e.issues().iter().map(|i| i.path.clone()).collect(),
                message: e.to_string(),
            };
        }
        let Some(tool) = self.get(index) else {
            return InputCheck::UnknownTool;
        };
        match tool.validate_input(input, ctx).await {
            Ok(()) => InputCheck::Valid,
            Err(e) => InputCheck::Invalid {
                stage: gatehouse_protocol::event::RejectionStage::ValidateInput,
                fields: Vec::new(),
                message: format!("{} refused the input: {e}", tool.name()),
            },
        }
    }

    /// The tool list of the model request as JSON (`[{name, description,
    /// input_schema}, …]`), serialised on first use and then returned as
    /// the very same bytes for the rest of the session.
    pub fn api_schemas_json(&self) -> Arc<str> {
        Arc::clone(self.schemas_json.get_or_init(|| {
            let list: Vec<ApiTool<'_>> = self
                .entries
                .iter()
                .map(|e| ApiTool {
                    name: e.tool.name(),
                    description: e.tool.description(),
                    input_schema: e.tool.input_schema(),
                })
                .collect();
            // Plain strings and JSON values always serialise.
            serde_json::to_string(&list)
                .unwrap_or_else(|_| String::from("[]"))
                .into()
        }))
    }

    /// The pool a sub-agent of the given kind gets (same order).
    pub fn for_agent(&self, set: AgentToolSet) -> ToolPool {
        ToolPool::new(
            self.entries
                .iter()
                .filter(|e| set.allows(e.tool.name()))
                .map(|e| Arc::clone(&e.tool))
                .collect(),
        )
        .carry_definitions(self)
    }

    /// The API definition of the tool at `index` (`{"name","description",
    /// "input_schema"}`), serialised on first use, then the same bytes.
    pub fn definition(&self, index: usize) -> Option<Arc<str>> {
        let e = self.entries.get(index)?;
        Some(Arc::clone(e.definition.get_or_init(|| {
            let api = ApiTool {
                name: e.tool.name(),
                description: e.tool.description(),
                input_schema: e.tool.input_schema(),
            };
            // Plain strings and JSON values always serialise.
            serde_json::to_string(&api)
                .unwrap_or_else(|_| String::from("{}"))
                .into()
        })))
    }

    /// Whether the tool at `index` is one deferral would list by name only
    /// (`deferral::is_deferred_tool`).
    pub fn is_deferred(&self, index: usize) -> bool {
        self.entries.get(index).is_some_and(|e| e.deferred)
    }

    /// The deferred tools, in pool order.
    pub fn deferred_tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.entries.iter().filter(|e| e.deferred).map(|e| &e.tool)
    }

    /// How many tools are deferred and how many characters their
    /// definitions take (what the `auto` threshold weighs).
    pub fn deferred_size(&self) -> (usize, usize) {
        *self.block.deferred_size.get_or_init(|| {
            self.deferred_definitions()
                .iter()
                .fold((0, 0), |(n, chars), d| {
                    (n + 1, chars + d.json.chars().count())
                })
        })
    }

    /// Whether deferral is on for this pool under `mode`.
    pub fn tool_search_active(&self, mode: ToolSearchMode) -> bool {
        let (count, chars) = self.deferred_size();
        mode.is_active(count, chars)
    }

    fn deferred_definitions(&self) -> Arc<[ToolDefinition]> {
        Arc::clone(self.block.deferred.get_or_init(|| {
            (0..self.entries.len())
                .filter(|&i| self.entries[i].deferred)
                .filter_map(|i| {
                    Some(ToolDefinition {
                        name: Arc::from(self.entries[i].tool.name()),
                        json: self.definition(i)?,
                    })
                })
                .collect()
        }))
    }

    /// The tool block of a model request: with `active` deferral, the
    /// tools never deferred, the deferred ones, and those of `loaded`
    /// (names, in load order) that are deferred here; without, every tool
    /// but ToolSearch. Each part is built once per pool.
    pub fn tool_block(&self, active: bool, loaded: &[String]) -> ToolBlock {
        let keep = |e: &PoolEntry| {
            if active {
                !e.deferred
            } else {
                e.tool.name() != names::TOOL_SEARCH
            }
        };
        let cell = if active {
            &self.block.base_on
        } else {
            &self.block.base_off
        };
        let (base_json, base) = cell.get_or_init(|| {
            let parts: Vec<Arc<str>> = (0..self.entries.len())
                .filter(|&i| keep(&self.entries[i]))
                .filter_map(|i| self.definition(i))
                .collect();
            let json = append_definitions("[]", parts.iter().map(|p| &**p)).into();
            (json, parts.into())
        });
        let (base_json, base) = (Arc::clone(base_json), Arc::clone(base));
        if !active {
            return ToolBlock::from_parts(base_json, base);
        }
        let deferred = self.deferred_definitions();
        let mut seen = HashSet::new();
        let loaded = loaded
            .iter()
            .filter(|name| seen.insert(name.as_str()))
            .filter_map(|name| {
                let i = self.by_name.get(name.as_str()).copied()?;
                if !self.entries[i].deferred {
                    return None;
                }
                Some(ToolDefinition {
                    name: Arc::from(name.as_str()),
                    json: self.definition(i)?,
                })
            })
            .collect();
        let listing =
            Arc::clone(self.block.listing.get_or_init(|| {
                deferred_listing(self.deferred_tools().map(|t| t.as_ref())).into()
            }));
        ToolBlock {
            tool_search: true,
            base,
            base_json,
            deferred,
            loaded,
            listing,
        }
    }
}
