// The seeds' ToolSearch keyword scoring (lesson 14.5), in the seeds' own
// TypeScript-as-JavaScript: parseToolName and the +term split are copied
// from the seeds; the scoring loop follows the seeds' list (exact part
// +10/MCP +12, part contains +5/MCP +6, full-name fallback +3, searchHint
// +4, description word boundary +2) in Claude Code's order, with its two
// shortcuts before scoring (a query that is a tool's exact name, an mcp__
// prefix). It computes expected.json, which tests/toolsearch_scoring.rs
// compares the Rust implementation with:
//
//   node reference.mjs > expected.json
//
// Nothing here is used by the build; node is needed only to regenerate.
import { readFileSync } from 'node:fs';

const here = new URL('.', import.meta.url);
const servers = JSON.parse(readFileSync(new URL('mcp_tools.json', here)));
const { queries, worked_example } = JSON.parse(readFileSync(new URL('queries.json', here)));

function parseToolName(name) {
  if (name.startsWith('mcp__')) {
    const withoutPrefix = name.replace(/^mcp__/, '').toLowerCase();
    const parts = withoutPrefix.split('__').flatMap((p) => p.split('_'));
    return { parts: parts.filter(Boolean), full: withoutPrefix.replace(/__/g, ' '), isMcp: true };
  }
  const parts = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase().split(/\s+/);
  return { parts, full: parts.join(' '), isMcp: false };
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function searchToolsWithKeywords(query, deferredTools, maxResults) {
  const queryLower = query.toLowerCase().trim();
  const exact = deferredTools.find((t) => t.name.toLowerCase() === queryLower);
  if (exact) return [[exact.name, 0]];
  if (queryLower.startsWith('mcp__') && queryLower.length > 5) {
    const prefixMatches = deferredTools
      .filter((t) => t.name.toLowerCase().startsWith(queryLower))
      .slice(0, maxResults)
      .map((t) => [t.name, 0]);
    if (prefixMatches.length > 0) return prefixMatches;
  }
  const queryTerms = queryLower.split(/\s+/).filter((term) => term.length > 0);
  const requiredTerms = [];
  const optionalTerms = [];
  for (const term of queryTerms) {
    if (term.startsWith('+') && term.length > 1) {
      requiredTerms.push(term.slice(1));
    } else {
      optionalTerms.push(term);
    }
  }
  const allScoringTerms = requiredTerms.length > 0 ? [...requiredTerms, ...optionalTerms] : queryTerms;
  const pattern = (term) => new RegExp(`\\b${escapeRegExp(term)}\\b`);
  let candidates = deferredTools;
  if (requiredTerms.length > 0) {
    candidates = deferredTools.filter((tool) => {
      const parsed = parseToolName(tool.name);
      const desc = tool.description.toLowerCase();
      const hint = tool.searchHint?.toLowerCase() ?? '';
      return requiredTerms.every((term) =>
        parsed.parts.includes(term) ||
        parsed.parts.some((part) => part.includes(term)) ||
        pattern(term).test(desc) ||
        (hint && pattern(term).test(hint)));
    });
  }
  const scored = candidates.map((tool) => {
    const parsed = parseToolName(tool.name);
    const desc = tool.description.toLowerCase();
    const hint = tool.searchHint?.toLowerCase() ?? '';
    let score = 0;
    for (const term of allScoringTerms) {
      if (parsed.parts.includes(term)) {
        score += parsed.isMcp ? 12 : 10;
      } else if (parsed.parts.some((part) => part.includes(term))) {
        score += parsed.isMcp ? 6 : 5;
      }
      if (parsed.full.includes(term) && score === 0) {
        score += 3;
      }
      if (hint && pattern(term).test(hint)) score += 4;
      if (pattern(term).test(desc)) score += 2;
    }
    return [tool.name, score];
  });
  return scored
    .filter(([, score]) => score > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, maxResults);
}

const pool = servers
  .flatMap((s) => s.tools.map((t) => ({ name: `mcp__${s.server}__${t.name}`, description: t.description ?? '' })))
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const example = [{ name: worked_example.tool, description: worked_example.description }];

const out = {
  pool_size: pool.length,
  worked_example: worked_example.queries.map((q) => ({
    query: q,
    expected: q.toLowerCase().startsWith('select:') ? null : searchToolsWithKeywords(q, example, 5),
  })),
  queries: queries.map(({ query, max_results }) => ({
    query,
    max_results: max_results ?? 5,
    expected: searchToolsWithKeywords(query, pool, max_results ?? 5),
  })),
};
console.log(JSON.stringify(out, null, 1));
