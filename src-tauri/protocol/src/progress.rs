//! The payload of a `tool_progress` event: one typed variant per kind of
//! progress a call streams, tagged by `kind`.
//!
//! The wire keys are the ones these payloads had before they were typed
//! (`gatehouse-cli run` prints them, and its JSON lines are a public
//! contract): Bash's `{"kind": "started" | "output" | "interrupted", …}`
//! are unchanged; the file diff and MCP progress payloads were tagged by
//! `type` (`{"type": "file_diff", …}`, `{"type": "mcp_progress", …}`) and
//! now carry `kind` as well, with `type` still written beside it. Stored
//! payloads of earlier builds that fit none of the variants are read as
//! [`ToolProgressData::Other`] by [`crate::upgrade`].

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::diff::FileDiff;

/// What a running call reported; the variant name is the payload's `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolProgressData {
    /// Bash started the command.
    #[serde(rename = "started")]
    BashStarted {
        /// The process group id of the command.
        pid: Option<i32>,
        /// The directory it runs in.
        cwd: Option<String>,
        /// The model's description of the command, if it gave one.
        #[serde(default)]
        description: Option<String>,
        /// Where the command's whole output is being written.
        #[serde(default)]
        output_path: Option<String>,
        /// Whether it runs in the sandbox (issue 24); absent when the
        /// session's sandbox is not enabled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        sandbox: Option<BashSandboxUse>,
    },
    /// New output of a Bash command (ANSI escapes kept), at most one event
    /// per tick. Bytes dropped since the previous event (the event carries
    /// only the newest) are counted in `skipped_bytes`.
    #[serde(rename = "output")]
    BashOutput {
        /// The new text.
        text: String,
        /// Bytes produced since the last event that this one does not carry.
        #[serde(default)]
        skipped_bytes: u64,
        /// Bytes the command has produced in all so far.
        #[serde(default)]
        total_bytes: u64,
        /// Which stream the text is from, when it is known apart from the
        /// other (imported transcripts; Gatehouse's Bash interleaves them).
        #[serde(default)]
        stream: Option<OutputStream>,
    },
    /// A Bash command was stopped before it finished (interrupt or
    /// cancellation); the call's `tool_completed` follows.
    #[serde(rename = "interrupted")]
    BashInterrupted {
        /// How the process group ended, for people.
        message: String,
        /// Where the whole output is, when there is a file.
        #[serde(default)]
        output_path: Option<String>,
    },
    /// A Bash command ended on its own (not stopped, not timed out, not
    /// sent to the background): its exit code, or the signal that ended
    /// the shell. Sent once, before the call's `tool_completed`, so that a
    /// front end shows how it ended without reading the result's text.
    #[serde(rename = "exited")]
    BashExited {
        /// The shell's exit code (`None` when a signal ended it).
        exit_code: Option<i32>,
        /// The signal that ended the shell, if one did.
        signal: Option<i32>,
    },
    /// The connections a sandboxed Bash command asked the network proxy
    /// for (`sandbox.network.allowedDomains`), allowed and refused, with
    /// the bytes relayed; sent once when the command has ended, before
    /// the call's `tool_completed` (not sent when it asked for none).
    #[serde(rename = "network")]
    BashNetwork {
        /// In the order asked.
        connections: Vec<SandboxConnection>,
    },
    /// What the sandbox refused a Bash command (writes, sockets), read from its syscalls
    /// (never from its output); sent once when the command has ended,
    /// before the call's `tool_completed` (not sent when nothing was
    /// refused).
    #[serde(rename = "blocked")]
    BashBlocked {
        /// In the order refused, each path once.
        denials: Vec<SandboxDenial>,
        /// Further refusals not listed (over the per-call cap).
        #[serde(default)]
        omitted: u32,
    },
    /// The change an Edit/Write/NotebookEdit call made.
    FileDiff {
        /// The change.
        diff: FileDiff,
        /// Always `file_diff`: the payload's tag before it had `kind`,
        /// still written for readers of the old key.
        #[serde(rename = "type", default)]
        #[ts(skip)]
        legacy_type: FileDiffTag,
    },
    /// An MCP server's `notifications/progress` for the call.
    McpProgress {
        /// Progress so far (the server's unit; increases with each one).
        progress: f64,
        /// The total, if the server knows it.
        #[serde(default)]
        total: Option<f64>,
        /// The server's message, if any.
        #[serde(default)]
        message: Option<String>,
        /// Always `mcp_progress`: the payload's tag before it had `kind`,
        /// still written for readers of the old key.
        #[serde(rename = "type", default)]
        #[ts(skip)]
        legacy_type: McpProgressTag,
    },
    /// The sub-agent an Agent call started (issue 19): the session its own
    /// events are stored under (a child of this session) and how far it
    /// is. Sent when it starts, when it starts each call, and when it ends.
    Subagent {
        /// The sub-agent's session (its `parent_session_id` is this one).
        agent_session_id: String,
        /// Its agent type (`Explore`, `general-purpose`, a definition's name).
        subagent_type: String,
        /// Where it is.
        phase: SubagentPhase,
        /// The tool it is calling now (phase `running`).
        #[serde(default)]
        current_tool: Option<String>,
        /// Calls it has started so far.
        #[serde(default)]
        tool_calls: u32,
        /// Model requests it has made so far.
        #[serde(default)]
        turns: u32,
        /// Output tokens its replies used so far.
        #[serde(default)]
        output_tokens: u64,
        /// How it ended (phase `completed`).
        #[serde(default)]
        status: Option<crate::event::SessionStatus>,
    },
    /// TodoWrite replaced the session's todo list with `todos` (the whole
    /// list; the last one of a session is its current list).
    TodosUpdated {
        /// The list, in order.
        todos: Vec<crate::interaction::TodoItem>,
    },
    /// WebFetch visited (or refused) one URL: each redirect hop is one.
    WebHop {
        /// The hop.
        hop: crate::web::WebHop,
    },
    /// WebFetch read the final response.
    WebResponse {
        /// The URL the content came from (after redirects).
        final_url: String,
        /// Its HTTP status.
        status: u16,
        /// Its `Content-Type` (without parameters), when it had one.
        content_type: Option<String>,
        /// Bytes read (after decompression).
        bytes: u64,
        /// Whether the body was cut at the size cap.
        truncated: bool,
        /// Whether it came from the session's 15-minute cache.
        from_cache: bool,
    },
    /// WebSearch's results, as kept after its domain filters.
    WebSearchResults {
        /// The provider that answered ("Brave Search", "SearXNG").
        provider: String,
        /// The results, in the provider's order.
        results: Vec<crate::web::SearchResult>,
        /// Results dropped by `allowed_domains` / `blocked_domains`.
        filtered_out: u32,
    },
    /// Grep's or Glob's results as a front end lists them, sent once before
    /// the call's `tool_completed`: the entries the model got (paths,
    /// `path:line:text` lines or `path:count`), at most
    /// [`MAX_LISTED_SEARCH_ENTRIES`] (and 256 KiB), and what they count, so
    /// that nothing is read from the result's text.
    SearchResults {
        /// What `count` counts.
        unit: SearchUnit,
        /// Files found, or matching lines, in all (beyond what is listed).
        #[ts(type = "number")]
        count: u64,
        /// The entries, in the result's order.
        entries: Vec<String>,
        /// Entries the model got that are not listed here.
        #[ts(type = "number")]
        more_entries: u64,
        /// Whether the tool's limit cut the entries the model got.
        truncated: bool,
    },
    /// A payload of no known kind: a stored payload of an earlier build
    /// that fits no variant, a newer build's kind, or a test tool's own.
    /// Shown as JSON; never interpreted.
    Other {
        /// The payload as it was.
        data: serde_json::Value,
    },
}

