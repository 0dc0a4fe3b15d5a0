//! Editing `~/.gatehouse/mcp.json` and `.mcp.json` (the MCP panel's
//! runtime): real files in temporary folders, read back by the real loader,
//! and a real stdio server that receives a keychain-held env value.
//!
//! The keychain is an in-memory [`MemorySecrets`] here (this crate links no
//! keychain; the OS keychain adapter is exercised by gatehouse-cli's tests).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use gatehouse_core::events::{Emitter, NullSink};
use gatehouse_mcp::config::{self, ConfigLayout, ConfigScope, ServerTransport};
use gatehouse_mcp::edit::{self, EditError};
use gatehouse_mcp::secrets::{MemorySecrets, SecretKind, SecretLookup, secret_account};
use gatehouse_mcp::{McpServer, ServerOptions};
use gatehouse_protocol::event::McpServerStatus;
use gatehouse_protocol::mcp::{McpServerDraft, McpTransportDraft, McpValueDraft};
use serde_json::{Value, json};

struct Dirs {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }
    fn layout(&self) -> ConfigLayout {
        ConfigLayout {
            project: self.project.path().canonicalize().unwrap(),
            home: self.home.path().to_path_buf(),
        }
    }
    fn read(&self, scope: ConfigScope) -> Value {
        let file = edit::editable_file(&self.layout(), scope).unwrap();
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
    }
}

fn value(name: &str, value: &str, secret: bool) -> McpValueDraft {
    McpValueDraft {
        name: name.into(),
        value: value.into(),
        secret,
        stored: false,
    }
}

fn stdio(name: &str, command: &str, env: Vec<McpValueDraft>) -> McpServerDraft {
    McpServerDraft {
        name: name.into(),
        transport: McpTransportDraft::Stdio {
            command: command.into(),
            args: vec!["${HOME_DIR:-/tmp}/x".into()],
            env,
        },
        disabled: false,
        trusted: false,
    }
}

fn fault_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers/fault_server.py")
        .display()
        .to_string()
}

const SECRET: &str = "sk-edit-7c1d-do-not-leak";

#[test]
fn a_saved_server_keeps_other_keys_and_its_secret_only_in_the_keychain() {
    let d = Dirs::new();
    let layout = d.layout();
    let gatehouse_file = layout.gatehouse_file();
    std::fs::create_dir_all(gatehouse_file.parent().unwrap()).unwrap();
    std::fs::write(
        &gatehouse_file,
        json!({"theme": "dark", "mcpServers": {"other": {"command": "o", "callTimeoutMs": 5}}})
            .to_string(),
    )
    .unwrap();
    let secrets = Mutex::new(MemorySecrets::default());
    let draft = stdio(
        "tools",
        "python3",
        vec![
            value("PLAIN", "${USER:-me}", false),
            value("TOKEN", SECRET, true),
        ],
    );
    edit::save(&layout, ConfigScope::Gatehouse, None, &draft, &secrets).unwrap();

    let doc = d.read(ConfigScope::Gatehouse);
    assert_eq!(doc["theme"], "dark");
    assert_eq!(
        doc["mcpServers"]["other"],
        json!({"command": "o", "callTimeoutMs": 5})
    );
    assert_eq!(
        doc["mcpServers"]["tools"],
        json!({"command": "python3", "args": ["${HOME_DIR:-/tmp}/x"], "env": {"PLAIN": "${USER:-me}"}, "secretEnv": ["TOKEN"]})
    );
    let text = std::fs::read_to_string(&gatehouse_file).unwrap();
    assert!(!text.contains(SECRET));
    let account = secret_account(
        ConfigScope::Gatehouse,
        &gatehouse_file,
        "tools",
        SecretKind::Env,
        "TOKEN",
    )
    .unwrap();
    assert_eq!(account, "mcp:tools:env:TOKEN");
    assert_eq!(secrets.get(&account).unwrap().as_deref(), Some(SECRET));

    // Read back as a draft: the secret is named and stored, never shown.
    let drafts = edit::drafts(&layout, ConfigScope::Gatehouse, &secrets);
    let McpTransportDraft::Stdio { env, args, .. } = &drafts["tools"].transport else {
        panic!()
    };
    assert_eq!(args, &["${HOME_DIR:-/tmp}/x"]);
    assert_eq!(
        env,
        &[
            value("PLAIN", "${USER:-me}", false),
            McpValueDraft {
                stored: true,
                ..value("TOKEN", "", true)
            }
        ]
    );

    // The loader sees the reference.
    let cfg = config::load_with_env(&layout, &|_| None);
    assert!(cfg.errors.is_empty(), "{:?}", cfg.errors);
    let tools = cfg.servers.iter().find(|s| s.name == "tools").unwrap();
    let ServerTransport::Stdio {
        secret_env, env, ..
    } = &tools.transport
    else {
        panic!()
    };
    assert_eq!(secret_env, &["TOKEN"]);
    assert_eq!(env["PLAIN"], "me");
}

