//! `gatehouse-cli mcp list|approve` and MCP tools in `gatehouse-cli run`,
//! as real processes against a real MCP server (the fault server of
//! gatehouse-mcp's tests: standard-library Python, so it needs no install).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn fault_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp/tests/servers/fault_server.py")
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

struct Fixture {
    data: tempfile::TempDir,
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Fixture {
    fn new(mcp_json: &Value) -> Self {
        let f = Self {
            data: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        };
        std::fs::write(f.project.path().join(".mcp.json"), mcp_json.to_string()).unwrap();
        f
    }

    fn cli(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
        cmd.env("GATEHOUSE_DATA_DIR", self.data.path())
            .env("HOME", self.home.path());
        cmd
    }

    fn list(&self, extra: &[&str]) -> (Vec<Value>, String) {
        let out = self
            .cli()
            .args(["mcp", "list", "--project"])
            .arg(self.project.path())
            .arg("--home")
            .arg(self.home.path())
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (lines, String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn fault_config() -> Value {
    json!({"mcpServers": {
        "fault": {"command": "python3", "args": [fault_server()]},
        "broken": {"url": "http://127.0.0.1:9/mcp"}
    }})
}

#[test]
fn mcp_list_needs_approval_for_project_servers_and_reports_tools() {
    let f = Fixture::new(&fault_config());
    let (servers, stderr) = f.list(&[]);
    assert!(
        stderr.contains(".mcp.json: server `broken`") && stderr.contains("no `type`"),
        "{stderr}"
    );
    assert_eq!(servers.len(), 1, "{servers:?}");
    assert_eq!(servers[0]["name"], "fault");
    assert_eq!(servers[0]["scope"], "project");
    assert_eq!(servers[0]["state"], "awaiting_approval");
    assert_eq!(servers[0]["tools"], json!([]));

    let (servers, _) = f.list(&["--trust-project"]);
    assert_eq!(servers[0]["state"], "connected", "{servers:?}");
    let tools: Vec<&str> = servers[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tools.contains(&"mcp__fault__echo"), "{tools:?}");
    assert_eq!(servers[0]["stderr"], json!(["fault server starting"]));

    // An approval stored in the data directory replaces --trust-project…
    let out = f
        .cli()
        .args(["mcp", "approve", "--project"])
        .arg(f.project.path())
        .args(["--home"])
        .arg(f.home.path())
        .arg("fault")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (servers, _) = f.list(&[]);
    assert_eq!(servers[0]["state"], "connected", "{servers:?}");
    // …until the server's command changes.
    let mut changed = fault_config();
    changed["mcpServers"]["fault"]["args"] = json!([fault_server(), "extra-arg"]);
    std::fs::write(f.project.path().join(".mcp.json"), changed.to_string()).unwrap();
    let (servers, _) = f.list(&[]);
    assert_eq!(servers[0]["state"], "awaiting_approval", "{servers:?}");
}

fn run_replay(f: &Fixture, script: &Value, extra: &[&str]) -> (Vec<Value>, String) {
    let path: PathBuf = f.data.path().join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    let out = f
        .cli()
        .args([
            "run",
            "--provider",
            "replay",
            "--ask",
            "allow",
            "--prompt",
            "go",
            "--project",
        ])
        .arg(f.project.path())
        .arg("--script")
        .arg(&path)
        .args(extra)
        .output()
        .unwrap();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (lines, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn run_uses_mcp_tools_only_for_trusted_or_approved_project_servers() {
    let f = Fixture::new(
        &json!({"mcpServers": {"fault": {"command": "python3", "args": [fault_server()]}}}),
    );
    let script = json!({"turns": [
        {"content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__fault__echo", "input": {"text": "from mcp"}}]},
        {"content": [{"type": "text", "text": "done"}]}
    ]});
    let (lines, stderr) = run_replay(&f, &script, &["--trust-project"]);
    assert_eq!(lines[0]["type"], "session_started", "{stderr}");
    let state = lines
        .iter()
        .find(|l| l["type"] == "mcp_server_state" && l["state"] == "connected")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        state["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("mcp__fault__echo"))
    );
    let done = lines
        .iter()
        .find(|l| l["type"] == "tool_completed")
        .unwrap();
    assert_eq!(done["is_error"], false, "{done}");
    assert!(done.to_string().contains("from mcp"), "{done}");

    // Without trust or approval the tool does not exist for the model.
    let (lines, _) = run_replay(&f, &script, &[]);
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "mcp_server_state" && l["state"] == "awaiting_approval")
    );
    let done = lines
        .iter()
        .find(|l| l["type"] == "tool_completed")
        .unwrap();
    assert_eq!(done["is_error"], true, "{done}");
}

#[test]
fn a_secret_header_never_reaches_sqlite_settings_or_the_event_stream() {
    let Some(servers) = test_servers() else {
        return;
    };
    let servers = PathBuf::from(servers);
    let secret = "sk-mcp-5e3a9b1c-do-not-leak";
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(servers.join("venv/bin/python"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/py_server.py"))
        .args(["http", &port.to_string(), secret])
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The token comes from the environment through `${MCP_TOKEN}`.
    let f = Fixture::new(&json!({"mcpServers": {"web": {
        "type": "http",
        "url": format!("http://127.0.0.1:{port}/mcp"),
        "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}
    }}}));
    let script = json!({"turns": [
        {"content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__web__add", "input": {"a": 20, "b": 22}}]},
        {"content": [{"type": "text", "text": "done"}]}
    ]});
    let path = f.data.path().join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    let out = f
        .cli()
        .env("MCP_TOKEN", secret)
        .args([
            "run",
            "--provider",
            "replay",
            "--ask",
            "allow",
            "--trust-project",
            "--prompt",
            "go",
            "--project",
        ])
        .arg(f.project.path())
        .arg("--script")
        .arg(&path)
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        stdout.contains("\"42\"") || stdout.contains("42"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\"state\":\"connected\""), "{stdout}");
    let mut haystack = stdout.into_bytes();
    haystack.extend_from_slice(&out.stderr);
    haystack.extend(std::fs::read(f.project.path().join(".mcp.json")).unwrap());
    // Every file in the data directory: the SQLite database, its WAL, spilled results.
    for entry in walk(f.data.path()) {
        haystack.extend(std::fs::read(entry).unwrap());
    }
    let needle = secret.as_bytes();
    assert!(
        !haystack.windows(needle.len()).any(|w| w == needle),
        "the secret header value leaked"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

impl Fixture {
    /// `mcp secret <action> --scope project …` with `stdin` piped in.
    fn secret(&self, action: &str, target: &[&str], stdin: &str) -> std::process::Output {
        use std::io::Write as _;
        let mut child = self
            .cli()
            .args(["mcp", "secret", action, "--scope", "project", "--project"])
            .arg(self.project.path())
            .args(target)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }
}

/// Whether `out` failed because there is no OS keychain here (then the test
/// is a counted skip, a failure under `cargo xtask test`, which starts one).
fn no_keychain(out: &std::process::Output) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("no keychain") {
        gatehouse_test_support::missing(format!(
            "no OS keychain (run under `cargo xtask test`, which starts one): {stderr}"
        ));
        return true;
    }
    false
}

/// The MCP test servers `cargo xtask test` installs, or a counted skip.
fn test_servers() -> Option<std::ffi::OsString> {
    gatehouse_test_support::require_env("GATEHOUSE_MCP_TEST_SERVERS", "`cargo xtask test` sets it")
}

fn all_bytes(dirs: &[&Path]) -> Vec<u8> {
    let mut out = Vec::new();
    for dir in dirs {
        for file in walk(dir) {
            out.extend(std::fs::read(file).unwrap());
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn mcp_secret_set_reads_stdin_only_and_checks_its_flags() {
    let f = Fixture::new(&fault_config());
    let out = f.secret("set", &["--server", "fault", "--env", "TOKEN"], "");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no secret value on stdin"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Exactly one of --header / --env.
    for target in [
        &["--server", "fault"][..],
        &["--server", "fault", "--env", "A", "--header", "B"],
    ] {
        let out = f.secret("set", target, "v\n");
        assert!(!out.status.success(), "{target:?}");
    }
    // --scope project needs --project.
    let out = f
        .cli()
        .args([
            "mcp", "secret", "delete", "--scope", "project", "--server", "fault", "--env", "A",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--project"));
    let help = f
        .cli()
        .args(["mcp", "secret", "set", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--server",
        "--header",
        "--env",
        "--scope",
        "--project",
        "stdin",
    ] {
        assert!(help.contains(flag), "{flag} missing from\n{help}");
    }
}

#[test]
fn a_keychain_env_value_reaches_the_server_and_nowhere_else() {
    let secret = "sk-env-51f0-do-not-leak";
    let seen = tempfile::tempdir().unwrap();
    let seen_file = seen.path().join("token");
    let f = Fixture::new(&json!({"mcpServers": {"fault": {
        "command": "sh",
        "args": ["-c", format!("printf %s \"$TOKEN\" > '{}'; exec python3 '{}'", seen_file.display(), fault_server())],
        "env": {"TOKEN": "plain-value-to-be-replaced"}
    }}}));
    let out = f.secret(
        "set",
        &["--server", "fault", "--env", "TOKEN"],
        &format!("{secret}\n"),
    );
    if no_keychain(&out) {
        return;
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["server"], "fault");
    assert_eq!(printed["scope"], "project");
    assert_eq!(printed["kind"], "env");
    assert!(
        printed["account"]
            .as_str()
            .unwrap()
            .starts_with("mcp:project:"),
        "{printed}"
    );
    let file: Value =
        serde_json::from_slice(&std::fs::read(f.project.path().join(".mcp.json")).unwrap())
            .unwrap();
    assert_eq!(file["mcpServers"]["fault"]["secretEnv"], json!(["TOKEN"]));
    assert!(file["mcpServers"]["fault"].get("env").is_none());

    let (servers, stderr) = f.list(&["--trust-project"]);
    assert_eq!(servers[0]["state"], "connected", "{servers:?} {stderr}");
    // The trailing newline from stdin was dropped; the value arrived whole.
    assert_eq!(std::fs::read_to_string(&seen_file).unwrap(), secret);
    let mut haystack = all_bytes(&[f.data.path(), f.home.path(), f.project.path()]);
    haystack.extend(serde_json::to_vec(&servers).unwrap());
    haystack.extend(stderr.as_bytes());
    haystack.extend(&out.stdout);
    haystack.extend(&out.stderr);
    assert!(!contains(&haystack, secret), "the secret env value leaked");

    let out = f.secret("delete", &["--server", "fault", "--env", "TOKEN"], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (servers, _) = f.list(&["--trust-project"]);
    assert_eq!(servers[0]["state"], "connected", "{servers:?}");
    // Deleted from the keychain and the file: the server starts without it.
    assert_eq!(std::fs::read_to_string(&seen_file).unwrap(), "");
}

#[test]
fn a_keychain_header_set_from_stdin_authenticates_and_never_leaks() {
    let Some(servers) = test_servers() else {
        return;
    };
    let servers = PathBuf::from(servers);
    let secret = "sk-hdr-93c2-do-not-leak";
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(servers.join("venv/bin/python"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/py_server.py"))
        .args(["http", &port.to_string(), secret])
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let f = Fixture::new(&json!({"mcpServers": {"web": {
        "type": "http",
        "url": format!("http://127.0.0.1:{port}/mcp")
    }}}));
    let (before, _) = f.list(&["--trust-project"]);
    assert_eq!(before[0]["state"], "needs_auth", "{before:?}");
    let out = f.secret(
        "set",
        &["--server", "web", "--header", "Authorization"],
        &format!("Bearer {secret}"),
    );
    if no_keychain(&out) {
        let _ = server.kill();
        let _ = server.wait();
        return;
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (after, stderr) = f.list(&["--trust-project"]);
    let _ = f.secret(
        "delete",
        &["--server", "web", "--header", "Authorization"],
        "",
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(after[0]["state"], "connected", "{after:?} {stderr}");
    let mut haystack = all_bytes(&[f.data.path(), f.home.path(), f.project.path()]);
    haystack.extend(serde_json::to_vec(&after).unwrap());
    haystack.extend(stderr.as_bytes());
    haystack.extend(&out.stdout);
    haystack.extend(&out.stderr);
    assert!(
        !contains(&haystack, secret),
        "the secret header value leaked"
    );
}