impl ToolProgressData {
    /// Whether a later payload of the same call may take this one's place
    /// when events pile up (a flood of output or notifications). Payloads
    /// said once — how a command started or ended, what the sandbox
    /// refused, a diff, search results, a web response — are never replaced
    /// and never replace another.
    pub fn coalesces(&self) -> bool {
        match self {
            Self::BashOutput { .. }
            | Self::McpProgress { .. }
            | Self::Subagent { .. }
            | Self::TodosUpdated { .. }
            | Self::Other { .. } => true,
            Self::BashStarted { .. }
            | Self::BashInterrupted { .. }
            | Self::BashExited { .. }
            | Self::BashNetwork { .. }
            | Self::BashBlocked { .. }
            | Self::FileDiff { .. }
            | Self::WebHop { .. }
            | Self::WebResponse { .. }
            | Self::WebSearchResults { .. }
            | Self::SearchResults { .. } => false,
        }
    }

    /// A file diff payload.
    pub fn file_diff(diff: FileDiff) -> Self {
        Self::FileDiff {
            diff,
            legacy_type: FileDiffTag::FileDiff,
        }
    }

    /// An MCP progress payload.
    pub fn mcp_progress(progress: f64, total: Option<f64>, message: Option<String>) -> Self {
        Self::McpProgress {
            progress,
            total,
            message,
            legacy_type: McpProgressTag::McpProgress,
        }
    }
}

/// Which sub-agent a call belongs to, for a front end that must say so (the
/// permission prompt of a sub-agent's call names the agent, issue 19).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SubagentRef {
    /// The sub-agent's session (a child of the session that started it).
    pub agent_session_id: String,
    /// The Agent call in the parent that started it.
    pub tool_use_id: String,
    /// Its agent type (`Explore`, `general-purpose`, a definition's name).
    pub subagent_type: String,
    /// The Agent call's short description of its task.
    pub description: String,
}

/// The most entries a [`ToolProgressData::SearchResults`] lists (the
/// result the model got has them all).
pub const MAX_LISTED_SEARCH_ENTRIES: usize = 1_000;

/// What a search's `count` counts (see [`ToolProgressData::SearchResults`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SearchUnit {
    /// Files (Glob; Grep's `files_with_matches`).
    Files,
    /// Matching lines (Grep's `content` and `count` modes).
    Lines,
}