#[test]
fn renaming_moves_kept_secrets_and_removing_deletes_them() {
    let d = Dirs::new();
    let layout = d.layout();
    let secrets = Mutex::new(MemorySecrets::default());
    let first = stdio("a", "x", vec![value("TOKEN", SECRET, true)]);
    edit::save(&layout, ConfigScope::Project, None, &first, &secrets).unwrap();
    let file = layout.project_file();
    let account = |server: &str| {
        secret_account(
            ConfigScope::Project,
            &file,
            server,
            SecretKind::Env,
            "TOKEN",
        )
        .unwrap()
    };
    assert!(account("a").starts_with("mcp:project:"), "{}", account("a"));
    // Kept (empty value) under a new name.
    let renamed = stdio("b", "x", vec![value("TOKEN", "", true)]);
    edit::save(&layout, ConfigScope::Project, Some("a"), &renamed, &secrets).unwrap();
    let doc = d.read(ConfigScope::Project);
    assert!(doc["mcpServers"].get("a").is_none());
    assert_eq!(doc["mcpServers"]["b"]["secretEnv"], json!(["TOKEN"]));
    assert_eq!(secrets.get(&account("a")).unwrap(), None);
    assert_eq!(secrets.get(&account("b")).unwrap().as_deref(), Some(SECRET));

    edit::set_disabled(&layout, ConfigScope::Project, "b", true).unwrap();
    assert_eq!(
        d.read(ConfigScope::Project)["mcpServers"]["b"]["disabled"],
        true
    );
    edit::set_disabled(&layout, ConfigScope::Project, "b", false).unwrap();
    assert!(
        d.read(ConfigScope::Project)["mcpServers"]["b"]
            .get("disabled")
            .is_none()
    );

    edit::remove(&layout, ConfigScope::Project, "b", &secrets).unwrap();
    assert_eq!(d.read(ConfigScope::Project)["mcpServers"], json!({}));
    assert_eq!(secrets.get(&account("b")).unwrap(), None);
}

