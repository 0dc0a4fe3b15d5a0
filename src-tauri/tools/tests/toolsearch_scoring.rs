//! ToolSearch's scoring against the seeds' algorithm (issue 21 item 2).
//!
//! `toolsearch/expected.json` was computed by `toolsearch/reference.mjs`
//! (the seeds' TypeScript scoring, run with node) over the recorded
//! `tools/list` of 16 real MCP servers (`toolsearch/mcp_tools.json`, 239
//! tools; servers and versions in `toolsearch/README.md`). Every query
//! must give the same tools, in the same order, with the same scores.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use gatehouse_core::ToolPool;
use gatehouse_core::ToolUseContext;
use gatehouse_core::deferral::ToolSearchView;
use gatehouse_core::testing::{SchemaTool, recorded_mcp_tools};
use gatehouse_core::tool::{CallContext, ProgressReporter};
use gatehouse_protocol::event::ContentBlock;
use gatehouse_tools::tool_search::{NO_MATCH, SearchIndex, run_query, tool_search_tool};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn expected() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/toolsearch/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The recorded tools in pool order (MCP tools sorted by name, as
/// `Registry::assemble_pool` sorts them).
fn recorded_pool() -> ToolPool {
    let mut tools = recorded_mcp_tools(1);
    tools.sort_by(|a, b| a.name().cmp(b.name()));
    ToolPool::new(tools)
}

fn ranked(index: &SearchIndex, query: &str, max: usize) -> Vec<(String, u32)> {
    index
        .search(query, max)
        .into_iter()
        .map(|(n, s)| (n.to_owned(), s))
        .collect()
}

fn as_pairs(v: &Value) -> Vec<(String, u32)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_owned(),
                u32::try_from(p[1].as_u64().unwrap()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_scored_query_matches_the_seeds_algorithm() {
    let expected = expected();
    let pool = recorded_pool();
    assert_eq!(pool.len(), 239);
    assert_eq!(
        expected["pool_size"], 239,
        "expected.json was computed over another pool"
    );
    let index = SearchIndex::new(pool.deferred_tools().map(|t| t.as_ref()));
    let queries = expected["queries"].as_array().unwrap();
    assert!(queries.len() >= 20);
    let mut failures = Vec::new();
    let mut passed = 0;
    for q in queries {
        let query = q["query"].as_str().unwrap();
        let max = usize::try_from(q["max_results"].as_u64().unwrap()).unwrap();
        let want = as_pairs(&q["expected"]);
        let got = ranked(&index, query, max);
        if got == want {
            passed += 1;
        } else {
            failures.push(format!("{query:?}:\n  want {want:?}\n  got  {got:?}"));
        }
    }
    println!("scored queries: {passed} of {} pass", queries.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The table is not trivially empty: most queries rank several tools.
    let non_empty = queries
        .iter()
        .filter(|q| !q["expected"].as_array().unwrap().is_empty())
        .count();
    assert!(non_empty >= 20, "{non_empty}");
}

/// The seeds' exercise 4 ("练习 4"): the scores of three queries for
/// `mcp__claude_ai_OKEngine_LARK_MCP__lark_bitable_search_records`.
#[test]
fn the_worked_example_scores_as_the_seeds_say() {
    let name = "mcp__claude_ai_OKEngine_LARK_MCP__lark_bitable_search_records";
    let pool = ToolPool::new(vec![
        SchemaTool::mcp(name, "", json!({"type": "object"})).arc(),
    ]);
    let index = SearchIndex::new(pool.deferred_tools().map(|t| t.as_ref()));
    let expected = expected();
    let cases = expected["worked_example"].as_array().unwrap();
    // 1. "lark search": lark and search are exact MCP name parts, 12 each.
    assert_eq!(cases[0]["query"], "lark search");
    assert_eq!(as_pairs(&cases[0]["expected"]), [(name.to_owned(), 24)]);
    assert_eq!(ranked(&index, "lark search", 5), [(name.to_owned(), 24)]);
    // 2. "+lark bitable": lark required (and present), 12 + 12.
    assert_eq!(as_pairs(&cases[1]["expected"]), [(name.to_owned(), 24)]);
    assert_eq!(ranked(&index, "+lark bitable", 5), [(name.to_owned(), 24)]);
    // 3. select: loads the tool by its exact name, unscored.
    let out = run_query(&pool, &index, &format!("select:{name}"), 5);
    assert_eq!(out.matches, [name]);
    assert!(out.unknown.is_empty());
}

#[test]
fn select_loads_known_names_in_any_case_and_reports_the_rest() {
    let pool = recorded_pool();
    let index = SearchIndex::new(pool.deferred_tools().map(|t| t.as_ref()));
    let out = run_query(
        &pool,
        &index,
        "SELECT:mcp__github__create_issue, MCP__SLACK__slack_post_message,mcp__nope__x,,",
        5,
    );
    assert_eq!(
        out.matches,
        [
            "mcp__github__create_issue",
            "mcp__slack__slack_post_message"
        ]
    );
    assert_eq!(out.unknown, ["mcp__nope__x"]);
    assert_eq!(out.total_deferred_tools, 239);
}

async fn call_tool_search(pool: Arc<ToolPool>, input: Value) -> Result<Vec<ContentBlock>, String> {
    let tool = tool_search_tool();
    let mut ctx = ToolUseContext::default();
    tool.validate_input(&input, &ctx)
        .await
        .map_err(|e| e.to_string())?;
    ctx.extensions.insert(ToolSearchView {
        pool,
        active: true,
        loaded: Arc::from(Vec::new()),
    });
    let emitter =
        gatehouse_core::events::Emitter::new("s", Arc::new(gatehouse_core::events::NullSink));
    let progress = ProgressReporter::new("t", emitter);
    let cancel = CancellationToken::new();
    let cx = CallContext {
        tool_use_id: "t",
        ctx: &ctx,
        progress: &progress,
        cancel: &cancel,
    };
    let result = tool.call(input, cx).await.map_err(|e| e.to_string())?;
    Ok(tool.map_result(result.data.as_ref(), "t"))
}

#[tokio::test]
async fn results_are_tool_references_or_the_seeds_no_match_text() {
    let pool = Arc::new(recorded_pool());
    let blocks = call_tool_search(
        Arc::clone(&pool),
        json!({"query": "kubernetes pod logs", "max_results": 2}),
    )
    .await
    .unwrap();
    assert_eq!(
        blocks,
        [
            ContentBlock::ToolReference {
                tool_name: "mcp__kubernetes__exec_in_pod".into()
            },
            ContentBlock::ToolReference {
                tool_name: "mcp__kubernetes__kubectl_logs".into()
            },
        ]
    );
    let none = call_tool_search(Arc::clone(&pool), json!({"query": "+zzz github"}))
        .await
        .unwrap();
    assert_eq!(
        none,
        [ContentBlock::Text {
            text: NO_MATCH.into()
        }]
    );
    let partly = call_tool_search(
        Arc::clone(&pool),
        json!({"query": "select:mcp__memory__read_graph,Nope"}),
    )
    .await
    .unwrap();
    assert_eq!(
        partly[0],
        ContentBlock::ToolReference {
            tool_name: "mcp__memory__read_graph".into()
        }
    );
    assert!(
        matches!(&partly[1], ContentBlock::Text { text } if text.contains("No tool is named Nope")),
        "{partly:?}"
    );
}

#[tokio::test]
async fn bad_queries_are_refused_with_what_was_wrong() {
    let pool = Arc::new(recorded_pool());
    let empty = call_tool_search(Arc::clone(&pool), json!({"query": "   "}))
        .await
        .unwrap_err();
    assert!(empty.contains("the query is empty"), "{empty}");
    let bare = call_tool_search(Arc::clone(&pool), json!({"query": "select:  "}))
        .await
        .unwrap_err();
    assert!(bare.contains("\"select:\" names no tool"), "{bare}");
    // 10,000 characters of words: refused, naming the count.
    let long = "word ".repeat(2_000);
    let refused = call_tool_search(Arc::clone(&pool), json!({"query": long}))
        .await
        .unwrap_err();
    assert!(refused.contains("2000 words"), "{refused}");
    // 10,000 characters in one term: searched, nothing found, no panic.
    let one = "x".repeat(10_000);
    let blocks = call_tool_search(Arc::clone(&pool), json!({"query": one}))
        .await
        .unwrap();
    assert_eq!(
        blocks,
        [ContentBlock::Text {
            text: NO_MATCH.into()
        }]
    );
}
