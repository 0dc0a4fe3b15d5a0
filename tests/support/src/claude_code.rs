//! Real Claude Code in tests (issue 25): where the pinned `claude` is, a
//! throwaway `HOME` it runs in, and a scripted Anthropic Messages API on
//! 127.0.0.1 that plays the model.
//!
//! The model is the only scripted part; Claude Code, its hooks, Gatehouse
//! and the files are real. Shared by `cli/tests/claude_code_real.rs` and
//! the end-to-end test that answers Claude Code's ask in the real window.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// The Claude Code version the tests are written against (the pin in
/// `xtask/claude-code/package.json`).
pub const PINNED: &str = "2.1.332";

/// Where `cargo xtask test` puts the pinned `claude`.
pub const CLAUDE_CODE_ENV: &str = "GATEHOUSE_CLAUDE_CODE";

/// Set by `cargo xtask test --skip-claude-code`.
pub const SKIP_CLAUDE_CODE_ENV: &str = "GATEHOUSE_SKIP_CLAUDE_CODE";

/// The pinned Claude Code's `claude`, or `None` (a counted skip, a failure
/// under `cargo xtask test`) saying how to get it.
pub fn claude() -> Option<PathBuf> {
    if std::env::var_os(SKIP_CLAUDE_CODE_ENV).is_some() {
        crate::not_applicable(
            "`cargo xtask test --skip-claude-code`: the real Claude Code tests are off",
        );
        return None;
    }
    let bin = crate::require_env(
        CLAUDE_CODE_ENV,
        &format!(
            "`cargo xtask test` installs @anthropic-ai/claude-code@{PINNED} with npm and sets it; \
             or `npm install --prefix DIR @anthropic-ai/claude-code@{PINNED}` and set it to \
             DIR/node_modules/.bin/claude"
        ),
    )?;
    Some(PathBuf::from(bin))
}

/// Makes `home` a Claude Code home where onboarding is done and `project`
/// is trusted, so print mode shows no interactive screen.
pub fn trust_project(home: &Path, project: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(home.join(".claude"))?;
    std::fs::write(
        home.join(".claude.json"),
        json!({"hasCompletedOnboarding": true, "projects": {
            project.display().to_string(): {"hasTrustDialogAccepted": true, "allowedTools": []}}})
        .to_string(),
    )
}

/// `claude -p PROMPT --output-format json` in `project`, with nothing of
/// the developer's environment but `PATH`: `home` as `HOME`, the scripted
/// API at `api_url`, no non-essential traffic, and `extra_env` (such as
/// `GATEHOUSE_DATA_DIR`, which the hooks inherit). Bounded by coreutils'
/// `timeout`: a Claude Code that hangs is killed (exit 124/137).
pub fn print_mode(
    claude: &Path,
    home: &Path,
    project: &Path,
    api_url: &str,
    prompt: &str,
    extra_env: &[(&str, &Path)],
) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.args(["--kill-after=5", "300"])
        .arg(claude)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", api_url)
        .env("ANTHROPIC_API_KEY", "sk-ant-dummy-not-a-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .current_dir(project)
        .args(["-p", prompt, "--output-format", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in extra_env {
        cmd.env(key, value);
    }
    cmd
}

/// What the scripted model answers one Messages request with.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A `tool_use` block (streamed as Claude does, the input as one
    /// `input_json_delta`), stop reason `tool_use`.
    ToolUse {
        /// The block's id, which the tool result names.
        id: String,
        /// The tool, e.g. `Bash`.
        name: String,
        /// The tool's input.
        input: Value,
    },
    /// A text block, stop reason `end_turn`.
    Text(String),
}

impl Reply {
    /// A `tool_use` reply.
    pub fn tool(id: &str, name: &str, input: Value) -> Self {
        Reply::ToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            input,
        }
    }
}

/// Whether a Messages request is the main conversation (it offers `tool`),
/// not one of Claude Code's side requests (titles, quota checks).
pub fn offers_tool(body: &Value, tool: &str) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == tool))
}

/// Every `tool_result` block of a Messages request's conversation, in
/// order: `(tool_use_id, content as JSON text)`.
pub fn tool_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            (
                b["tool_use_id"].as_str().unwrap_or_default().to_owned(),
                b["content"].to_string(),
            )
        })
        .collect()
}

/// One SSE event.
fn sse(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// `reply` as the Messages API streams it.
fn streamed(reply: &Reply) -> String {
    let (block, delta, stop) = match reply {
        Reply::ToolUse { id, name, input } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
        Reply::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    let message = json!({"id": "msg_scripted", "type": "message", "role": "assistant",
        "model": "claude-scripted", "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}});
    [
        sse(
            "message_start",
            &json!({"type": "message_start", "message": message}),
        ),
        sse(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        sse(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        sse(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": 0}),
        ),
        sse(
            "message_delta",
            &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                    "usage": {"output_tokens": 5}}),
        ),
        sse("message_stop", &json!({"type": "message_stop"})),
    ]
    .concat()
}

type Script = dyn Fn(&Value) -> Reply + Send + Sync;

fn serve_one(stream: TcpStream, script: &Script, seen: &Mutex<Vec<Value>>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut out = stream;
    let path = request_line.split_whitespace().nth(1).unwrap_or("");
    let (content_type, text) = if path.contains("count_tokens") {
        ("application/json", json!({"input_tokens": 10}).to_string())
    } else if path.starts_with("/v1/messages") {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if let Ok(mut seen) = seen.lock() {
            seen.push(body.clone());
        }
        ("text/event-stream", streamed(&script(&body)))
    } else {
        ("application/json", "{}".to_owned())
    };
    let status = if path.starts_with("/v1/") {
        "200 OK"
    } else {
        "404 Not Found"
    };
    write!(
        out,
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    )
}

/// A scripted Anthropic Messages API on 127.0.0.1.
pub struct ScriptedApi {
    /// Its base URL, for `ANTHROPIC_BASE_URL`.
    pub url: String,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedApi {
    /// Serves every connection on its own thread; `script` chooses each
    /// Messages reply from the request body (it may block, e.g. until the
    /// test lets the model go on: Claude Code waits for the reply).
    pub fn start(
        script: impl Fn(&Value) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}", listener.local_addr()?);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        let script: Arc<Script> = Arc::new(script);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                let script = Arc::clone(&script);
                std::thread::spawn(move || {
                    let _ = serve_one(stream, &*script, &kept);
                });
            }
        });
        Ok(ScriptedApi { url, seen })
    }

    /// Every Messages request body received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}
