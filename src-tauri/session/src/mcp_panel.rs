//! The app's MCP panel without Tauri: a project's configured servers from
//! every source, a probe that connects them (the code path of
//! `gatehouse-cli mcp list`), edits of the files Gatehouse writes (secrets
//! to the keychain only) and approvals of project servers.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::events::{Emitter, NullSink};
use gatehouse_mcp::config::{self, ConfigScope, ServerTransport};
use gatehouse_mcp::edit;
use gatehouse_mcp::secrets::{MemorySecrets, SecretLookup};
use gatehouse_mcp::{McpConfig, ServerConfig};
use gatehouse_protocol::mcp::{
    McpApproval, McpConfigProblem, McpPanel, McpScope, McpServerDraft, McpServerEntry,
    McpServerProbe, McpToolView, McpTransportDraft,
};
use gatehouse_store::Store;

use gatehouse_agent::keychain::Keychain;
/// Where a project's MCP configuration is read from (re-exported for the app).
pub use gatehouse_mcp::config::ConfigLayout;

use crate::mcp::{KeychainSecrets, approved_servers, read_keychain, start_servers_with_secrets};

/// The protocol's scope as the MCP crate's.
pub fn config_scope(scope: McpScope) -> ConfigScope {
    match scope {
        McpScope::User => ConfigScope::User,
        McpScope::Gatehouse => ConfigScope::Gatehouse,
        McpScope::Project => ConfigScope::Project,
        McpScope::Local => ConfigScope::Local,
    }
}

fn protocol_scope(scope: ConfigScope) -> McpScope {
    match scope {
        ConfigScope::User => McpScope::User,
        ConfigScope::Gatehouse => McpScope::Gatehouse,
        ConfigScope::Project => McpScope::Project,
        ConfigScope::Local => McpScope::Local,
    }
}

/// Where a project's MCP configuration is read from: its canonical folder
/// (keychain accounts of project secrets hash the file's path) and `home`.
pub fn layout(project: &Path, home: &Path) -> Result<ConfigLayout, String> {
    let project = project
        .canonicalize()
        .map_err(|e| format!("the project folder {}: {e}", project.display()))?;
    Ok(ConfigLayout {
        project,
        home: home.to_path_buf(),
    })
}