#[test]
fn validation_names_the_field_and_nothing_is_written() {
    let d = Dirs::new();
    let layout = d.layout();
    let secrets = Mutex::new(MemorySecrets::default());
    let err = |draft: &McpServerDraft, scope| -> EditError {
        edit::save(&layout, scope, None, draft, &secrets).unwrap_err()
    };
    let e = err(&stdio("bad__name", "x", vec![]), ConfigScope::Gatehouse);
    assert_eq!(e.field.as_deref(), Some("name"));
    let e = err(&stdio("ok", " ", vec![]), ConfigScope::Gatehouse);
    assert_eq!(e.field.as_deref(), Some("command"));
    let e = err(
        &stdio("ok", "x", vec![value("1X", "v", false)]),
        ConfigScope::Gatehouse,
    );
    assert_eq!(
        e.to_string(),
        "`env[0].name`: must start with a letter or `_`"
    );
    let e = err(
        &stdio(
            "ok",
            "x",
            vec![value("A", "v", false), value("A", "w", false)],
        ),
        ConfigScope::Gatehouse,
    );
    assert_eq!(e.field.as_deref(), Some("env[1].name"));
    let e = err(
        &stdio("ok", "x", vec![value("TOKEN", "", true)]),
        ConfigScope::Gatehouse,
    );
    assert_eq!(e.field.as_deref(), Some("env[0].value"));
    let unticked = stdio(
        "ok",
        "x",
        vec![McpValueDraft {
            stored: true,
            ..value("TOKEN", "", false)
        }],
    );
    let e = err(&unticked, ConfigScope::Gatehouse);
    assert_eq!(
        e.to_string(),
        "`env[0].value`: type the value to keep in the file, or keep it secret"
    );
    let http = |url: &str, headers| McpServerDraft {
        name: "web".into(),
        transport: McpTransportDraft::Http {
            url: url.into(),
            headers,
        },
        disabled: false,
        trusted: false,
    };
    let e = err(&http("ftp://h/mcp", vec![]), ConfigScope::Gatehouse);
    assert_eq!(e.field.as_deref(), Some("url"));
    let e = err(
        &http("https://h/mcp", vec![value("Bad Header", "v", false)]),
        ConfigScope::Gatehouse,
    );
    assert_eq!(e.field.as_deref(), Some("headers[0].name"));
    let mut trusted = stdio("ok", "x", vec![]);
    trusted.trusted = true;
    let e = err(&trusted, ConfigScope::Project);
    assert_eq!(e.field.as_deref(), Some("trusted"));
    let e = edit::save(
        &layout,
        ConfigScope::User,
        None,
        &stdio("ok", "x", vec![]),
        &secrets,
    )
    .unwrap_err();
    assert!(e.to_string().contains("belong to Claude Code"), "{e}");
    assert!(!layout.gatehouse_file().exists());
    assert!(!layout.project_file().exists());
    assert!(secrets.lock().unwrap().0.is_empty());

    // A duplicate name, and a file with invalid JSON is never overwritten.
    edit::save(
        &layout,
        ConfigScope::Gatehouse,
        None,
        &stdio("ok", "x", vec![]),
        &secrets,
    )
    .unwrap();
    let e = err(&stdio("ok", "y", vec![]), ConfigScope::Gatehouse);
    assert_eq!(e.field.as_deref(), Some("name"));
    std::fs::write(layout.project_file(), "{ broken").unwrap();
    let e = err(&stdio("p", "y", vec![]), ConfigScope::Project);
    assert!(e.to_string().contains("invalid JSON at line 1"), "{e}");
    assert_eq!(
        std::fs::read_to_string(layout.project_file()).unwrap(),
        "{ broken"
    );
}

#[test]
fn an_http_server_switches_transport_and_header_secrets_are_scoped_to_the_file() {
    let d = Dirs::new();
    let layout = d.layout();
    let secrets = Mutex::new(MemorySecrets::default());
    edit::save(
        &layout,
        ConfigScope::Gatehouse,
        None,
        &stdio("s", "x", vec![]),
        &secrets,
    )
    .unwrap();
    let http = McpServerDraft {
        name: "s".into(),
        transport: McpTransportDraft::Http {
            url: "https://h.example/mcp".into(),
            headers: vec![
                value("X-Plain", "1", false),
                value("Authorization", SECRET, true),
            ],
        },
        disabled: true,
        trusted: true,
    };
    edit::save(&layout, ConfigScope::Gatehouse, Some("s"), &http, &secrets).unwrap();
    assert_eq!(
        d.read(ConfigScope::Gatehouse)["mcpServers"]["s"],
        json!({"type": "http", "url": "https://h.example/mcp", "headers": {"X-Plain": "1"},
               "secretHeaders": ["Authorization"], "disabled": true, "trusted": true})
    );
    assert_eq!(
        secrets
            .get("mcp:s:header:authorization")
            .unwrap()
            .as_deref(),
        Some(SECRET)
    );
    // `mcp secret set` for a stdio-only flag is refused; a header is added.
    let e = edit::set_secret(
        &layout,
        ConfigScope::Gatehouse,
        "s",
        SecretKind::Env,
        "T",
        "v",
        &secrets,
    )
    .unwrap_err();
    assert!(e.to_string().contains("--header"), "{e}");
    edit::set_secret(
        &layout,
        ConfigScope::Gatehouse,
        "s",
        SecretKind::Header,
        "X-Plain",
        "2",
        &secrets,
    )
    .unwrap();
    let entry = &d.read(ConfigScope::Gatehouse)["mcpServers"]["s"];
    assert_eq!(entry["secretHeaders"], json!(["Authorization", "X-Plain"]));
    assert!(entry.get("headers").is_none());
    edit::delete_secret(
        &layout,
        ConfigScope::Gatehouse,
        "s",
        SecretKind::Header,
        "X-Plain",
        &secrets,
    )
    .unwrap();
    assert_eq!(
        d.read(ConfigScope::Gatehouse)["mcpServers"]["s"]["secretHeaders"],
        json!(["Authorization"])
    );
    assert_eq!(secrets.get("mcp:s:header:x-plain").unwrap(), None);
}

