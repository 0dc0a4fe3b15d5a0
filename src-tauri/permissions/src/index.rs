//! Rules indexed by list, tool and (for Bash) first command word, so a
//! decision looks only at rules that can match: deciding with 10,000 rules
//! costs about the same as with 10.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use globset::{GlobSet, GlobSetBuilder};

use crate::paths::{CompiledPathPattern, PatternBases};
use crate::rule::{RuleKind, Specifier, ToolMatcher};
use crate::sources::SourcedRule;

/// A rule ready to match: for path rules, its compiled pattern.
#[derive(Debug)]
pub struct IndexedRule {
    /// The rule and where it came from.
    pub rule: SourcedRule,
    /// The compiled path pattern of a path rule; `Err` when it could not be
    /// compiled (a deny or ask rule then matches every path: fail closed).
    pub path: Option<Result<CompiledPathPattern, String>>,
    /// Its place in precedence order (lower comes first).
    pub order: usize,
}

/// The rules of one tool in one list.
#[derive(Debug, Default)]
pub struct ToolRules {
    /// Every rule, highest precedence first.
    pub all: Vec<Arc<IndexedRule>>,
    /// Bash rules by the first word their pattern fixes.
    pub by_first_word: HashMap<String, Vec<Arc<IndexedRule>>>,
    /// Bash rules without a fixed first word (including `Bash` itself).
    pub unkeyed: Vec<Arc<IndexedRule>>,
    /// The path patterns of every path rule in one set, each glob mapped
    /// to its rule's place in `all`: one pass matches all rules.
    paths: Option<(GlobSet, Vec<usize>)>,
    /// The place in `all` of the first rule that matches every path: the
    /// tool alone, or (in deny and ask lists) a pattern that did not compile.
    first_unconditional: Option<usize>,
}

impl ToolRules {
    /// The first rule (highest precedence) matching `path`, by pattern or
    /// unconditionally.
    pub fn first_path_rule(&self, path: &Path) -> Option<&Arc<IndexedRule>> {
        let by_pattern = self
            .paths
            .as_ref()
            .and_then(|(set, owner)| set.matches(path).into_iter().map(|g| owner[g]).min());
        [self.first_unconditional, by_pattern]
            .into_iter()
            .flatten()
            .min()
            .and_then(|i| self.all.get(i))
    }

    fn finish(&mut self, kind: RuleKind) {
        let mut builder = GlobSetBuilder::new();
        let mut owner = Vec::new();
        for (i, r) in self.all.iter().enumerate() {
            match (&r.rule.rule.specifier, &r.path) {
                (Specifier::Any, _) => {
                    self.first_unconditional.get_or_insert(i);
                }
                (Specifier::Path(_), Some(Ok(p))) => {
                    for g in p.globs() {
                        builder.add(g.clone());
                        owner.push(i);
                    }
                }
                (Specifier::Path(_), _) if kind != RuleKind::Allow => {
                    self.first_unconditional.get_or_insert(i);
                }
                _ => {}
            }
        }
        if !owner.is_empty() {
            match builder.build() {
                Ok(set) => self.paths = Some((set, owner)),
                // Cannot happen (each glob compiled alone); fail closed.
                Err(_) if kind != RuleKind::Allow => {
                    self.first_unconditional = Some(0);
                }
                Err(_) => {}
            }
        }
    }
}

/// All rules, indexed.
#[derive(Debug, Default)]
pub struct RuleIndex {
    lists: HashMap<(RuleKind, String), ToolRules>,
}

impl RuleIndex {
    /// Indexes `rules` (highest precedence first), compiling path patterns
    /// against `cwd` and `home`.
    pub fn build<'a>(
        rules: impl IntoIterator<Item = &'a SourcedRule>,
        cwd: &Path,
        home: &Path,
    ) -> Self {
        let mut index = RuleIndex::default();
        for (order, rule) in rules.into_iter().enumerate() {
            let path = match &rule.rule.specifier {
                Specifier::Path(p) => Some(CompiledPathPattern::compile(
                    p,
                    PatternBases {
                        cwd,
                        home,
                        settings_root: rule.settings_root.as_deref(),
                    },
                )),
                _ => None,
            };
            let indexed = Arc::new(IndexedRule {
                rule: rule.clone(),
                path,
                order,
            });
            let key = (rule.kind, rule.rule.tool.index_key().to_string());
            let entry = index.lists.entry(key).or_default();
            entry.all.push(indexed.clone());
            match &rule.rule.specifier {
                Specifier::Command(p) => match p.first_word() {
                    Some(w) => entry
                        .by_first_word
                        .entry(w.to_string())
                        .or_default()
                        .push(indexed),
                    None => entry.unkeyed.push(indexed),
                },
                _ => entry.unkeyed.push(indexed),
            }
        }
        for ((kind, _), rules) in index.lists.iter_mut() {
            rules.finish(*kind);
        }
        index
    }

    /// The rules of `kind` naming exactly `tool`.
    pub fn list(&self, kind: RuleKind, tool: &str) -> Option<&ToolRules> {
        self.lists.get(&(kind, tool.to_string()))
    }

    /// The rules of `kind` naming `tool` exactly or (for an MCP tool) its
    /// server.
    pub fn for_tool<'a>(
        &'a self,
        kind: RuleKind,
        tool: &str,
    ) -> impl Iterator<Item = &'a Arc<IndexedRule>> {
        let exact = self.lists.get(&(kind, tool.to_string()));
        let server = mcp_server(tool).and_then(|s| self.lists.get(&(kind, s.to_string())));
        exact.into_iter().chain(server).flat_map(|r| r.all.iter())
    }

    /// The Bash rules of `kind` that may match a command starting with
    /// `first_word`.
    pub fn for_command<'a>(
        &'a self,
        kind: RuleKind,
        tool: &str,
        first_word: &str,
    ) -> impl Iterator<Item = &'a Arc<IndexedRule>> {
        self.lists
            .get(&(kind, tool.to_string()))
            .into_iter()
            .flat_map(move |r| {
                r.by_first_word
                    .get(first_word)
                    .into_iter()
                    .flatten()
                    .chain(r.unkeyed.iter())
            })
    }

    /// True when a deny rule names the whole tool or its MCP server.
    pub fn blanket_denies(&self, tool: &str) -> bool {
        self.for_tool(RuleKind::Deny, tool).any(|r| {
            r.rule.rule.specifier == Specifier::Any
                && match &r.rule.rule.tool {
                    ToolMatcher::Exact(t) => t == tool,
                    ToolMatcher::McpServer(s) => mcp_server(tool) == Some(s.as_str()),
                }
        })
    }
}

/// `mcp__srv` for `mcp__srv__tool`.
pub fn mcp_server(tool: &str) -> Option<&str> {
    let rest = tool.strip_prefix("mcp__")?;
    let end = rest.find("__")?;
    Some(&tool[..5 + end])
}
