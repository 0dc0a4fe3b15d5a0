//! SPEC §3 stage 4: a file tool's preconditions (file read first and
//! unchanged, `old_string` present and unique, the cell there, the file
//! readable) are `validate_input`, checked before hooks and the permission
//! decision: the model gets the error and the user is never asked about a
//! call that cannot work (issue 16 item 11). Real files in a tempdir, the
//! real pipeline; the resolver asks about every call and the ask handler
//! records whether it was asked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::ask::AskAnswer;
use gatehouse_core::testing::{ScriptedAsk, TestResolver, call, decision, default_reason};
use gatehouse_core::{CallStatus, ToolCallResult, ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::RejectionStage;
use gatehouse_protocol::permission::PermissionBehavior;
use gatehouse_tools::{FileStateCache, file_tools};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A runtime over the file tools whose every call asks the user, who
/// allows once.
struct Asking {
    rt: Arc<ToolRuntime>,
    ask: Arc<ScriptedAsk>,
    pool: Arc<ToolPool>,
    dir: tempfile::TempDir,
    _spill: tempfile::TempDir,
    n: std::sync::atomic::AtomicUsize,
}

impl Asking {
    fn new() -> Self {
        let spill = tempfile::tempdir().unwrap();
        let pool = Arc::new(ToolPool::new(file_tools(FileStateCache::new())));
        let ask = ScriptedAsk::new(AskAnswer::AllowOnce);
        let resolver =
            TestResolver::with_default(decision(PermissionBehavior::Ask, default_reason()));
        let rt = ToolRuntime::builder(Arc::clone(&pool), Arc::new(resolver), spill.path())
            .session_id("validate-first")
            .ask_handler(ask.clone())
            .build();
        Self {
            rt,
            ask,
            pool,
            dir: tempfile::tempdir().unwrap(),
            _spill: spill,
            n: Default::default(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().canonicalize().unwrap().join(rel)
    }

    fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::write(&p, content).unwrap();
        p
    }

    fn ctx(&self) -> ToolUseContext {
        ToolUseContext {
            cwd: self.path(""),
            ..ToolUseContext::default()
        }
    }

    async fn run(&self, tool: &str, input: Value) -> ToolCallResult {
        let id = format!(
            "v{}",
            self.n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let mut ctx = self.ctx();
        self.rt
            .run_one(call(&id, tool, input), &mut ctx, &CancellationToken::new())
            .await
    }

    /// Runs a call that must be refused at validation without asking;
    /// returns its text.
    async fn refused(&self, tool: &str, input: Value) -> String {
        let asked = self.ask.count();
        let r = self.run(tool, input).await;
        assert_eq!(
            r.status,
            CallStatus::Rejected(RejectionStage::ValidateInput),
            "{tool}: {}",
            r.text()
        );
        assert!(r.is_error);
        assert_eq!(
            self.ask.count(),
            asked,
            "{tool} asked the user about a call that cannot work: {}",
            r.text()
        );
        r.text()
    }

    /// Runs a call that must be asked about and then succeed.
    async fn asked_and_ok(&self, tool: &str, input: Value) -> String {
        let asked = self.ask.count();
        let r = self.run(tool, input).await;
        assert_eq!(r.status, CallStatus::Succeeded, "{tool}: {}", r.text());
        assert_eq!(self.ask.count(), asked + 1, "{tool} was not asked about");
        r.text()
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

#[tokio::test]
async fn an_edit_that_cannot_apply_is_refused_before_anyone_is_asked() {
    let a = Asking::new();
    let p = a.write("e.rs", "fn a() {}\nfn a() {}\nfn b() {}\n");
    // Not read first.
    let text = a
        .refused(
            "Edit",
            json!({"file_path": s(&p), "old_string": "b()", "new_string": "c()"}),
        )
        .await;
    assert!(text.contains("has not been read"), "{text}");
    a.asked_and_ok("Read", json!({"file_path": s(&p)})).await;
    // Not in the file.
    let text = a
        .refused(
            "Edit",
            json!({"file_path": s(&p), "old_string": "zzz()", "new_string": "c()"}),
        )
        .await;
    assert!(text.contains("old_string was not found"), "{text}");
    // Not unique.
    let text = a
        .refused(
            "Edit",
            json!({"file_path": s(&p), "old_string": "a()", "new_string": "c()"}),
        )
        .await;
    assert!(
        text.contains("occurs 2 times") && text.contains("lines 1, 2"),
        "{text}"
    );
    // Changed on disk since it was read.
    std::fs::write(&p, "fn a() {}\nfn b() {}\nfn extra() {}\n").unwrap();
    let text = a
        .refused(
            "Edit",
            json!({"file_path": s(&p), "old_string": "b()", "new_string": "c()"}),
        )
        .await;
    assert!(
        text.contains("has been modified since it was read"),
        "{text}"
    );
    // An edit that can work is asked about, and runs.
    a.asked_and_ok("Read", json!({"file_path": s(&p)})).await;
    a.asked_and_ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "b()", "new_string": "c()"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "fn a() {}\nfn c() {}\nfn extra() {}\n"
    );
}

#[tokio::test]
async fn a_write_over_an_unread_file_or_onto_a_folder_is_refused_before_asking() {
    let a = Asking::new();
    let p = a.write("w.txt", "old\n");
    let text = a
        .refused("Write", json!({"file_path": s(&p), "content": "new\n"}))
        .await;
    assert!(text.contains("has not been read"), "{text}");
    let text = a
        .refused(
            "Write",
            json!({"file_path": s(&a.path("")), "content": "x"}),
        )
        .await;
    assert!(text.contains("is a directory"), "{text}");
    // A new file needs no read: asked, then written.
    a.asked_and_ok(
        "Write",
        json!({"file_path": s(&a.path("fresh.txt")), "content": "hi\n"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(a.path("fresh.txt")).unwrap(),
        "hi\n"
    );
}

#[tokio::test]
async fn a_notebook_edit_of_an_unread_notebook_or_a_missing_cell_is_refused_before_asking() {
    let a = Asking::new();
    let nb = json!({
        "cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["x = 1\n"],
                   "outputs": [], "execution_count": null}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5
    });
    let p = a.write("n.ipynb", &serde_json::to_string_pretty(&nb).unwrap());
    let edit = |cell: &str| json!({"notebook_path": s(&p), "cell_id": cell, "new_source": "y = 2"});
    let text = a.refused("NotebookEdit", edit("c1")).await;
    assert!(text.contains("has not been read"), "{text}");
    a.asked_and_ok("Read", json!({"file_path": s(&p)})).await;
    let text = a.refused("NotebookEdit", edit("nope")).await;
    assert!(text.contains("no cell \"nope\""), "{text}");
    a.asked_and_ok("NotebookEdit", edit("c1")).await;
}

#[tokio::test]
async fn a_read_of_a_missing_file_a_folder_or_a_binary_is_refused_before_asking() {
    let a = Asking::new();
    let text = a
        .refused("Read", json!({"file_path": s(&a.path("missing.txt"))}))
        .await;
    assert!(text.contains("does not exist"), "{text}");
    let text = a
        .refused("Read", json!({"file_path": s(&a.path(""))}))
        .await;
    assert!(text.contains("is a directory"), "{text}");
    let zip = a.write("a.zip", "PK");
    let text = a.refused("Read", json!({"file_path": s(&zip)})).await;
    assert!(text.contains("binary"), "{text}");
}

#[tokio::test]
async fn check_input_runs_lookup_schema_and_validate_input_without_deciding() {
    // What `gatehouse-cli check` calls: the same refusals, no decision.
    let a = Asking::new();
    let ctx = a.ctx();
    let err = gatehouse_core::check_input(&a.pool, "Read", &json!({"path": "/x"}), &ctx)
        .await
        .err()
        .unwrap();
    assert_eq!(err.stage, RejectionStage::Schema);
    assert!(err.message.contains("file_path"), "{}", err.message);
    let err = gatehouse_core::check_input(&a.pool, "Read", &json!({"file_path": ""}), &ctx)
        .await
        .err()
        .unwrap();
    assert_eq!(err.stage, RejectionStage::ValidateInput, "{}", err.message);
    assert!(err.message.contains("file_path"), "{}", err.message);
    let p = a.write("c.txt", "one\n");
    let err = gatehouse_core::check_input(
        &a.pool,
        "Edit",
        &json!({"file_path": s(&p), "old_string": "one", "new_string": "two"}),
        &ctx,
    )
    .await
    .err()
    .unwrap();
    assert_eq!(err.stage, RejectionStage::ValidateInput);
    assert!(err.message.contains("has not been read"), "{}", err.message);
    let err = gatehouse_core::check_input(&a.pool, "Nope", &json!({}), &ctx)
        .await
        .err()
        .unwrap();
    assert_eq!(err.stage, RejectionStage::Lookup);
    let tool = gatehouse_core::check_input(&a.pool, "Read", &json!({"file_path": s(&p)}), &ctx)
        .await
        .unwrap();
    assert_eq!(tool.name(), "Read");
    assert_eq!(a.ask.count(), 0, "check_input never asks");
}
