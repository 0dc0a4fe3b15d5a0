//! Project MCP approval covers what will run (issue 16 item 3): a server of
//! a project's `.mcp.json` approved in one form is not approved once any
//! field of its entry changes — env and header values included — and stays
//! approved when only the order of keys changes. Real files, a real SQLite
//! store; nothing is started.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_mcp::secrets::MemorySecrets;
use gatehouse_session::mcp_panel;
use gatehouse_store::Store;

struct Fixture {
    _data: tempfile::TempDir,
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    store: Store,
}

impl Fixture {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path()).unwrap();
        Self {
            _data: data,
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
            store,
        }
    }

    fn write(&self, text: &str) {
        std::fs::write(self.project.path().join(".mcp.json"), text).unwrap();
    }

    fn approved(&self) -> bool {
        let layout = mcp_panel::layout(self.project.path(), self.home.path()).unwrap();
        mcp_panel::approved(&layout, &self.store).contains("tool")
    }

    fn approve(&self) {
        let layout = mcp_panel::layout(self.project.path(), self.home.path()).unwrap();
        mcp_panel::approve_server(&layout, "tool", &self.store, &MemorySecrets::default()).unwrap();
    }
}

const STDIO: &str = r#"{"mcpServers": {"tool": {
    "command": "node", "args": ["server.js", "--port", "1"],
    "env": {"NODE_OPTIONS": "", "LEVEL": "info"},
    "secretEnv": ["API_KEY"], "startupTimeoutMs": 5000
}}}"#;

const HTTP: &str = r#"{"mcpServers": {"tool": {
    "type": "http", "url": "https://mcp.example/v1",
    "headers": {"X-Team": "blue"}, "secretHeaders": ["Authorization"]
}}}"#;

#[test]
fn every_changed_field_needs_a_new_approval_and_reordered_keys_do_not() {
    let stdio_changes = [
        ("the command", STDIO.replace(r#""node""#, r#""bash""#)),
        ("an argument", STDIO.replace(r#""1""#, r#""2""#)),
        (
            "an added argument",
            STDIO.replace(r#""1"]"#, r#""1", "--require", "./evil.js"]"#),
        ),
        (
            "an env value (the issue's NODE_OPTIONS case)",
            STDIO.replace(
                r#""NODE_OPTIONS": """#,
                r#""NODE_OPTIONS": "--require ./evil.js""#,
            ),
        ),
        (
            "another env value",
            STDIO.replace(r#""info""#, r#""debug""#),
        ),
        (
            "an added env variable",
            STDIO.replace(r#""LEVEL""#, r#""LD_PRELOAD": "/tmp/x.so", "LEVEL""#),
        ),
        (
            "the keychain-held env names",
            STDIO.replace(r#"["API_KEY"]"#, r#"["API_KEY", "OTHER"]"#),
        ),
        (
            "a working directory",
            STDIO.replace(r#""command""#, r#""cwd": "../elsewhere", "command""#),
        ),
        ("a timeout", STDIO.replace("5000", "6000")),
        (
            "an explicit type",
            STDIO.replace(r#""command""#, r#""type": "stdio", "command""#),
        ),
    ];
    let http_changes = [
        ("the url", HTTP.replace("mcp.example", "evil.example")),
        ("a header value", HTTP.replace(r#""blue""#, r#""red""#)),
        (
            "the keychain-held header names",
            HTTP.replace(r#"["Authorization"]"#, r#"["Authorization", "X-Key"]"#),
        ),
    ];
    for (original, changes) in [(STDIO, &stdio_changes[..]), (HTTP, &http_changes[..])] {
        let f = Fixture::new();
        f.write(original);
        assert!(!f.approved(), "a project server starts unapproved");
        f.approve();
        assert!(f.approved());
        for (what, changed) in changes {
            assert_ne!(changed, original, "the {what} case changes nothing");
            f.write(changed);
            assert!(!f.approved(), "changing {what} kept the approval");
            f.write(original);
            assert!(f.approved(), "back to the approved form after {what}");
        }
    }

    // The same entry with every object's keys in another order (and other
    // whitespace) is the same server.
    let f = Fixture::new();
    f.write(STDIO);
    f.approve();
    f.write(
        r#"{"mcpServers":{"tool":{"startupTimeoutMs":5000,"secretEnv":["API_KEY"],
        "env":{"LEVEL":"info","NODE_OPTIONS":""},"args":["server.js","--port","1"],"command":"node"}}}"#,
    );
    assert!(f.approved(), "reordered keys need no new approval");
}

#[test]
fn an_approval_stored_under_the_old_scheme_asks_again() {
    let f = Fixture::new();
    f.write(r#"{"mcpServers": {"tool": {"command": "x"}}}"#);
    // What the FNV-1a scheme stored for this entry: FNV-1a 64 of
    // "tool\0stdio\0x\u{1}" (name, transport, command, no env names).
    f.store
        .approve_mcp_server(
            &f.project.path().to_string_lossy(),
            "tool",
            "b23e4fd1aacf13e9",
        )
        .unwrap();
    assert!(!f.approved());
    f.approve();
    assert!(f.approved());
}
