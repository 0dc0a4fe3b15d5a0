//! Gatehouse's tool runtime: the tool contract, the registry, the dispatch
//! pipeline and the scheduler. It knows nothing of Tauri or any front end.
//!
//! Where things are:
//!
//! | module | what |
//! |---|---|
//! | [`tool`] | the [`Tool`] trait and its fail-closed defaults, [`ToolResult`] |
//! | [`typed`] | [`TypedTool`]: built-ins with a typed input struct (schema by schemars) |
//! | [`validation`] | JSON Schema validation and the error text the model gets |
//! | [`registry`] | gated built-ins, blanket-deny filtering, simple mode, the [`ToolPool`] |
//! | [`names`] | built-in tool names and the sub-agent tool sets |
//! | [`deferral`] | deferred tools, the ToolSearch mode, the tool block of a request |
//! | [`pipeline`] | the nine stages every call goes through, the hook invariant |
//! | [`hooks`], [`ask`], [`permission`] | the seams: hooks, the user, the permission engine |
//! | [`recheck`] | a running call's new subject (a redirect's host) decided like the call |
//! | [`scheduler`] | partitioning calls into batches |
//! | [`executor`] | the streaming executor (concurrency, order, sibling abort, interrupt) |
//! | [`budget`] | spilling large results to disk |
//! | [`stable_hash`], [`atomic_write`] | small shared helpers: a stable hash, atomic file replacement |
//! | [`events`] | where events go ([`EventSink`]) |
//! | [`runtime`] | [`ToolRuntime`], the entry points the agent loop calls |

pub mod ask;
pub mod atomic_write;
pub mod bounded_read;
pub mod budget;
pub mod config;
pub mod context;
pub mod deferral;
pub mod error;
pub mod events;
pub mod executor;
pub mod hooks;
pub mod names;
pub mod permission;
pub mod pipeline;
pub mod recheck;
pub mod registry;
pub mod runtime;
pub mod scheduler;
pub mod stable_hash;
pub mod tool;
pub mod typed;
pub mod validation;

#[cfg(any(test, feature = "test-support"))]
pub mod testing;

pub use context::{ContextModifier, ToolUseContext};
pub use error::ToolError;
pub use events::EventSink;
pub use executor::{ExecutionOutcome, StreamingToolExecutor};
pub use pipeline::Rejection;
pub use registry::{Registry, ToolPool};
pub use runtime::{CallStatus, ToolCallResult, ToolRuntime, ToolUseBlock};
pub use tool::{InterruptBehavior, Tool, ToolResult};
pub use typed::{Typed, TypedTool};
