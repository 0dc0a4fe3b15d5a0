//! A host's MCP servers across its sessions: the live tool names, a
//! changed configuration applied, a server reconnected.

use std::path::Path;
use std::sync::Arc;

use gatehouse_protocol::event::{EventBody, SessionErrorKind};

use super::{OpenSession, SessionHost, lock};

impl SessionHost {
    /// The names of the MCP tools the open sessions of `project` have now,
    /// deferred ones included (the model may load them at any time, so the
    /// rule editor completes them), sorted and without repeats. Cheap: it
    /// reads the servers' tool lists, nothing waits.
    pub fn live_mcp_tool_names(&self, project: &Path) -> Vec<String> {
        let wanted = project
            .canonicalize()
            .unwrap_or_else(|_| project.to_path_buf());
        let sessions: Vec<Arc<OpenSession>> = lock(&self.sessions).values().cloned().collect();
        let mut names: Vec<String> = sessions
            .iter()
            .filter(|open| open.project == wanted)
            .filter_map(|open| open.mcp.as_ref())
            .flat_map(|mcp| mcp.tools().into_iter().chain(mcp.resource_tools()))
            .map(|tool| tool.name().to_owned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// After the MCP configuration changed (the app's MCP panel saved,
    /// removed, disabled or approved a server): every open session that runs
    /// MCP servers reads its configuration and approvals again and brings
    /// its servers in line ([`McpManager::apply`]): new, enabled and newly
    /// approved servers start, removed and disabled ones stop, changed ones
    /// restart; the rest keep running. Each session that changed reports
    /// `mcp_servers_changed`; its tools follow at its next model request. A
    /// server that fails to start says so in its own state, the others are
    /// not affected. Returns how many sessions changed. Files, the database
    /// and the keychain are read on blocking threads.
    pub async fn apply_mcp_config(&self) -> usize {
        let sessions: Vec<Arc<OpenSession>> = lock(&self.sessions)
            .values()
            .filter(|s| s.mcp.is_some())
            .cloned()
            .collect();
        let mut changed = 0;
        for open in sessions {
            if self.apply_mcp_config_to(&open).await {
                changed += 1;
            }
        }
        changed
    }

    async fn apply_mcp_config_to(&self, open: &OpenSession) -> bool {
        let Some(mcp) = &open.mcp else {
            return false;
        };
        let layout = gatehouse_mcp::ConfigLayout {
            project: open.project.clone(),
            home: self.config.home.clone(),
        };
        let project = open.project.clone();
        let read = self
            .on_store(move |store| {
                let cfg = gatehouse_mcp::config::load(&layout);
                let approved = crate::mcp::approved_servers(&cfg, &project, store);
                Ok((cfg, approved))
            })
            .await;
        let (cfg, approved) = match read {
            Ok(read) => read,
            Err(e) => {
                // Fail closed: the servers stay as they are.
                open.emitter.emit(EventBody::SessionError {
                    kind: SessionErrorKind::Storage,
                    message: format!(
                        "the changed MCP configuration was not applied: its approvals could not be read: {e}"
                    ),
                    recoverable: true,
                });
                return false;
            }
        };
        let (secrets, warning) = crate::mcp::session_secrets(&cfg).await;
        if let Some(warning) = warning {
            tracing::warn!(session = %open.id, "{warning}");
        }
        let trust = open.trust_project;
        let changes = {
            let _runtime = self.runtime.enter();
            mcp.apply(&cfg, secrets, &|s| trust || approved.contains(&s.name))
        };
        if changes.is_empty() {
            return false;
        }
        open.emitter.emit(EventBody::McpServersChanged {
            started: changes.started,
            stopped: changes.stopped,
            restarted: changes.restarted,
        });
        true
    }

    /// After an MCP sign-in: server `server` of every open session of
    /// `project` that stopped (needs_auth, failed) connects again. Returns
    /// how many did.
    pub fn reconnect_mcp_server(&self, project: &Path, server: &str) -> usize {
        let _runtime = self.runtime.enter();
        lock(&self.sessions)
            .values()
            .filter(|s| s.project == project)
            .filter_map(|s| s.mcp.as_ref()?.servers().get(server))
            .filter(|s| s.reconnect())
            .count()
    }
}