#[tokio::test]
async fn a_stdio_server_gets_its_keychain_env_value_and_needs_auth_without_it() {
    let d = Dirs::new();
    let layout = d.layout();
    let secrets = std::sync::Arc::new(Mutex::new(MemorySecrets::default()));
    let out = d.project.path().join("seen-token");
    let script = format!(
        "printf %s \"$TOKEN\" > '{}'; exec python3 '{}'",
        out.display(),
        fault_server()
    );
    let draft = McpServerDraft {
        name: "fault".into(),
        transport: McpTransportDraft::Stdio {
            command: "sh".into(),
            args: vec!["-c".into(), script],
            env: vec![value("TOKEN", SECRET, true)],
        },
        disabled: false,
        trusted: false,
    };
    edit::save(
        &layout,
        ConfigScope::Project,
        None,
        &draft,
        secrets.as_ref(),
    )
    .unwrap();
    let cfg = config::load_with_env(&layout, &|_| None);
    assert!(cfg.errors.is_empty(), "{:?}", cfg.errors);
    let options = ServerOptions {
        cwd: layout.project.clone(),
        secrets: secrets.clone(),
        emitter: Emitter::new("edit-test", std::sync::Arc::new(NullSink)),
    };
    let server = McpServer::start(cfg.servers[0].clone(), options.clone());
    let state = server.settled(Duration::from_secs(20)).await;
    assert_eq!(
        state.status,
        McpServerStatus::Connected,
        "{:?}",
        state.message
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), SECRET);
    server.shutdown();

    // Without the keychain value: needs-auth, saying what to do, no value.
    secrets.lock().unwrap().0.clear();
    let server = McpServer::start(cfg.servers[0].clone(), options);
    let state = server.settled(Duration::from_secs(20)).await;
    assert_eq!(state.status, McpServerStatus::NeedsAuth);
    let message = state.message.unwrap();
    assert!(
        message.contains("`TOKEN` has no value in the keychain")
            && message.contains("gatehouse-cli mcp secret set --server fault --env TOKEN"),
        "{message}"
    );
}

/// A save rewrites the file through the one atomic writer: a shared
/// `.mcp.json` keeps its mode (it became 0600, the temp file's) and a
/// symlinked `~/.gatehouse/mcp.json` stays a link to its updated target.
#[cfg(unix)]
#[test]
fn an_edit_keeps_the_files_mode_and_its_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let d = Dirs::new();
    let layout = d.layout();
    let entry = json!({"mcpServers": {"s": {"command": "x"}}}).to_string();

    let shared = edit::editable_file(&layout, ConfigScope::Project).unwrap();
    std::fs::write(&shared, &entry).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o644)).unwrap();
    edit::set_disabled(&layout, ConfigScope::Project, "s", true).unwrap();
    assert_eq!(
        d.read(ConfigScope::Project)["mcpServers"]["s"]["disabled"],
        true
    );
    let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "{mode:o}");

    let own = edit::editable_file(&layout, ConfigScope::Gatehouse).unwrap();
    let target = d.home.path().join("dotfiles/mcp.json");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    std::fs::write(&target, &entry).unwrap();
    std::os::unix::fs::symlink(&target, &own).unwrap();
    edit::set_disabled(&layout, ConfigScope::Gatehouse, "s", true).unwrap();
    assert!(
        std::fs::symlink_metadata(&own)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced by a copy"
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(written["mcpServers"]["s"]["disabled"], true);
}

/// The MCP panel reads a project's `.mcp.json` for its drafts: one that is
/// a symlink to `/dev/zero` (a cloned repository's choice) gives no drafts
/// at once. Before, it was read until memory ran out.
#[test]
fn a_project_mcp_json_that_is_a_device_gives_no_drafts_unread() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", project.path().join(".mcp.json")).unwrap();
    let layout = ConfigLayout {
        project: project.path().into(),
        home: home.path().into(),
    };
    let secrets = Mutex::new(MemorySecrets::default());
    assert!(edit::drafts(&layout, ConfigScope::Project, &secrets).is_empty());
}
