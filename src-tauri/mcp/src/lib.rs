//! Gatehouse's MCP client (SPEC §8): servers configured like Claude Code's
//! `.mcp.json`, connected over stdio or streamable HTTP with the official
//! Rust SDK (`rmcp`), their tools wrapped as `mcp__<server>__<tool>` tools
//! of the runtime, and the `ListMcpResources` / `ReadMcpResource` tools.
//! It knows nothing of Tauri.
//!
//! | module | what |
//! |---|---|
//! | [`config`] | sources, parsing, `${VAR}` expansion, approval fingerprints |
//! | [`edit`] | adding, editing, removing servers in the files Gatehouse writes |
//! | [`server`] | one connection: start, states, reconnect, calls |
//! | [`manager`] | a session's servers, their tools, `mcp list` reports |
//! | [`tool`] | a remote tool as a [`gatehouse_core::Tool`] |
//! | [`list_resources`], [`read_resource`] | the resource tools |
//! | [`result`] | MCP results → tool_result blocks |
//! | [`names`] | qualified tool names |
//! | [`secrets`] | secret header and env values from the keychain |
//! | [`auth`] | OAuth 2.1 sign-in, tokens in the keychain, refresh |
//! | [`failure`] | why a stdio server's handshake failed, in the user's terms (its exit, its stderr tail) |
//! | [`stderr`] | the stderr tail of stdio servers (a byte-capped ring) |
//! | [`throttle`] | progress reports of a call: ≤ 20 a second, the last kept |
//! | `transport` | takes progress notifications out of the stream, in order |

pub mod auth;
pub mod config;
pub mod edit;
pub mod failure;
pub mod list_resources;
pub mod manager;
pub mod names;
pub mod read_resource;
pub mod result;
pub mod secrets;
pub mod server;
pub mod stderr;
pub mod throttle;
pub mod tool;
mod transport;

pub use config::{ConfigLayout, McpConfig, ServerConfig};
pub use manager::{McpChanges, McpManager, McpServers, ServerReport};
pub use server::{McpServer, ServerOptions};
