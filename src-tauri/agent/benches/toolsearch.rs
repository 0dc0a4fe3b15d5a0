//! `cargo xtask bench toolsearch` (issue 21 item 7).
//!
//! * Bytes of the first model request of a session with the built-in tools
//!   and 300 MCP tools from the recorded real servers' lists
//!   (`src-tauri/tools/tests/toolsearch/mcp_tools.json`; past its 239 tools
//!   the lists repeat under `<server>_2`), without deferral (every schema)
//!   and with it, in each provider form: OpenAI-compatible, Anthropic's
//!   append fallback, and Anthropic's tool-search form. The last carries
//!   the deferred definitions (`defer_loading: true`) by the API's design,
//!   so for it the bytes the model gets in context (the tools sent in full
//!   and the deferred list) are compared. Target: ≥ 10× smaller.
//! * ToolSearch keyword queries over 10,000 deferred tools (the index built
//!   once, as a session builds it once per pool): the median of every
//!   query's time. Target: ≤ 1 ms.
//!
//! Exits 1 when a target is missed.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_agent::agent::{DEFAULT_SYSTEM_PROMPT, system_prompt_for};
use gatehouse_agent::message::Message;
use gatehouse_agent::provider::ModelRequest;
use gatehouse_agent::provider::anthropic::{DeferredForm, request_body_in};
use gatehouse_agent::provider::openai::request_body_text;
use gatehouse_core::deferral::{ToolBlock, ToolSearchMode};
use gatehouse_core::events::{Emitter, NullSink};
use gatehouse_core::testing::{TestResolver, recorded_mcp_tools};
use gatehouse_core::{Tool, ToolPool};
use gatehouse_tools::tool_search::SearchIndex;

fn request(tools: ToolBlock) -> ModelRequest {
    ModelRequest {
        model: "claude-sonnet".into(),
        system: system_prompt_for(DEFAULT_SYSTEM_PROMPT, &tools),
        messages: vec![Message::user_text("Open an issue about the failing build.")],
        tools,
        max_tokens: 16_384,
    }
}

fn block(pool: &ToolPool, mode: ToolSearchMode) -> ToolBlock {
    pool.tool_block(pool.tool_search_active(mode), &[])
}

fn ratio(without: usize, with: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let r = without as f64 / with.max(1) as f64;
    r
}

fn main() -> ExitCode {
    let mut ok = true;

    // ---- request bytes ----------------------------------------------------
    let dir = tempfile::tempdir().unwrap();
    let mcp: Vec<Arc<dyn Tool>> = recorded_mcp_tools(2).into_iter().take(300).collect();
    let tools = gatehouse_agent::session_pool(
        dir.path(),
        Emitter::new("bench", Arc::new(NullSink)),
        &TestResolver::allow_all(),
        Vec::new(),
        mcp,
    );
    let pool = &tools.pool;
    let (deferred, chars) = pool.deferred_size();
    println!(
        "pool: {} tools, {deferred} deferred ({chars} characters of definitions); auto mode is {}",
        pool.len(),
        if pool.tool_search_active(ToolSearchMode::default()) {
            "on"
        } else {
            "off"
        }
    );
    let off = request(block(pool, ToolSearchMode::Off));
    let on = request(block(pool, ToolSearchMode::On));
    let mut rows = Vec::new();
    let openai = (request_body_text(&off).len(), request_body_text(&on).len());
    rows.push(("OpenAI-compatible request body", openai));
    let append = (
        request_body_in(&off, DeferredForm::Append).unwrap().len(),
        request_body_in(&on, DeferredForm::Append).unwrap().len(),
    );
    rows.push(("Anthropic request body, append form", append));
    let native_body = request_body_in(&on, DeferredForm::Native).unwrap().len();
    let in_context = on.tools.base_json.len() + on.system.len();
    let all_context = off.tools.base_json.len() + off.system.len();
    rows.push((
        "Anthropic tool-search form, tools + system in context",
        (all_context, in_context),
    ));
    for (what, (without, with)) in &rows {
        let r = ratio(*without, *with);
        let met = r >= 10.0;
        ok &= met;
        println!(
            "{what}: {without} bytes without deferral, {with} with: {r:.1}× smaller (target ≥ 10×: {})",
            if met { "met" } else { "MISSED" }
        );
    }
    println!(
        "Anthropic tool-search form, whole request body: {native_body} bytes (the deferred definitions ride along with defer_loading: true, outside the context)"
    );

    // ---- query time over 10,000 tools ------------------------------------
    let many: Vec<Arc<dyn Tool>> = recorded_mcp_tools(42).into_iter().take(10_000).collect();
    let mut sorted = many;
    sorted.sort_by(|a, b| a.name().cmp(b.name()));
    let big = ToolPool::new(sorted);
    let t = Instant::now();
    let index = SearchIndex::new(big.deferred_tools().map(|t| t.as_ref()));
    println!(
        "index of {} deferred tools built in {:.1} ms (once per pool)",
        index.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let queries = [
        "github issue",
        "create pull request",
        "slack send message",
        "+slack message",
        "browser click",
        "kubernetes pod logs",
        "read file",
        "notion page",
        "web search",
        "performance trace",
        "merge_request",
        "read-only files",
        "jupyter notebook",
        "+firecrawl monitor status",
    ];
    let runs = 101;
    let mut all = Vec::new();
    for q in queries {
        let mut times = Vec::with_capacity(runs);
        let mut found = 0;
        for _ in 0..runs {
            let t = Instant::now();
            found = std::hint::black_box(index.search(q, 5)).len();
            times.push(t.elapsed());
        }
        times.sort();
        println!(
            "  {q:<28} median {:>7.3} ms ({found} found)",
            times[runs / 2].as_secs_f64() * 1e3
        );
        all.extend(times);
    }
    all.sort();
    let median: Duration = all[all.len() / 2];
    let met = median <= Duration::from_millis(1);
    ok &= met;
    println!(
        "ToolSearch keyword query over 10,000 tools: median {:.3} ms, p90 {:.3} ms (target ≤ 1 ms: {})",
        median.as_secs_f64() * 1e3,
        all[all.len() * 9 / 10].as_secs_f64() * 1e3,
        if met { "met" } else { "MISSED" }
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
