//! The MCP panel: configured servers from every source, probing them, and
//! editing Gatehouse's own list (`~/.gatehouse/mcp.json`) or a project's
//! `.mcp.json` (SPEC §8, §12).
//!
//! Secret values (env values and headers marked secret) travel only from
//! the UI to the backend in a [`McpValueDraft`] on their way to the OS
//! keychain; nothing here ever carries one back: stored secrets come back as
//! `value: ""` with `stored: true`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::event::McpServerStatus;

/// Where a server is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum McpScope {
    /// `~/.claude.json` top-level `mcpServers` (read-only here).
    User,
    /// Gatehouse's own `~/.gatehouse/mcp.json` (editable).
    Gatehouse,
    /// The project's `.mcp.json` (editable; needs approval to start).
    Project,
    /// `~/.claude.json` → `projects[<project>].mcpServers` (read-only here).
    Local,
}

/// Whether a server may start, as far as approval goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum McpApproval {
    /// Not a project server: no approval needed.
    NotNeeded,
    /// A project server the user approved in its current form.
    Approved,
    /// A project server not approved (or changed since it was).
    Pending,
}

/// One env variable or header of a server being edited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpValueDraft {
    /// The variable or header name.
    pub name: String,
    /// The value. For a secret: a new value to store in the keychain, or
    /// `""` to keep the stored one. Never a stored secret when sent by the
    /// backend.
    pub value: String,
    /// Kept in the OS keychain; the file holds only the name.
    pub secret: bool,
    /// For a secret: the keychain holds a value now (set by the backend;
    /// ignored when saving).
    pub stored: bool,
}

/// How to reach a server being edited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpTransportDraft {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its extra environment.
        env: Vec<McpValueDraft>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint (`http://` or `https://`).
        url: String,
        /// Extra request headers.
        headers: Vec<McpValueDraft>,
    },
}

/// A server as written in a configuration file (values as written, with
/// `${VAR}` unexpanded), for the edit form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerDraft {
    /// Its name (`mcp__<name>__<tool>`): no `__`.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransportDraft,
    /// Listed but never started.
    pub disabled: bool,
    /// Trust its tool annotations (only Gatehouse's own list may).
    pub trusted: bool,
}

/// One configured server, from any source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerEntry {
    /// Its name.
    pub name: String,
    /// Where it is configured.
    pub scope: McpScope,
    /// The file.
    pub file: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The command line or URL, as written (no secret values).
    pub summary: String,
    /// Turned off.
    pub disabled: bool,
    /// Its annotations are trusted.
    pub trusted: bool,
    /// Approval (project servers).
    pub approval: McpApproval,
    /// The entry as written, for editing; `None` for read-only scopes.
    pub draft: Option<McpServerDraft>,
}

/// A problem in a configuration file (the server is left out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpConfigProblem {
    /// The file.
    pub file: String,
    /// The server, when the problem is in one entry.
    pub server: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Every configured server of a project (not connected).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpPanel {
    /// The project folder (canonical).
    pub project_path: String,
    /// Servers after precedence (a project server replaces a user one of the
    /// same name), sorted by name.
    pub servers: Vec<McpServerEntry>,
    /// Problems in the configuration files.
    pub problems: Vec<McpConfigProblem>,
}

/// One remote tool with its annotations (hints; trusted only for trusted
/// servers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpToolView {
    /// The server's name for it.
    pub name: String,
    /// `mcp__<server>__<tool>`.
    pub qualified_name: String,
    /// Its description.
    pub description: String,
    /// `readOnlyHint`.
    pub read_only: bool,
    /// `destructiveHint` (MCP default: true).
    pub destructive: bool,
    /// `openWorldHint` (MCP default: true).
    pub open_world: bool,
}

/// A server after a probe: its state, tools and stderr tail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerProbe {
    /// Its name.
    pub name: String,
    /// Its state after connecting (or why it did not start).
    pub state: McpServerStatus,
    /// The error or what to do next.
    pub message: Option<String>,
    /// Its tools (connected servers).
    pub tools: Vec<McpToolView>,
    /// The last lines of its stderr (stdio servers).
    pub stderr: Vec<String>,
}

/// Arguments naming a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpProjectArgs {
    /// The project folder.
    pub project_path: String,
}

/// Arguments of `mcp_save_server`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpSaveServerArgs {
    /// The project folder.
    pub project_path: String,
    /// `gatehouse` or `project` (the editable files).
    pub scope: McpScope,
    /// The server's name before this edit (`None` when adding).
    pub original_name: Option<String>,
    /// The server as it should be written.
    pub draft: McpServerDraft,
}

/// Arguments naming one server of an editable file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerRefArgs {
    /// The project folder.
    pub project_path: String,
    /// `gatehouse` or `project`.
    pub scope: McpScope,
    /// The server.
    pub name: String,
}

/// Arguments of `mcp_set_server_disabled`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpSetDisabledArgs {
    /// The project folder.
    pub project_path: String,
    /// `gatehouse` or `project`.
    pub scope: McpScope,
    /// The server.
    pub name: String,
    /// True to turn it off.
    pub disabled: bool,
}