/// Where a sub-agent is (see [`ToolProgressData::Subagent`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SubagentPhase {
    /// Its session is open; its first model request follows.
    Started,
    /// It started a call (`current_tool`).
    Running,
    /// It ended (`status`).
    Completed,
}

/// The stream a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// The constant `"file_diff"` (see [`ToolProgressData::FileDiff`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileDiffTag {
    /// `file_diff`.
    #[default]
    #[serde(rename = "file_diff")]
    FileDiff,
}

/// The constant `"mcp_progress"` (see [`ToolProgressData::McpProgress`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum McpProgressTag {
    /// `mcp_progress`.
    #[default]
    #[serde(rename = "mcp_progress")]
    McpProgress,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn file_diff_and_mcp_progress_keep_their_old_type_key() {
        let diff = FileDiff {
            path: "/p/a".into(),
            created: false,
            hunks: Vec::new(),
            additions: 0,
            deletions: 0,
        };
        let v = serde_json::to_value(ToolProgressData::file_diff(diff)).unwrap();
        assert_eq!(v["kind"], "file_diff");
        assert_eq!(v["type"], "file_diff");
        let v = serde_json::to_value(ToolProgressData::mcp_progress(1.0, Some(4.0), None)).unwrap();
        assert_eq!(v["kind"], "mcp_progress");
        assert_eq!(v["type"], "mcp_progress");
        assert_eq!(v["progress"], 1.0);
        assert_eq!(v["total"], 4.0);
    }

    #[test]
    fn bash_payloads_keep_their_shape() {
        let v = serde_json::to_value(ToolProgressData::BashOutput {
            text: "hi\n".into(),
            skipped_bytes: 0,
            total_bytes: 3,
            stream: None,
        })
        .unwrap();
        assert_eq!(
            v,
            json!({"kind": "output", "text": "hi\n", "skipped_bytes": 0, "total_bytes": 3, "stream": null})
        );
    }
}

/// How one Bash command relates to the session's sandbox (issue 24).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum BashSandboxUse {
    /// It runs inside bubblewrap.
    Sandboxed {
        /// What it may write (canonical folders).
        writable_roots: Vec<String>,
        /// Its network.
        network: SandboxNetwork,
        /// With [`SandboxNetwork::Proxy`]: the domain patterns the proxy
        /// lets through (`example.com`, `*.example.com`), normalised.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        allowed_domains: Option<Vec<String>>,
        /// Whether refused writes are reported (a `blocked` progress
        /// event): false when `gatehouse-sandbox-exec` is not installed
        /// beside Gatehouse, and in events stored by earlier builds. The
        /// writes are refused either way.
        #[serde(default)]
        reports_blocked_writes: bool,
    },
    /// It runs outside: one of `sandbox.excludedCommands`.
    Excluded,
    /// It runs outside: the call set `dangerouslyDisableSandbox` (and the
    /// user allowed it).
    DisabledByCall,
    /// The sandbox is enabled but cannot run here; it runs unconfined.
    Unavailable {
        /// Why, and how to fix it, in words (for people and older readers).
        reason: String,
        /// Why, typed (absent in events stored by earlier builds).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        why: Option<crate::sandbox::SandboxUnavailable>,
    },
}

/// A sandboxed command's network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SandboxNetwork {
    /// No network at all.
    Off,
    /// Only the hosts of `sandbox.network.allowedDomains`, through the
    /// filtering proxy (listed in the use's `allowed_domains`).
    Proxy,
}

/// What kind of thing the sandbox refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SandboxDenialKind {
    /// A write (create, open for writing, truncate, remove, rename, link)
    /// to a path the sandbox keeps read-only: a protected path (`.git/`,
    /// `.claude/`, …), a hidden one, or anything outside the writable
    /// roots.
    Write,
    /// A network socket of a family the sandbox does not allow (any but
    /// Unix sockets with the network off; with allowed domains, Internet
    /// sockets are allowed and reach only the proxy).
    Network,
}

/// One thing the sandbox refused a command, read from the syscall (seccomp
/// user notifications), not from the command's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxDenial {
    /// What was refused.
    pub kind: SandboxDenialKind,
    /// A write: the path, absolute inside the sandbox (the same as on the
    /// host: the sandbox binds folders at their own paths). A socket: its
    /// address family (`AF_INET`, `AF_INET6`, `AF_NETLINK`, …).
    pub target: String,
    /// The syscall (`openat`, `unlinkat`, `renameat2`, `socket`, …).
    pub syscall: String,
}

/// One connection a sandboxed command asked the network proxy for
/// (`sandbox.network.allowedDomains`), in the order asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxConnection {
    /// The host asked for, normalised (lower case, no trailing dot).
    pub host: String,
    /// The port.
    pub port: u16,
    /// Whether the allowed domains let it through (else it got `403`).
    pub allowed: bool,
    /// Bytes from the command to the host.
    pub bytes_up: u64,
    /// Bytes from the host to the command.
    pub bytes_down: u64,
    /// Why an allowed connection failed (resolving, connecting), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}
