//! Dispatch overhead: the baseline later issues are compared with.
//!
//! * `pipeline/noop_call`: one call of a no-op tool through the full
//!   pipeline (`ToolRuntime::run_one`: events, schema validation,
//!   permission, call, mapping, budget), without the scheduler.
//! * `executor/message_1000_safe_noop_calls`: one assistant message of
//!   1,000 concurrency-safe no-op calls through the streaming executor
//!   (default concurrency limit 10).
//!
//! Run with `cargo bench -p gatehouse-core --bench dispatch`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use async_trait::async_trait;
use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse_core::permission::{PermissionQuery, PermissionResolver};
use gatehouse_core::registry::ToolPool;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{
    ToolError, ToolResult, ToolRuntime, ToolUseBlock, ToolUseContext, Typed, TypedTool,
};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionDecision};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[derive(Deserialize, JsonSchema)]
struct NoopInput {
    /// Ignored.
    #[allow(dead_code)]
    tag: Option<String>,
}

struct Noop;

#[async_trait]
impl TypedTool for Noop {
    type Input = NoopInput;
    type Output = &'static str;
    fn name(&self) -> &str {
        "Noop"
    }
    fn description(&self) -> &str {
        "does nothing"
    }
    fn is_concurrency_safe(&self, _input: &NoopInput) -> bool {
        true
    }
    fn is_read_only(&self, _input: &NoopInput) -> bool {
        true
    }
    async fn call(
        &self,
        _input: NoopInput,
        _cx: CallContext<'_>,
    ) -> Result<ToolResult<&'static str>, ToolError> {
        Ok(ToolResult::new("ok"))
    }
}

struct AllowAll;

impl PermissionResolver for AllowAll {
    fn is_blanket_denied(&self, _tool_name: &str) -> bool {
        false
    }
    fn decide(&self, _query: &PermissionQuery<'_>) -> PermissionDecision {
        PermissionDecision {
            decision: PermissionBehavior::Allow,
            reason: DecisionReason::Default {
                message: "benchmark".into(),
            },
            trace: Vec::new(),
        }
    }
}

fn dispatch(c: &mut Criterion) {
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pool = Arc::new(ToolPool::new(vec![Typed::arc(Noop)]));
    let runtime = ToolRuntime::builder(pool, Arc::new(AllowAll), dir.path()).build();
    let interrupt = CancellationToken::new();

    let one = ToolUseBlock::new("toolu_bench", "Noop", json!({"tag": "x"}));
    c.bench_function("pipeline/noop_call", |b| {
        b.to_async(&tokio_rt).iter(|| async {
            let mut ctx = ToolUseContext::default();
            let r = runtime.run_one(one.clone(), &mut ctx, &interrupt).await;
            assert!(!r.is_error);
        });
    });

    let message: Vec<ToolUseBlock> = (0..1000)
        .map(|i| ToolUseBlock::new(format!("toolu_{i}"), "Noop", json!({})))
        .collect();
    let mut group = c.benchmark_group("executor");
    group.sample_size(10);
    group.bench_function("message_1000_safe_noop_calls", |b| {
        b.to_async(&tokio_rt).iter(|| async {
            let out = runtime
                .run_tools(
                    message.clone(),
                    ToolUseContext::default(),
                    interrupt.clone(),
                )
                .await;
            assert_eq!(out.results.len(), 1000);
        });
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
