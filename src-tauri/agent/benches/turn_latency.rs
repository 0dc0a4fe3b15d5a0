//! Issue 7 item 9: with a local server streaming one reply of 50 Read calls
//! (50 small files) and 20 Grep calls, the time from the last byte of the
//! reply to the arrival of the next request carrying all 70 results.
//! Claude Code 2.1.332: median 1.13 s; goal ≤ 0.11 s.
//!
//! Run: `cargo bench -p gatehouse-agent --bench turn_latency` (prints the
//! median of RUNS runs). The Read and Grep tools here are minimal stand-ins
//! (read a file; scan the 50 files for a substring) until gatehouse-tools
//! is merged; the loop, executor, pipeline and HTTP path are the real ones.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gatehouse_agent::keys::ApiKey;
use gatehouse_agent::provider::anthropic::{AnthropicConfig, AnthropicProvider};
use gatehouse_agent::{Agent, AgentConfig};
use gatehouse_core::error::ToolError;
use gatehouse_core::testing::TestResolver;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{Tool, ToolPool, ToolResult, ToolRuntime, ToolUseContext};
use serde_json::{Value, json};
use support::{Part, Reply, serve, sse};
use tokio_util::sync::CancellationToken;

const RUNS: usize = 7;

struct ReadTool(Value);
struct GrepTool(Value, PathBuf);

#[async_trait]
impl Tool for ReadTool {
    fn name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> &str {
        "Reads a file."
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn is_concurrency_safe(&self, _: &Value) -> bool {
        true
    }
    fn is_read_only(&self, _: &Value) -> bool {
        true
    }
    async fn call(&self, input: Value, _cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let path = input["file_path"].as_str().unwrap_or_default().to_owned();
        let text = tokio::fs::read_to_string(&path)
            .await
            .map_err(|e| ToolError::failed(format!("{path}: {e}")))?;
        Ok(ToolResult::from_data(text))
    }
}

#[async_trait]
impl Tool for GrepTool {
    fn name(&self) -> &str {
        "Grep"
    }
    fn description(&self) -> &str {
        "Searches files."
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn is_concurrency_safe(&self, _: &Value) -> bool {
        true
    }
    fn is_read_only(&self, _: &Value) -> bool {
        true
    }
    async fn call(&self, input: Value, _cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let pattern = input["pattern"].as_str().unwrap_or_default().to_owned();
        let mut hits = Vec::new();
        let mut dir = tokio::fs::read_dir(&self.1)
            .await
            .map_err(|e| ToolError::failed(e.to_string()))?;
        while let Ok(Some(entry)) = dir.next_entry().await {
            let text = tokio::fs::read_to_string(entry.path())
                .await
                .unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                if line.contains(&pattern) {
                    hits.push(format!("{}:{}:{line}", entry.path().display(), n + 1));
                }
            }
        }
        Ok(ToolResult::from_data(hits.join("\n")))
    }
}

fn reply(files: &[PathBuf]) -> Vec<u8> {
    let mut out = sse(
        "message_start",
        &json!({"message":{"id":"m1","usage":{"input_tokens":1}}}),
    );
    let mut index = 0;
    let mut block = |out: &mut Vec<u8>, id: String, name: &str, input: Value| {
        out.extend(sse("content_block_start", &json!({"index":index,"content_block":{"type":"tool_use","id":id,"name":name,"input":{}}})));
        out.extend(sse("content_block_delta", &json!({"index":index,"delta":{"type":"input_json_delta","partial_json":input.to_string()}})));
        out.extend(sse("content_block_stop", &json!({"index":index})));
        index += 1;
    };
    for (i, f) in files.iter().enumerate() {
        block(
            &mut out,
            format!("toolu_read_{i}"),
            "Read",
            json!({"file_path": f}),
        );
    }
    for i in 0..20 {
        block(
            &mut out,
            format!("toolu_grep_{i}"),
            "Grep",
            json!({"pattern": format!("line {i}")}),
        );
    }
    out.extend(sse(
        "message_delta",
        &json!({"delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":500}}),
    ));
    out.extend(sse("message_stop", &json!({})));
    out
}

fn end_reply() -> Reply {
    Reply::sse(vec![
        Part::Bytes(sse("message_start", &json!({"message":{"id":"m2"}}))),
        Part::Bytes(sse(
            "content_block_start",
            &json!({"index":0,"content_block":{"type":"text","text":""}}),
        )),
        Part::Bytes(sse("content_block_stop", &json!({"index":0}))),
        Part::Bytes(sse(
            "message_delta",
            &json!({"delta":{"stop_reason":"end_turn"}}),
        )),
        Part::Bytes(sse("message_stop", &json!({}))),
    ])
}

async fn one_run() -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..50)
        .map(|i| {
            let p = dir.path().join(format!("file_{i:02}.txt"));
            let text: String = (0..40).map(|n| format!("line {n} of file {i}\n")).collect();
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let server = serve(vec![
        Reply::sse(vec![Part::Bytes(reply(&files))]),
        end_reply(),
    ])
    .await;
    let schema = json!({"type":"object"});
    let pool = ToolPool::new(vec![
        Arc::new(GrepTool(schema.clone(), dir.path().to_path_buf())) as Arc<dyn Tool>,
        Arc::new(ReadTool(schema)),
    ]);
    let spill = tempfile::tempdir().unwrap();
    let runtime = ToolRuntime::builder(
        Arc::new(pool),
        Arc::new(TestResolver::allow_all()),
        spill.path(),
    )
    .build();
    let mut config = AnthropicConfig::new(ApiKey::new("sk-bench").unwrap());
    config.base_url = server.url.clone();
    let provider = Arc::new(AnthropicProvider::new(config).unwrap());
    let mut agent = Agent::new(
        provider,
        runtime,
        AgentConfig::new("bench"),
        ToolUseContext::default(),
    );
    let out = agent.run_prompt("go", &CancellationToken::new()).await;
    assert!(out.error.is_none(), "{:?}", out.error);
    let requests = server.requests.lock().unwrap().clone();
    let results = requests[1].body["messages"][2]["content"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(results, 70);
    let last_byte = server.finished.lock().unwrap()[0];
    let next_request = server.arrivals.lock().unwrap()[1];
    next_request - last_byte
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut times: Vec<Duration> = (0..RUNS).map(|_| rt.block_on(one_run())).collect();
    times.sort();
    let ms: Vec<String> = times
        .iter()
        .map(|d| format!("{:.1}", d.as_secs_f64() * 1000.0))
        .collect();
    let median = times[RUNS / 2];
    println!(
        "turn_latency: last reply byte -> next request with 70 results (50 Read + 20 Grep): median {:.1} ms over {RUNS} runs [{}] (goal <= 110 ms; Claude Code 1130 ms)",
        median.as_secs_f64() * 1000.0,
        ms.join(", ")
    );
}
