//! `gatehouse-cli run` as a real process: JSON lines out, events stored,
//! exit codes, SIGKILL mid-session, resume.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gatehouse_store::Store;
use serde_json::{Value, json};

fn cli(data_dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
    cmd.env("GATEHOUSE_DATA_DIR", data_dir)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("OPENAI_API_KEY");
    cmd
}

fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn types(lines: &[Value]) -> Vec<&str> {
    lines.iter().map(|l| l["type"].as_str().unwrap()).collect()
}

struct Fixture {
    data: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self {
            data: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }
    fn script(&self, name: &str, script: &Value) -> std::path::PathBuf {
        let path = self.data.path().join(name);
        std::fs::write(&path, script.to_string()).unwrap();
        path
    }
    fn run_replay(&self, script: &Path, extra: &[&str]) -> std::process::Output {
        cli(self.data.path())
            .args(["run", "--provider", "replay", "--project"])
            .arg(self.project.path())
            .arg("--script")
            .arg(script)
            .args(extra)
            .output()
            .unwrap()
    }
}

#[test]
fn a_replayed_session_prints_every_event_and_stores_it() {
    let f = Fixture::new();
    let script = f.script(
        "s.json",
        &json!({"turns": [
            {"content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "name": "NoSuchTool", "input": {"x": 1}}
            ]},
            {"content": [{"type": "text", "text": "Finished."}]}
        ]}),
    );
    let out = f.run_replay(&script, &["--prompt", "please check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = lines(&out.stdout);
    let t = types(&lines);
    assert_eq!(t[0], "session_started");
    // `tools_unavailable` (WebSearch without a search provider in this
    // home's settings) may come before the prompt.
    let prompt = t.iter().position(|x| *x == "user_prompt").unwrap();
    assert!(
        t[1..prompt].iter().all(|x| *x == "tools_unavailable"),
        "{t:?}"
    );
    assert_eq!(lines[prompt]["text"], "please check");
    // The exchange completes, then closing the session ends it (issue 17).
    assert_eq!(t[t.len() - 2], "session_completed");
    assert_eq!(lines[lines.len() - 2]["status"], "completed");
    assert_eq!(*t.last().unwrap(), "session_ended");
    assert_eq!(lines.last().unwrap()["reason"], "closed");
    assert_eq!(t.iter().filter(|x| **x == "turn_completed").count(), 2);
    let completed = lines
        .iter()
        .find(|l| l["type"] == "tool_completed")
        .unwrap();
    assert_eq!(completed["is_error"], true);
    // Additive since issue 16: how the call ended, typed.
    assert_eq!(completed["status"], "error");
    let session = lines[0]["session_id"].as_str().unwrap().to_owned();
    assert!(lines.iter().all(|l| l["session_id"] == session.as_str()));

    let store = Store::open(f.data.path()).unwrap();
    let (events, _) = store.session_events(&session).unwrap();
    let stored: Vec<Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(stored, lines, "stdout and the store agree exactly");
    assert_eq!(
        store.session(&session).unwrap().unwrap().status,
        "completed"
    );
}

#[test]
fn exit_codes_say_how_the_session_ended() {
    let f = Fixture::new();
    // The model asks for a second reply the script does not have.
    let short = f.script(
        "short.json",
        &json!({"turns": [{"content": [{"type": "tool_use", "name": "X", "input": {}}]}]}),
    );
    let out = f.run_replay(&short, &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no reply left"), "{stderr}");
    let l = lines(&out.stdout);
    assert!(
        l.iter()
            .any(|e| e["type"] == "session_error" && e["kind"] == "script")
    );
    assert_eq!(l[l.len() - 2]["status"], "failed");
    assert_eq!(l.last().unwrap()["type"], "session_ended");

    let bad = f.script(
        "bad.json",
        &json!({"turns": [{"content": [{"type": "video"}]}]}),
    );
    let out = f.run_replay(&bad, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.json") && stderr.contains("invalid replay script"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let out = cli(f.data.path())
        .args([
            "run",
            "--provider",
            "replay",
            "--project",
            "/no/such/dir",
            "--script",
        ])
        .arg(&short)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/dir"));

    let out = cli(f.data.path())
        .args([
            "run",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--prompt",
            "x",
            "--project",
        ])
        .arg(f.project.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ANTHROPIC_API_KEY"));

    let out = cli(f.data.path())
        .args(["run", "--provider", "replay", "--project"])
        .arg(f.project.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "--script is required for replay"
    );
}

/// A one-shot HTTP server on 127.0.0.1 answering every request with `body`.
fn serve_sse(body: String) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().unwrap();
        let mut buf = Vec::new();
        let mut tmp = [0u8; 4096];
        loop {
            let n = sock.read(&mut tmp).unwrap();
            buf.extend_from_slice(&tmp[..n]);
            let text = String::from_utf8_lossy(&buf).into_owned();
            if let Some(p) = text.find("\r\n\r\n") {
                let len: usize = text
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if buf.len() >= p + 4 + len {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        write!(
            sock,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
            body.len(),
            body
        )
        .unwrap();
        vec![String::from_utf8_lossy(&buf).into_owned()]
    });
    (url, handle)
}

#[test]
fn an_anthropic_session_runs_against_a_local_server_with_the_key_from_the_environment() {
    let f = Fixture::new();
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let body = [
        ev(
            "message_start",
            json!({"message": {"id": "msg_1", "usage": {"input_tokens": 3}}}),
        ),
        ev(
            "content_block_start",
            json!({"index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ev(
            "content_block_delta",
            json!({"index": 0, "delta": {"type": "text_delta", "text": "Hi there"}}),
        ),
        ev("content_block_stop", json!({"index": 0})),
        ev(
            "message_delta",
            json!({"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ),
        ev("message_stop", json!({})),
    ]
    .concat();
    let (url, server) = serve_sse(body);
    let out = cli(f.data.path())
        .env("ANTHROPIC_API_KEY", "sk-secret-cli-key")
        .env("ANTHROPIC_BASE_URL", &url)
        .args([
            "run",
            "--provider",
            "anthropic",
            "--model",
            "claude-x",
            "--prompt",
            "hello",
            "--project",
        ])
        .arg(f.project.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let request = server.join().unwrap().join("");
    assert!(
        request.contains("x-api-key: sk-secret-cli-key"),
        "{request}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(stdout.contains("Hi there"));
    assert!(
        !stdout.contains("sk-secret-cli-key"),
        "the key never reaches events"
    );
    let db = std::fs::read(f.data.path().join("gatehouse.sqlite3")).unwrap();
    let wal = std::fs::read(f.data.path().join("gatehouse.sqlite3-wal")).unwrap_or_default();
    for bytes in [db, wal] {
        assert!(!String::from_utf8_lossy(&bytes).contains("sk-secret-cli-key"));
    }
}

#[test]
fn sigkill_mid_session_loses_nothing_printed_and_the_session_resumes() {
    let f = Fixture::new();
    let turn = json!({"delay_ms": 40, "content": [
        {"type": "text", "text": "Working on it."},
        {"type": "tool_use", "name": "Missing", "input": {}}
    ]});
    let turns: Vec<Value> = std::iter::repeat_n(turn, 200).collect();
    let long = f.script("long.json", &json!({ "turns": turns }));
    let mut child = cli(f.data.path())
        .args(["run", "--provider", "replay", "--project"])
        .arg(f.project.path())
        .arg("--script")
        .arg(&long)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut printed = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    // Kill it in the middle of its third turn.
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the run ended early"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        let third = v["type"] == "model_request_started" && v["turn"] == 3;
        printed.push(v);
        if third {
            break;
        }
        assert!(Instant::now() < deadline);
    }
    std::thread::sleep(Duration::from_millis(50));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let mut rest = String::new();
    let _ = reader.read_to_string(&mut rest);
    printed.extend(
        rest.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok()),
    );

    let session = printed[0]["session_id"].as_str().unwrap().to_owned();
    let store = Store::open(f.data.path()).unwrap();
    let (events, _) = store.session_events(&session).unwrap();
    let stored: Vec<Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert!(stored.len() >= printed.len());
    assert_eq!(
        &stored[..printed.len()],
        &printed[..],
        "every printed event was stored first"
    );
    assert_eq!(store.session(&session).unwrap().unwrap().status, "running");
    drop(store);

    // Resume: the history comes back (two finished turns and the third's
    // prompt), and the session completes.
    let fin = f.script(
        "fin.json",
        &json!({"turns": [{"content": [{"type": "text", "text": "Resumed."}]}]}),
    );
    let out = f.run_replay(&fin, &["--resume", &session, "--prompt", "carry on"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = lines(&out.stdout);
    assert_eq!(l[0]["type"], "session_started");
    assert_eq!(l[0]["resumed"], true);
    assert!(l.iter().all(|e| e["session_id"] == session.as_str()));
    let req = l
        .iter()
        .find(|e| e["type"] == "model_request_started")
        .unwrap();
    assert!(req["turn"].as_u64().unwrap() >= 3, "{req}");
    assert!(req["messages"].as_u64().unwrap() >= 5, "{req}");
    let store = Store::open(f.data.path()).unwrap();
    assert_eq!(
        store.session(&session).unwrap().unwrap().status,
        "completed"
    );
}

#[test]
fn run_help_documents_the_flags() {
    let f = Fixture::new();
    let out = cli(f.data.path()).args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "--project",
        "--provider",
        "--script",
        "--model",
        "--base-url",
        "--mode",
        "--ask",
        "--prompt",
        "--resume",
    ] {
        assert!(help.contains(flag), "{flag} missing from\n{help}");
    }
    let _ = std::io::stdout().flush();
}

#[test]
fn keys_status_names_the_source_and_never_prints_the_key() {
    let f = Fixture::new();
    let out = cli(f.data.path())
        .env("ANTHROPIC_API_KEY", "sk-status-secret")
        .args(["keys", "status", "anthropic"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, json!({"provider": "anthropic", "source": "env"}));
    let mut child = cli(f.data.path())
        .args(["keys", "set", "openai"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no key on stdin"));
}

#[test]
fn ctrl_c_interrupts_the_turn_and_the_session_ends_interrupted() {
    let f = Fixture::new();
    let turn = json!({"delay_ms": 300, "content": [{"type": "text", "text": "slow"}, {"type": "tool_use", "name": "X", "input": {}}]});
    let turns: Vec<Value> = std::iter::repeat_n(turn, 50).collect();
    let script = f.script("slow.json", &json!({ "turns": turns }));
    let mut child = cli(f.data.path())
        .args(["run", "--provider", "replay", "--project"])
        .arg(f.project.path())
        .arg("--script")
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("model_request_started") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0);
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    reader.read_to_string(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let rest: Vec<Value> = rest
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = &rest[rest.len() - 2];
    assert_eq!(last["type"], "session_completed");
    assert_eq!(last["status"], "interrupted");
    assert_eq!(rest[rest.len() - 1]["type"], "session_ended");
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
}

#[test]
fn sessions_can_be_listed_shown_and_searched() {
    let f = Fixture::new();
    let script = f.script(
        "s.json",
        &json!({"turns": [{"content": [{"type": "text", "text": "The wombat migration is done."}]}]}),
    );
    let out = f.run_replay(&script, &["--prompt", "migrate the wombats"]);
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let id = lines(printed.as_bytes())[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let out = cli(f.data.path())
        .args(["sessions", "list", "--project"])
        .arg(f.project.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = lines(&out.stdout);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["status"], "completed");
    assert_eq!(list[0]["title"], "migrate the wombats");

    let out = cli(f.data.path())
        .args(["sessions", "show", &id])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        printed,
        "show prints exactly what run printed"
    );

    let out = cli(f.data.path())
        .args(["sessions", "search", "wombat*"])
        .output()
        .unwrap();
    let hits = lines(&out.stdout);
    let kinds: Vec<&str> = hits.iter().map(|h| h["type"].as_str().unwrap()).collect();
    assert!(
        kinds.contains(&"user_prompt") && kinds.contains(&"assistant_message"),
        "{kinds:?}"
    );

    let out = cli(f.data.path())
        .args(["sessions", "show", "nope"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no stored session with id nope"));
}

#[test]
fn the_demo_script_runs_the_real_tools_on_the_sample_project() {
    let f = Fixture::new();
    gatehouse_agent::demo::create_sample_project(f.project.path()).unwrap();
    let script = f.data.path().join("demo.json");
    std::fs::write(&script, gatehouse_agent::demo::SCRIPT_JSON).unwrap();
    let out = f.run_replay(&script, &["--ask", "allow"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = lines(&out.stdout);
    let completed: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "tool_completed")
        .collect();
    let names: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "tool_queued")
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    for tool in ["Glob", "Read", "Grep", "Edit", "Bash"] {
        assert!(names.contains(&tool), "{tool} missing from {names:?}");
    }
    for c in &completed {
        assert_eq!(c["is_error"], false, "{c}");
    }
    let greeter = std::fs::read_to_string(f.project.path().join("src/greeter.py")).unwrap();
    assert!(greeter.contains("Hello, {name}!"), "{greeter}");
    let bash = completed.last().unwrap();
    assert!(
        bash["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Hello, Ada!"),
        "{bash}"
    );
}
