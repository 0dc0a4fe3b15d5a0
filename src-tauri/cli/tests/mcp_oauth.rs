//! `gatehouse-cli mcp login|logout` as real processes against a real OAuth
//! MCP server (gatehouse-mcp's `oauth_server.py`, built on the Python `mcp`
//! SDK's authorization-server support), and the secret-leak scan: after a
//! sign-in and a `run` that calls the server's tool, no access token,
//! refresh token or client secret is in the SQLite file, the settings and
//! configuration files, the output (logs) or the event stream.
//!
//! The browser is replaced by `--no-browser` plus an HTTP client that
//! follows the printed URL (the authorization server's 302 to the CLI's
//! loopback redirect). Tokens go to the OS keychain the CLI opens: run under
//! `dbus-run-session` with gnome-keyring (`cargo xtask test` does); the test
//! signs out at the end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A GET with a raw HTTP/1.1 request: (status, Location header).
fn http_get(url: &str) -> (u16, Option<String>) {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    let status = response.split_whitespace().nth(1).unwrap().parse().unwrap();
    let location = response
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("location:"))
        .map(|l| l[9..].trim().to_owned());
    (status, location)
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

#[test]
fn cli_mcp_login_logout_and_no_oauth_secret_leaks() {
    let Some(servers) = gatehouse_test_support::require_env(
        "GATEHOUSE_MCP_TEST_SERVERS",
        "`cargo xtask test` sets it",
    ) else {
        return;
    };
    if gatehouse_test_support::require_env(
        "DBUS_SESSION_BUS_ADDRESS",
        "run under dbus-run-session with gnome-keyring",
    )
    .is_none()
    {
        return;
    }
    let servers = PathBuf::from(servers);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let record = tempfile::NamedTempFile::new().unwrap();
    let _server = Killed(
        Command::new(servers.join("venv/bin/python"))
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/oauth_server.py"))
            .arg(port.to_string())
            .arg(record.path())
            .spawn()
            .unwrap(),
    );
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    std::fs::write(
        project.path().join(".mcp.json"),
        json!({"mcpServers": {"web": {"type": "http", "url": url}}}).to_string(),
    )
    .unwrap();
    let cli = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
        cmd.env("GATEHOUSE_DATA_DIR", data.path())
            .env("HOME", home.path());
        cmd
    };
    let output = std::cell::RefCell::new(Vec::<u8>::new());
    let run = |args: &[&str]| -> (bool, String) {
        let out = cli()
            .args(args)
            .arg("--project")
            .arg(project.path())
            .output()
            .unwrap();
        output.borrow_mut().extend(&out.stdout);
        output.borrow_mut().extend(&out.stderr);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };

    // Before signing in: needs_auth, saying how to sign in.
    let (ok, text) = run(&["mcp", "list", "--trust-project"]);
    assert!(ok, "{text}");
    assert!(text.contains("\"state\":\"needs_auth\""), "{text}");
    assert!(text.contains("gatehouse-cli mcp login web"), "{text}");

    // Sign in: the CLI prints the URL; a client plays the browser.
    let mut login = cli()
        .args([
            "mcp",
            "login",
            "web",
            "--no-browser",
            "--timeout-secs",
            "60",
            "--project",
        ])
        .arg(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(login.stderr.take().unwrap());
    let mut line = String::new();
    let mut login_err = String::new();
    let authorize = loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "no URL printed: {login_err}"
        );
        login_err.push_str(&line);
        if let Some(at) = line.find("http://127.0.0.1") {
            break line[at..].trim().to_owned();
        }
    };
    assert!(authorize.contains("/authorize?"), "{authorize}");
    let (status, location) = http_get(&authorize);
    assert_eq!(status, 302);
    let (status, _) = http_get(&location.unwrap());
    assert_eq!(status, 200);
    let done = login.wait_with_output().unwrap();
    let _ = stderr.read_to_string(&mut login_err);
    output.borrow_mut().extend(&done.stdout);
    output.borrow_mut().extend(login_err.as_bytes());
    assert!(done.status.success(), "{login_err}");
    let signed: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(signed["server"], "web");
    assert_eq!(signed["signed_in"], true);
    assert_eq!(signed["url"], url);

    // Listed as connected with the server's tools, and usable from `run`.
    let (ok, text) = run(&["mcp", "list", "--trust-project"]);
    assert!(ok && text.contains("\"state\":\"connected\""), "{text}");
    assert!(text.contains("mcp__web__add"), "{text}");
    let script = data.path().join("script.json");
    std::fs::write(
        &script,
        json!({"turns": [
            {"content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__web__add", "input": {"a": 20, "b": 22}}]},
            {"content": [{"type": "text", "text": "done"}]}
        ]})
        .to_string(),
    )
    .unwrap();
    let (ok, text) = run(&[
        "run",
        "--provider",
        "replay",
        "--ask",
        "allow",
        "--trust-project",
        "--prompt",
        "go",
        "--script",
        script.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    let completed = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["type"] == "tool_completed")
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(completed["is_error"], false, "{completed}");
    assert!(completed.to_string().contains("42"), "{completed}");

    // The leak scan: what the server issued is nowhere but the keychain.
    let issued: Value =
        serde_json::from_str(&std::fs::read_to_string(record.path()).unwrap()).unwrap();
    let secrets: Vec<String> = ["client_secrets", "access_tokens", "refresh_tokens"]
        .iter()
        .flat_map(|k| issued[k].as_array().unwrap().clone())
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(secrets.len(), 3, "{issued}");
    let mut haystack = output.borrow().clone();
    // The SQLite database (and its WAL), settings, spilled results; the
    // home folder's config; the project's files.
    for dir in [data.path(), home.path(), project.path()] {
        for file in walk(dir) {
            haystack.extend(std::fs::read(file).unwrap());
        }
    }
    assert!(
        walk(data.path())
            .iter()
            .any(|p| p.to_string_lossy().contains(".db") || p.to_string_lossy().contains("sqlite")),
        "the SQLite file was scanned: {:?}",
        walk(data.path())
    );
    for secret in &secrets {
        let needle = secret.as_bytes();
        assert!(
            !haystack.windows(needle.len()).any(|w| w == needle),
            "an OAuth secret leaked into files, output or events"
        );
    }

    // Sign out: the tokens are gone and the server needs a sign-in again.
    let (ok, text) = run(&["mcp", "logout", "web"]);
    assert!(ok, "{text}");
    let out: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        out,
        json!({"server": "web", "url": url, "signed_out": true})
    );
    let (ok, text) = run(&["mcp", "list", "--trust-project"]);
    assert!(ok && text.contains("\"state\":\"needs_auth\""), "{text}");
    let (_, text) = run(&["mcp", "logout", "web"]);
    assert!(text.contains("\"signed_out\":false"), "{text}");

    // A server that does not use OAuth is refused with the reason.
    std::fs::write(
        project.path().join(".mcp.json"),
        json!({"mcpServers": {"local": {"command": "true"}}}).to_string(),
    )
    .unwrap();
    let (ok, text) = run(&["mcp", "login", "local", "--no-browser"]);
    assert!(!ok);
    assert!(text.contains("does not sign in with OAuth"), "{text}");
}

#[test]
fn mcp_help_documents_login_and_logout() {
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let mcp = help(&["mcp"]);
    assert!(mcp.contains("login") && mcp.contains("logout"), "{mcp}");
    let login = help(&["mcp", "login"]);
    for flag in [
        "--project",
        "--home",
        "--no-browser",
        "--timeout-secs",
        "OAuth",
        "keychain",
    ] {
        assert!(
            login.contains(flag),
            "`mcp login --help` lacks {flag}: {login}"
        );
    }
    let logout = help(&["mcp", "logout"]);
    assert!(logout.contains("signed_out"), "{logout}");
}
