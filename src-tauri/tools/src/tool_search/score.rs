//! ToolSearch's keyword scoring, as the seeds give it (lesson 14.5), over
//! an index built once per pool.
//!
//! Per tool: MCP names (`mcp__server__action`) lose the prefix and split on
//! `__` and `_`; other names split on CamelCase (and `_`); everything is
//! lower-cased. Per query term, in order:
//!
//! * a name part equal to the term: +10 (MCP +12); else a part containing
//!   it: +5 (MCP +6);
//! * the full name (parts joined) containing it, when the tool's score is
//!   still 0: +3;
//! * the `search_hint` matching it at word boundaries (`\bterm\b`): +4;
//! * the description matching it at word boundaries: +2.
//!
//! `+term` must match (name part, hint or description) for a tool to be
//! ranked at all. Tools with a positive score are ranked by score (pool
//! order among equals) and the first `max_results` returned. Before
//! scoring, as Claude Code does, a query that is a tool's exact name
//! returns that tool, and an `mcp__…` prefix returns the tools it starts.
//!
//! Speed (issue 21: ≤ 1 ms median over 10,000 tools): the index keeps
//! every tool's parts, full name, hint and description lower-cased, and
//! maps each distinct name part and each description/hint word to the
//! tools that have it. A term made of word characters (`[a-z0-9_]`)
//! matches `\bterm\b` exactly when it is one of the text's maximal runs of
//! word characters, so those terms are looked up, not scanned; other terms
//! fall back to scanning with the same boundary rule.

use std::collections::HashMap;

use gatehouse_core::Tool;
use gatehouse_core::names::MCP_PREFIX;

/// One deferred tool as the index keeps it.
#[derive(Debug, Clone)]
struct Indexed {
    name: String,
    name_lower: String,
    is_mcp: bool,
    full: String,
    hint: String,
    description: String,
}

/// The deferred tools of one pool, ready to be searched.
#[derive(Debug, Default)]
pub struct SearchIndex {
    tools: Vec<Indexed>,
    /// Each distinct name part → the tools having it (each tool once).
    parts: Vec<(String, Vec<u32>)>,
    part_ids: HashMap<String, usize>,
    /// Word (maximal run of `[a-z0-9_]`) → tools whose description has it.
    desc_words: HashMap<String, Vec<u32>>,
    /// The same for search hints.
    hint_words: HashMap<String, Vec<u32>>,
}

/// A tool's name parts, full name and whether it is an MCP tool (the
/// seeds' `parseToolName`).
pub fn parse_tool_name(name: &str) -> (Vec<String>, String, bool) {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        let without = rest.to_lowercase();
        let parts = without
            .split("__")
            .flat_map(|p| p.split('_'))
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        return (parts, without.replace("__", " "), true);
    }
    // `replace(/([a-z])([A-Z])/g, '$1 $2')`, then `_` → space.
    let chars: Vec<char> = name.chars().collect();
    let mut spaced = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        spaced.push(if c == '_' { ' ' } else { c });
        if c.is_ascii_lowercase() && chars.get(i + 1).is_some_and(char::is_ascii_uppercase) {
            spaced.push(' ');
        }
    }
    let lower = spaced.to_lowercase();
    // JS `split(/\s+/)` keeps empty strings at the ends.
    let parts: Vec<String> = split_js_whitespace(&lower);
    let full = parts.join(" ");
    (parts, full, false)
}

/// `s.split(/\s+/)` as JavaScript does it: leading or trailing whitespace
/// gives an empty first or last element.
fn split_js_whitespace(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut in_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            if !in_space {
                out.push(String::new());
                in_space = true;
            }
        } else {
            in_space = false;
            if let Some(last) = out.last_mut() {
                last.push(c);
            }
        }
    }
    out
}

