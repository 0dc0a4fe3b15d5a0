//! Shared helpers of the tests against real MCP servers.
//!
//! `cargo xtask test` installs the servers (pinned versions) into a cache
//! and sets `GATEHOUSE_MCP_TEST_SERVERS`; under a plain `cargo test` the
//! tests that need them print why they are skipped and pass without
//! running. Tests of the standard-library fault server need only `python3`
//! and always run.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::events::{Emitter, MemorySink};
use gatehouse_mcp::config::{ConfigScope, ServerTransport};
use gatehouse_mcp::secrets::{NoSecrets, SecretLookup};
use gatehouse_mcp::{ServerConfig, ServerOptions};

/// The environment variable `cargo xtask test` sets.
pub const SERVERS_ENV: &str = "GATEHOUSE_MCP_TEST_SERVERS";

/// The test-server cache, or `None` after printing why the test is skipped.
pub fn servers_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os(SERVERS_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            // Counted; a failure under `cargo xtask test` (GATEHOUSE_REQUIRE_ALL).
            gatehouse_test_support::missing(format!(
                "{test}: {SERVERS_ENV} is not set; `cargo xtask test` installs the MCP test \
                 servers (npm server-everything, server-filesystem, PyPI mcp) and sets it"
            ));
            None
        }
    }
}

/// Returns early from a test when the servers are not installed.
#[macro_export]
macro_rules! require_servers {
    ($name:expr) => {
        match common::servers_dir($name) {
            Some(dir) => dir,
            None => return,
        }
    };
}

/// A stdio server config.
pub fn stdio(name: &str, command: &str, args: &[&str]) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        scope: ConfigScope::User,
        file: PathBuf::from("/test/config.json"),
        transport: ServerTransport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: BTreeMap::new(),
            secret_env: Vec::new(),
        },
        disabled: false,
        trusted: false,
        startup_timeout: Duration::from_secs(30),
        call_timeout: Duration::from_secs(30),
        entry: serde_json::json!({"command": command, "args": args}),
    }
}

/// An HTTP server config.
pub fn http(name: &str, url: &str) -> ServerConfig {
    ServerConfig {
        transport: ServerTransport::Http {
            url: url.into(),
            headers: BTreeMap::new(),
            secret_headers: Vec::new(),
        },
        ..stdio(name, "", &[])
    }
}

/// gatehouse-mcp's fault server (standard-library Python: the system
/// `python3` runs it, no test-server install needed).
pub fn fault(args: &[&str]) -> ServerConfig {
    let script = script("fault_server.py");
    let mut all = vec![script.as_str()];
    all.extend_from_slice(args);
    stdio("fault", "python3", &all)
}

/// server-everything over stdio.
pub fn everything(dir: &Path) -> ServerConfig {
    let js = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    stdio("everything", "node", &[js.to_str().unwrap(), "stdio"])
}

/// server-filesystem over stdio, serving `root`.
pub fn filesystem(dir: &Path, root: &Path) -> ServerConfig {
    let js = dir.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    stdio(
        "files",
        "node",
        &[js.to_str().unwrap(), root.to_str().unwrap()],
    )
}

/// The venv's Python.
pub fn python(dir: &Path) -> String {
    dir.join("venv/bin/python").display().to_string()
}

/// A test server script of this crate.
pub fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers")
        .join(name)
        .display()
        .to_string()
}

/// Options with events recorded in memory.
pub fn options(secrets: Arc<dyn SecretLookup>) -> (ServerOptions, Arc<MemorySink>) {
    let sink = Arc::new(MemorySink::new());
    (
        ServerOptions {
            cwd: std::env::temp_dir(),
            secrets,
            emitter: Emitter::new("test-session", sink.clone()),
        },
        sink,
    )
}

/// Options without secrets.
pub fn plain_options() -> (ServerOptions, Arc<MemorySink>) {
    options(Arc::new(NoSecrets))
}

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed when dropped.
pub struct KillOnDrop(pub std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the Python server over streamable HTTP and waits until it listens.
pub fn start_python_http(dir: &Path, port: u16, token: Option<&str>) -> KillOnDrop {
    let mut cmd = std::process::Command::new(python(dir));
    cmd.arg(script("py_server.py"))
        .arg("http")
        .arg(port.to_string());
    if let Some(t) = token {
        cmd.arg(t);
    }
    let child = KillOnDrop(cmd.spawn().unwrap());
    wait_until_listening(port, "the Python MCP server");
    child
}

/// Waits until something accepts connections on 127.0.0.1:`port` (a
/// readiness check, not a figure: a cold Python import of the SDK on a
/// loaded machine takes seconds, so the guard is generous).
pub fn wait_until_listening(port: u16, what: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what} did not listen on port {port} within 120 s");
}
