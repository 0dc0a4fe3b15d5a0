//! Real Claude Code guarded by Gatehouse (issue 25): the pinned
//! `@anthropic-ai/claude-code` (installed by `cargo xtask test` into
//! `target/claude-code/<version>`, found through `GATEHOUSE_CLAUDE_CODE`)
//! runs in print mode against a scripted Anthropic Messages API on
//! 127.0.0.1, in a throwaway HOME with the project trusted, guarded with
//! `gatehouse-cli claude-code guard`. The model asks for `git push`;
//! Gatehouse's PreToolUse hook denies it, and the tool result Claude Code
//! sends back to the model carries Gatehouse's reason.
//!
//! The model is the only scripted part: there is no model here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// The Claude Code version the tests are written against.
const PINNED: &str = "2.1.332";

/// The pinned Claude Code's `claude`, or `None` (a counted skip, a failure
/// under `cargo xtask test`) saying how to get it.
fn claude() -> Option<PathBuf> {
    if std::env::var_os("GATEHOUSE_SKIP_CLAUDE_CODE").is_some() {
        gatehouse_test_support::not_applicable(
            "`cargo xtask test --skip-claude-code`: the real Claude Code tests are off",
        );
        return None;
    }
    let bin = gatehouse_test_support::require_env(
        "GATEHOUSE_CLAUDE_CODE",
        "`cargo xtask test` installs @anthropic-ai/claude-code@2.1.332 with npm and sets it; \
         or `npm install --prefix DIR @anthropic-ai/claude-code@2.1.332` and set it to \
         DIR/node_modules/.bin/claude",
    )?;
    Some(PathBuf::from(bin))
}

/// One SSE event.
fn sse(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// A streamed reply of one content block.
fn streamed(block: &Value, delta: &Value, stop: &str) -> String {
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

/// The scripted model: with the Bash tool and no tool result yet, it asks
/// for `git push origin main`; after a tool result it says it is done; any
/// other request (titles, quota checks) gets a short text.
fn reply_to(body: &Value) -> String {
    let has_bash = body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == "Bash"));
    let last = body["messages"].as_array().and_then(|m| m.last());
    let after_tool = last
        .and_then(|m| m["content"].as_array())
        .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
    if has_bash && !after_tool {
        streamed(
            &json!({"type": "tool_use", "id": "toolu_scripted_push", "name": "Bash", "input": {}}),
            &json!({"type": "input_json_delta",
                    "partial_json": json!({"command": "git push origin main", "description": "Push the branch"}).to_string()}),
            "tool_use",
        )
    } else {
        streamed(
            &json!({"type": "text", "text": ""}),
            &json!({"type": "text_delta", "text": "Done."}),
            "end_turn",
        )
    }
}

fn serve_one(stream: TcpStream, seen: &Mutex<Vec<Value>>) -> std::io::Result<()> {
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
        let text = reply_to(&body);
        seen.lock().unwrap().push(body);
        ("text/event-stream", text)
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

/// The scripted Anthropic API on 127.0.0.1: its base URL and every
/// Messages request body it got.
fn scripted_api() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let kept = Arc::clone(&kept);
            std::thread::spawn(move || {
                let _ = serve_one(stream, &kept);
            });
        }
    });
    (url, seen)
}

fn gatehouse(data: &Path, home: &Path, project: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", data)
        .env("HOME", home)
        .current_dir(project)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn gatehouse_denies_git_push_in_a_real_claude_code_session_and_claude_code_passes_the_reason_on() {
    let Some(claude) = claude() else { return };
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("project");
    let data = root.path().join("data");
    for d in [&home, &project, &data] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (home, project) = (
        home.canonicalize().unwrap(),
        project.canonicalize().unwrap(),
    );
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .status()
        .unwrap();
    assert!(git.success());
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    // The project trusted, onboarding done: no interactive screen.
    std::fs::write(
        home.join(".claude.json"),
        json!({"hasCompletedOnboarding": true, "projects": {
            project.display().to_string(): {"hasTrustDialogAccepted": true, "allowedTools": []}}})
        .to_string(),
    )
    .unwrap();
    // A user hook beside Gatehouse's that keeps Claude Code's real stdin.
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let captured = root.path().join("pre_tool_use_stdin.json");
    std::fs::write(
        home.join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": format!("cat > '{}'", captured.display())}]}]}})
        .to_string(),
    )
    .unwrap();
    let guarded = gatehouse(&data, &home, &project, &["claude-code", "guard"]);
    assert_eq!(guarded["installed"], true);

    let (url, seen) = scripted_api();
    // Bounded by coreutils' `timeout`: a Claude Code that hangs is killed
    // (exit 124/137) and the test fails with its output.
    let child = Command::new("timeout")
        .args(["--kill-after=5", "180"])
        .arg(&claude)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("ANTHROPIC_BASE_URL", &url)
        .env("ANTHROPIC_API_KEY", "sk-ant-dummy-not-a-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("GATEHOUSE_DATA_DIR", &data)
        .current_dir(&project)
        .args(["-p", "push the branch", "--output-format", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "claude -p failed ({:?}):\nstdout: {stdout}\nstderr: {stderr}",
        out.status
    );

    let requests = seen.lock().unwrap().clone();
    let tool_results: Vec<String> = requests
        .iter()
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .collect();
    assert!(
        tool_results
            .iter()
            .any(|c| c.contains("Gatehouse: rule Bash(git push:*)")),
        "Claude Code's tool result carries Gatehouse's reason: {tool_results:?}\nstdout: {stdout}"
    );

    // Claude Code's real hook input, as Gatehouse reads it.
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&captured).unwrap()).unwrap();
    for field in [
        "session_id",
        "transcript_path",
        "cwd",
        "permission_mode",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ] {
        assert!(stdin.get(field).is_some(), "{field} missing in {stdin}");
    }
    eprintln!("Claude Code {PINNED}'s PreToolUse stdin: {stdin}\ntool results: {tool_results:?}");
    let session = stdin["session_id"].as_str().unwrap();
    let shown = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", &data)
        .args(["sessions", "show", session])
        .output()
        .unwrap();
    let events = String::from_utf8_lossy(&shown.stdout);
    assert!(
        events.contains(r#""decision":"deny""#) && events.contains("toolu_scripted_push"),
        "the call is in Gatehouse's ledger: {events}"
    );
    let status = gatehouse(&data, &home, &project, &["claude-code", "status"]);
    assert_eq!(
        status["last_call"]["claude_code_version"], PINNED,
        "{status}"
    );
}