/// One word as a POSIX shell would need it written to mean exactly that
/// word: as is when it has only characters no shell treats specially, else
/// in single quotes with each `'` written `'\''`.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A command and its arguments as one line a user can paste into a shell.
fn command_line(command: &str, args: &[String]) -> String {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The command line or URL of a server as written (drafts) or as loaded
/// (read-only scopes); never env or header values.
fn summary(config: &ServerConfig, draft: Option<&McpServerDraft>) -> String {
    match draft.map(|d| &d.transport) {
        Some(McpTransportDraft::Stdio { command, args, .. }) => command_line(command, args),
        Some(McpTransportDraft::Http { url, .. }) => url.clone(),
        None => match &config.transport {
            ServerTransport::Stdio { command, args, .. } => command_line(command, args),
            ServerTransport::Http { url, .. } => url.clone(),
        },
    }
}

/// Every configured server of the project (after precedence) and every
/// problem in the configuration files; nothing is started.
pub fn panel(layout: &ConfigLayout, store: &Store, secrets: &dyn SecretLookup) -> McpPanel {
    let cfg = config::load(layout);
    panel_of(layout, &cfg, store, secrets)
}

fn panel_of(
    layout: &ConfigLayout,
    cfg: &McpConfig,
    store: &Store,
    secrets: &dyn SecretLookup,
) -> McpPanel {
    let approved = approved_servers(cfg, &layout.project, store);
    let gatehouse = edit::drafts(layout, ConfigScope::Gatehouse, secrets);
    let project = edit::drafts(layout, ConfigScope::Project, secrets);
    let servers = cfg
        .servers
        .iter()
        .map(|s| {
            let draft = match s.scope {
                ConfigScope::Gatehouse => gatehouse.get(&s.name).cloned(),
                ConfigScope::Project => project.get(&s.name).cloned(),
                ConfigScope::User | ConfigScope::Local => None,
            };
            McpServerEntry {
                name: s.name.clone(),
                scope: protocol_scope(s.scope),
                file: s.file.display().to_string(),
                transport: s.transport_kind().into(),
                summary: summary(s, draft.as_ref()),
                disabled: s.disabled,
                trusted: s.trusted,
                approval: if !s.scope.needs_approval() {
                    McpApproval::NotNeeded
                } else if approved.contains(&s.name) {
                    McpApproval::Approved
                } else {
                    McpApproval::Pending
                },
                draft,
            }
        })
        .collect();
    McpPanel {
        project_path: layout.project.display().to_string(),
        servers,
        problems: cfg
            .errors
            .iter()
            .map(|e| McpConfigProblem {
                file: e.file.display().to_string(),
                server: e.server.clone(),
                message: e.message.clone(),
            })
            .collect(),
    }
}

/// Connects every enabled server that may start (project servers only when
/// approved) exactly as `gatehouse-cli mcp list` does, waits up to `limit`,
/// and reports each server's state, tools with annotations and stderr tail;
/// then stops them. `approved` are the approved project servers
/// ([`approved`]); secret values come from `secrets` (the keychain).
/// Must run in a Tokio runtime.
pub async fn probe(
    layout: &ConfigLayout,
    approved: &HashSet<String>,
    secrets: Arc<dyn SecretLookup>,
    limit: Duration,
) -> Vec<McpServerProbe> {
    let cfg = config::load_off_runtime(layout).await;
    probe_loaded(&cfg, layout, approved, secrets, limit).await
}

/// [`probe`] of a configuration already loaded from `layout`.
async fn probe_loaded(
    cfg: &config::McpConfig,
    layout: &ConfigLayout,
    approved: &HashSet<String>,
    secrets: Arc<dyn SecretLookup>,
    limit: Duration,
) -> Vec<McpServerProbe> {
    let manager = start_servers_with_secrets(
        cfg,
        &layout.project,
        approved,
        false,
        Emitter::new("mcp-probe", Arc::new(NullSink)),
        limit,
        secrets,
    )
    .await;
    let probes = manager
        .servers()
        .all()
        .iter()
        .map(|s| {
            let state = s.state();
            McpServerProbe {
                name: s.name().to_owned(),
                state: state.status,
                message: state.message.clone(),
                tools: state
                    .tools
                    .iter()
                    .map(|t| McpToolView {
                        name: t.name.clone(),
                        qualified_name: t.qualified_name.clone(),
                        description: t.description.clone(),
                        read_only: t.read_only_hint,
                        destructive: t.destructive_hint,
                        open_world: t.open_world_hint,
                    })
                    .collect(),
                stderr: s.stderr_tail(),
            }
        })
        .collect();
    manager.shutdown();
    probes
}

/// Adds or replaces a server in an editable file (see
/// [`gatehouse_mcp::edit::save`]) and returns the new panel.
pub fn save_server(
    layout: &ConfigLayout,
    scope: McpScope,
    original_name: Option<&str>,
    draft: &McpServerDraft,
    store: &Store,
    secrets: &dyn SecretLookup,
) -> Result<McpPanel, String> {
    edit::save(layout, config_scope(scope), original_name, draft, secrets)
        .map_err(|e| e.to_string())?;
    Ok(panel(layout, store, secrets))
}

/// Removes a server (and its keychain secrets) and returns the new panel.
pub fn remove_server(
    layout: &ConfigLayout,
    scope: McpScope,
    name: &str,
    store: &Store,
    secrets: &dyn SecretLookup,
) -> Result<McpPanel, String> {
    edit::remove(layout, config_scope(scope), name, secrets).map_err(|e| e.to_string())?;
    Ok(panel(layout, store, secrets))
}

/// Turns a server off or on and returns the new panel.
pub fn set_server_disabled(
    layout: &ConfigLayout,
    scope: McpScope,
    name: &str,
    disabled: bool,
    store: &Store,
    secrets: &dyn SecretLookup,
) -> Result<McpPanel, String> {
    edit::set_disabled(layout, config_scope(scope), name, disabled).map_err(|e| e.to_string())?;
    Ok(panel(layout, store, secrets))
}

/// Approves project server `name` in its current form (its fingerprint) and
/// returns the new panel.
pub fn approve_server(
    layout: &ConfigLayout,
    name: &str,
    store: &Store,
    secrets: &dyn SecretLookup,
) -> Result<McpPanel, String> {
    let cfg = config::load(layout);
    let server = cfg
        .servers
        .iter()
        .find(|s| s.name == name && s.scope.needs_approval())
        .ok_or_else(|| {
            format!(
                "{}: no project server named `{name}` (only servers of the project's .mcp.json need approval)",
                layout.project_file().display()
            )
        })?;
    store
        .approve_mcp_server(
            &layout.project.to_string_lossy(),
            name,
            &server.fingerprint(),
        )
        .map_err(|e| e.to_string())?;
    Ok(panel_of(layout, &cfg, store, secrets))
}

/// The home folder, where `~/.claude.json` and `~/.gatehouse/mcp.json` are.
pub use gatehouse_permissions::sources::home_dir;

/// The OS keychain, or — when there is none — a store that finds nothing
/// and refuses to store (saying why), so the panel still lists and edits
/// servers without secrets.
pub fn keychain() -> Box<dyn SecretLookup> {
    Box::new(KeychainSecrets(Keychain::open()))
}

/// [`probe`] with the keychain: its values are read first, on a blocking
/// thread (see [`crate::mcp::read_keychain`]); without a keychain the
/// servers connect without secrets (those needing one say so). Never blocks
/// the runtime it runs on, whatever its flavour.
pub async fn probe_with_keychain(
    layout: &ConfigLayout,
    approved: &HashSet<String>,
    limit: Duration,
) -> Vec<McpServerProbe> {
    // Loaded once: its keychain references, then its servers.
    let cfg = config::load_off_runtime(layout).await;
    let secrets = match read_keychain(&cfg).await {
        Ok((_keychain, values, _problems)) => values,
        Err(_no_keychain) => MemorySecrets::default(),
    };
    probe_loaded(&cfg, layout, approved, Arc::new(secrets), limit).await
}

/// The approved project servers of the project (stored approvals of their
/// current fingerprints), for [`probe`].
pub fn approved(layout: &ConfigLayout, store: &Store) -> HashSet<String> {
    approved_servers(&config::load(layout), &layout.project, store)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The panel showed `sh -c 'echo 'fatal: …' >&2; …'` (the inner quotes
    /// not escaped): a line that means something else when pasted.
    #[test]
    fn commands_are_shown_shell_quoted() {
        let args = vec![
            "-c".to_owned(),
            "echo 'fatal: no config' >&2; exit 1".to_owned(),
            String::new(),
            "a$b".to_owned(),
        ];
        assert_eq!(
            command_line("sh", &args),
            r"sh -c 'echo '\''fatal: no config'\'' >&2; exit 1' '' 'a$b'"
        );
        assert_eq!(
            command_line("node", &["s.js".to_owned(), "--port=3000".to_owned()]),
            "node s.js --port=3000"
        );
    }
}
