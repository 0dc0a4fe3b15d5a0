//! Gatehouse's agent loop and model providers (SPEC §10).
//!
//! | module | what |
//! |---|---|
//! | [`agent`] | [`Agent`]: the conversation loop (turns, tool calls, retries, interrupts, limits) |
//! | [`message`] | the conversation: [`Message`], [`Block`], [`StopReason`], [`Usage`] |
//! | [`provider`] | the [`Provider`] trait and its stream events |
//! | [`provider::anthropic`] | the Anthropic Messages API over SSE |
//! | [`provider::openai`] | OpenAI-compatible chat completions |
//! | [`provider::replay`] | scripted replies: demo, tests, re-runs |
//! | [`provider::sse`] | the SSE parser |
//! | [`retry`] | backoff with jitter |
//! | [`keys`] | API keys: lookup order, a type that never prints them |
//! | [`keychain`] | the OS keychain (Secret Service / keyutils, macOS, Windows) |
//! | [`resume`] | a stored session's events back into a history |
//! | [`pool`] | the session's tool pool, the stand-in permission resolver, a fixed ask handler |
//! | [`demo`] | the offline demo: sample project and replay script |
//! | [`subagent`] | sub-agents: agent definitions, the `Agent` tool |

pub mod agent;
pub mod demo;
pub mod keychain;
pub mod keys;
pub mod message;
pub mod pool;
pub mod provider;
pub mod resume;
pub mod retry;
pub mod sandbox;
pub mod skill;
pub mod subagent;

pub use agent::{Agent, AgentConfig, ModeSource, Notice, NoticeSource, PromptOutcome};
pub use message::{Block, Message, Role, StopReason, Usage};
pub use pool::{
    EngineSetup, EngineShellClassifier, SessionTools, StaticAsk, builtin_pool, load_engine,
    load_settings, session_pool, session_pool_sandboxed, settings_layout,
};
pub use provider::{ModelRequest, Provider, ProviderError, StreamEvent};