/// A word character of a JavaScript regex (`\w`, ASCII only).
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The maximal runs of word characters of `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_word(c)).filter(|w| !w.is_empty())
}

/// Whether `text` matches `\bterm\b` (JavaScript semantics).
fn matches_at_boundaries(text: &str, term: &str) -> bool {
    let (Some(first), Some(last)) = (term.chars().next(), term.chars().last()) else {
        return false;
    };
    let mut from = 0;
    while let Some(pos) = text[from..].find(term) {
        let start = from + pos;
        let end = start + term.len();
        let before = text[..start].chars().next_back().is_some_and(is_word);
        let after = text[end..].chars().next().is_some_and(is_word);
        if before != is_word(first) && after != is_word(last) {
            return true;
        }
        // Next char boundary after `start`.
        from = start + text[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

impl SearchIndex {
    /// Indexes `tools` (the deferred tools, in pool order).
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a dyn Tool>) -> Self {
        let mut index = Self::default();
        for tool in tools {
            let id = u32::try_from(index.tools.len()).unwrap_or(u32::MAX);
            let (parts, full, is_mcp) = parse_tool_name(tool.name());
            let description = tool.description().to_lowercase();
            let hint = tool.search_hint().unwrap_or_default().to_lowercase();
            let mut seen: Vec<&str> = Vec::new();
            for part in &parts {
                if seen.contains(&part.as_str()) {
                    continue;
                }
                seen.push(part);
                let slot = match index.part_ids.get(part) {
                    Some(&slot) => slot,
                    None => {
                        index.parts.push((part.clone(), Vec::new()));
                        index.part_ids.insert(part.clone(), index.parts.len() - 1);
                        index.parts.len() - 1
                    }
                };
                index.parts[slot].1.push(id);
            }
            for (text, map) in [
                (&description, &mut index.desc_words),
                (&hint, &mut index.hint_words),
            ] {
                for word in words(text) {
                    let ids = map.entry(word.to_owned()).or_default();
                    if ids.last() != Some(&id) {
                        ids.push(id);
                    }
                }
            }
            index.tools.push(Indexed {
                name: tool.name().to_owned(),
                name_lower: tool.name().to_lowercase(),
                is_mcp,
                full,
                hint,
                description,
            });
        }
        index
    }

    /// The number of tools indexed.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools matching a keyword query, best first, at most
    /// `max_results`, each with its score (0 for the exact-name and prefix
    /// answers, which are not scored).
    pub fn search(&self, query: &str, max_results: usize) -> Vec<(&str, u32)> {
        let query = query.trim().to_lowercase();
        if let Some(tool) = self.tools.iter().find(|t| t.name_lower == query) {
            return vec![(tool.name.as_str(), 0)];
        }
        if query.starts_with(MCP_PREFIX) && query.len() > MCP_PREFIX.len() {
            let found: Vec<(&str, u32)> = self
                .tools
                .iter()
                .filter(|t| t.name_lower.starts_with(&query))
                .take(max_results)
                .map(|t| (t.name.as_str(), 0))
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        let terms: Vec<&str> = query.split_whitespace().collect();
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for term in &terms {
            match term.strip_prefix('+') {
                Some(rest) if !rest.is_empty() => required.push(rest),
                _ => optional.push(*term),
            }
        }
        let scoring: Vec<&str> = if required.is_empty() {
            terms.clone()
        } else {
            required.iter().chain(&optional).copied().collect()
        };

        let n = self.tools.len();
        let mut candidate = vec![true; n];
        let mut hit = vec![false; n];
        for term in &required {
            hit.iter_mut().for_each(|h| *h = false);
            for (_, ids) in self.parts_containing(term) {
                mark(&mut hit, ids);
            }
            self.mark_words(&mut hit, term, true);
            self.mark_words(&mut hit, term, false);
            for (c, h) in candidate.iter_mut().zip(&hit) {
                *c &= *h;
            }
        }

        let mut scores = vec![0u32; n];
        // Per term, which tools an exact part already scored.
        let mut exact = vec![false; n];
        let mut contains = vec![false; n];
        for term in &scoring {
            exact.iter_mut().for_each(|e| *e = false);
            contains.iter_mut().for_each(|c| *c = false);
            for (part, ids) in self.parts_containing(term) {
                if part == *term {
                    mark(&mut exact, ids);
                } else {
                    mark(&mut contains, ids);
                }
            }
            for (((score, tool), is_exact), is_contained) in scores
                .iter_mut()
                .zip(&self.tools)
                .zip(&exact)
                .zip(&contains)
            {
                if *is_exact {
                    *score += if tool.is_mcp { 12 } else { 10 };
                } else if *is_contained {
                    *score += if tool.is_mcp { 6 } else { 5 };
                }
            }
            // The full name holds nothing a part does not, except across
            // a `_` (MCP names keep them in `full`).
            if term.contains('_') {
                for (i, t) in self.tools.iter().enumerate() {
                    if scores[i] == 0 && t.full.contains(term) {
                        scores[i] += 3;
                    }
                }
            }
            self.add_word_score(&mut scores, term, true, 4);
            self.add_word_score(&mut scores, term, false, 2);
        }

        let mut ranked: Vec<(usize, u32)> = (0..n)
            .filter(|&i| candidate[i] && scores[i] > 0)
            .map(|i| (i, scores[i]))
            .collect();
        // Stable: pool order among equal scores, as JavaScript's sort.
        ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
        ranked
            .into_iter()
            .take(max_results)
            .map(|(i, s)| (self.tools[i].name.as_str(), s))
            .collect()
    }

    /// The distinct name parts containing `term`, with their tools.
    fn parts_containing<'s>(
        &'s self,
        term: &'s str,
    ) -> impl Iterator<Item = (&'s str, &'s [u32])> + 's {
        self.parts
            .iter()
            .filter(move |(part, _)| part.contains(term))
            .map(|(part, ids)| (part.as_str(), ids.as_slice()))
    }

    /// Marks the tools whose hint (`hint`) or description matches `term`
    /// at word boundaries.
    fn mark_words(&self, hit: &mut [bool], term: &str, hint: bool) {
        if term.chars().all(is_word) {
            let map = if hint {
                &self.hint_words
            } else {
                &self.desc_words
            };
            if let Some(ids) = map.get(term) {
                mark(hit, ids);
            }
            return;
        }
        for (i, t) in self.tools.iter().enumerate() {
            let text = if hint { &t.hint } else { &t.description };
            if matches_at_boundaries(text, term) {
                hit[i] = true;
            }
        }
    }

    fn add_word_score(&self, scores: &mut [u32], term: &str, hint: bool, points: u32) {
        if term.chars().all(is_word) {
            let map = if hint {
                &self.hint_words
            } else {
                &self.desc_words
            };
            for &id in map.get(term).map(Vec::as_slice).unwrap_or_default() {
                if let Some(s) = scores.get_mut(id as usize) {
                    *s += points;
                }
            }
            return;
        }
        for (i, t) in self.tools.iter().enumerate() {
            let text = if hint { &t.hint } else { &t.description };
            if matches_at_boundaries(text, term) {
                scores[i] += points;
            }
        }
    }
}

fn mark(flags: &mut [bool], ids: &[u32]) {
    for &id in ids {
        if let Some(f) = flags.get_mut(id as usize) {
            *f = true;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_split_as_the_seeds_say() {
        let (parts, full, mcp) =
            parse_tool_name("mcp__claude_ai_OKEngine_LARK_MCP__lark_bitable_search_records");
        assert!(mcp);
        assert_eq!(
            parts,
            [
                "claude", "ai", "okengine", "lark", "mcp", "lark", "bitable", "search", "records"
            ]
        );
        assert_eq!(
            full,
            "claude_ai_okengine_lark_mcp lark_bitable_search_records"
        );
        let (parts, full, mcp) = parse_tool_name("NotebookEdit");
        assert!(!mcp);
        assert_eq!(parts, ["notebook", "edit"]);
        assert_eq!(full, "notebook edit");
        assert_eq!(parse_tool_name("MCPServer_list").0, ["mcpserver", "list"]);
    }

    #[test]
    fn word_boundaries_follow_javascript() {
        assert!(matches_at_boundaries("create an issue.", "issue"));
        assert!(!matches_at_boundaries("issues", "issue"));
        assert!(!matches_at_boundaries("sub_issue", "issue"));
        // As in JavaScript (checked with node): `\b` after `+` needs a word
        // character to follow.
        assert!(!matches_at_boundaries("a c++ b", "c++"));
        assert!(matches_at_boundaries("use c++b", "c++"));
        // `\b` before a non-word character needs a word character before it.
        assert!(!matches_at_boundaries(" -x", "-x"));
        assert!(matches_at_boundaries("a-x", "-x"));
        assert!(!matches_at_boundaries("练习", "练习"));
    }
}
