//! A session harness: the file tools over one file-state cache, run through
//! the real runtime pipeline (schema, validation, permission, call, map).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::events::MemorySink;
use gatehouse_core::hooks::Hooks;
use gatehouse_core::testing::{TestResolver, call, runtime};
use gatehouse_core::{CallStatus, ToolCallResult, ToolRuntime, ToolUseContext};
use gatehouse_tools::{FileStateCache, file_tools};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// One session: a runtime over the file tools, its cache, a temp dir.
pub struct Session {
    pub rt: Arc<ToolRuntime>,
    pub sink: Arc<MemorySink>,
    pub cache: Arc<FileStateCache>,
    pub dir: tempfile::TempDir,
    pub spill: tempfile::TempDir,
    n: std::sync::atomic::AtomicUsize,
}

impl Session {
    pub fn new() -> Self {
        let cache = FileStateCache::new();
        let spill = tempfile::tempdir().unwrap();
        let (rt, sink) = runtime(
            file_tools(Arc::clone(&cache)),
            Arc::new(TestResolver::allow_all()),
            Hooks::default(),
            spill.path(),
        );
        Self {
            rt,
            sink,
            cache,
            dir: tempfile::tempdir().unwrap(),
            spill,
            n: Default::default(),
        }
    }

    /// The canonical temp dir (tempdirs may sit behind a symlink).
    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, content).unwrap();
        p
    }

    pub async fn run(&self, tool: &str, input: Value) -> ToolCallResult {
        let id = format!(
            "t{}",
            self.n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let mut ctx = ToolUseContext {
            cwd: self.root(),
            ..ToolUseContext::default()
        };
        self.rt
            .run_one(call(&id, tool, input), &mut ctx, &CancellationToken::new())
            .await
    }

    /// Runs and asserts success; returns the text.
    pub async fn ok(&self, tool: &str, input: Value) -> String {
        let r = self.run(tool, input).await;
        assert_eq!(
            r.status,
            CallStatus::Succeeded,
            "{tool} failed: {}",
            r.text()
        );
        r.text()
    }

    /// Runs and asserts failure (any non-success); returns the text.
    pub async fn err(&self, tool: &str, input: Value) -> String {
        let r = self.run(tool, input).await;
        assert!(r.is_error, "{tool} unexpectedly succeeded: {}", r.text());
        r.text()
    }

    /// The last `tool_progress` payload of the most recent call.
    pub fn last_progress(&self) -> gatehouse_protocol::progress::ToolProgressData {
        self.sink
            .events()
            .into_iter()
            .rev()
            .find_map(|e| match e.body {
                gatehouse_protocol::event::EventBody::ToolProgress { data, .. } => Some(data),
                _ => None,
            })
            .expect("a tool_progress event")
    }

    /// The data of the last `tool_completed`... not exposed; tests use text.
    pub fn entries(&self, dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

pub fn s(p: &Path) -> String {
    p.display().to_string()
}
