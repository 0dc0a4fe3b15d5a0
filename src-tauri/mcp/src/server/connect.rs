//! Connecting to a server: its process or HTTP endpoint, the handshake,
//! credentials from the keychain, and the tool list.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_protocol::event::McpServerStatus;
use rmcp::model::PaginatedRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use tokio::sync::Notify;

use crate::config::ServerTransport;
use crate::secrets::{SecretKind, server_secret_account};
use crate::transport::Routed;

use super::{
    Handler, MAX_LISTING_BYTES, MAX_MESSAGE_BYTES, MAX_TOOL_PAGES, MAX_TOOLS, McpServer, RemoteTool,
};

/// A running rmcp client session, its tool-list-changed signal and (for
/// stdio servers) its process.
pub(super) enum Connected {
    Live(
        RunningService<RoleClient, Handler>,
        Arc<Notify>,
        Option<ChildGuard>,
    ),
}

/// A stdio server's process: its whole process group is killed when the
/// guard is dropped (crash handled, session ended, server stopped).
/// How long a failed handshake waits for the server's exit and the rest of
/// its stderr, to say how it ended.
const HANDSHAKE_AFTERMATH: Duration = Duration::from_millis(500);

pub(super) struct ChildGuard(Box<dyn process_wrap::tokio::ChildWrapper>);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // `ProcessGroupChild::start_kill` signals the whole group.
        let _ = self.0.start_kill();
        let _ = self.0.try_wait();
    }
}

impl McpServer {
    /// A `secretEnv` / `secretHeaders` value from the keychain; a missing
    /// value is `needs_auth` with what to do (never the value).
    fn keychain_value(
        &self,
        kind: SecretKind,
        name: &str,
    ) -> Result<String, (McpServerStatus, String)> {
        let what = match kind {
            SecretKind::Header => "header",
            SecretKind::Env => "env variable",
        };
        let Some(account) = server_secret_account(&self.config, kind, name) else {
            return Err((
                McpServerStatus::Failed,
                format!(
                    "{what} `{name}` is a keychain secret, which this configuration file cannot have"
                ),
            ));
        };
        match self.options.secrets.get(&account) {
            Ok(Some(value)) => Ok(value),
            Ok(None) => {
                let flag = match kind {
                    SecretKind::Header => "--header",
                    SecretKind::Env => "--env",
                };
                Err((
                    McpServerStatus::NeedsAuth,
                    format!(
                        "{what} `{name}` has no value in the keychain (account `{account}`): enter it in the MCP panel or run `gatehouse-cli mcp secret set --server {} {flag} {name}`, then reconnect",
                        self.config.name
                    ),
                ))
            }
            Err(e) => Err((
                McpServerStatus::NeedsAuth,
                format!("cannot read {what} `{name}` from the keychain: {e}"),
            )),
        }
    }

    /// Opens the transport and initialises the session.
    pub(super) async fn connect(&self) -> Result<Connected, (McpServerStatus, String)> {
        let failed = |m: String| (McpServerStatus::Failed, m);
        let (handler, changes) = self.handler();
        let mut guard = None;
        let running = match &self.config.transport {
            ServerTransport::Stdio {
                command,
                args,
                env,
                secret_env,
            } => {
                let mut secret_values = Vec::with_capacity(secret_env.len());
                for name in secret_env {
                    secret_values.push((name, self.keychain_value(SecretKind::Env, name)?));
                }
                // A server may print what it was given; its stderr goes into
                // the failure message, which is stored and shown.
                let secrets: Vec<String> = secret_values.iter().map(|(_, v)| v.clone()).collect();
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env)
                    .envs(secret_values)
                    .current_dir(&self.options.cwd)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let mut wrap = process_wrap::tokio::CommandWrap::from(cmd);
                // Its own process group, so that everything it starts dies
                // with it; killed when dropped (the session ends).
                #[cfg(unix)]
                wrap.wrap(process_wrap::tokio::ProcessGroup::leader());
                wrap.wrap(process_wrap::tokio::KillOnDrop);
                let mut child = wrap
                    .spawn()
                    .map_err(|e| failed(format!("cannot start `{command}`: {e}")))?;
                let (Some(stdin), Some(stdout)) = (child.stdin().take(), child.stdout().take())
                else {
                    return Err(failed(format!("`{command}`: no stdin/stdout pipes")));
                };
                let mut stderr_read = None;
                if let Some(stderr) = child.stderr().take() {
                    // Drained to EOF whatever it holds (see `stderr`).
                    let log = self.stderr.clone();
                    stderr_read = Some(tokio::spawn(async move { log.drain(stderr).await }));
                }
                guard = Some(ChildGuard(child));
                // rmcp's own child transport caps lines at 16 MiB and drops
                // longer ones silently (the call then times out); we accept
                // what HTTP accepts and let the result budget deal with it.
                let transport = AsyncRwTransport::new_client(stdout, stdin)
                    .with_max_line_length(MAX_MESSAGE_BYTES);
                match handler
                    .serve(Routed::new(transport, Arc::clone(&self.progress)))
                    .await
                {
                    Ok(running) => running,
                    Err(e) => {
                        // How it ended and what it said: wait (bounded) for
                        // the exit and for the rest of its stderr.
                        let exited = match guard.as_mut() {
                            Some(g) => tokio::time::timeout(HANDSHAKE_AFTERMATH, g.0.wait())
                                .await
                                .ok()
                                .and_then(Result::ok),
                            None => None,
                        };
                        if let Some(read) = stderr_read {
                            let _ = tokio::time::timeout(HANDSHAKE_AFTERMATH, read).await;
                        }
                        let why = crate::failure::HandshakeFailure::classify(&e, exited);
                        let message = why.message(command, &self.stderr.lines());
                        return Err(failed(crate::failure::without_secrets(&message, &secrets)));
                    }
                }
            }
            ServerTransport::Http {
                url,
                headers,
                secret_headers,
            } => {
                let mut map = HashMap::new();
                let mut add = |name: &str, value: &str| -> Result<(), (McpServerStatus, String)> {
                    let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| failed(format!("`{name}` is not a valid header name")))?;
                    let mut value =
                        reqwest::header::HeaderValue::from_str(value).map_err(|_| {
                            failed(format!(
                                "the value of header `{name}` is not a valid header value"
                            ))
                        })?;
                    value.set_sensitive(true);
                    map.insert(name, value);
                    Ok(())
                };
                for (name, value) in headers {
                    add(name, value)?;
                }
                for name in secret_headers {
                    let value = self.keychain_value(SecretKind::Header, name)?;
                    add(name, &value)?;
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(map)
                    .max_json_response_size(MAX_MESSAGE_BYTES);
                // OAuth servers: the stored tokens (if any) ride along and
                // are refreshed by rmcp's AuthClient (see `auth`).
                let oauth = crate::auth::oauth_url(&self.config).is_some();
                let (auth_client, keychain_problem) = if oauth {
                    match crate::auth::authorized_client(url, Arc::clone(&self.options.secrets))
                        .await
                    {
                        Ok(client) => (client, None),
                        Err(problem) => (None, Some(problem)),
                    }
                } else {
                    (None, None)
                };
                let had_tokens = auth_client.is_some();
                let served = match auth_client {
                    Some(client) => {
                        handler
                            .serve(Routed::new(
                                StreamableHttpClientTransport::with_client(client, config),
                                Arc::clone(&self.progress),
                            ))
                            .await
                    }
                    None => {
                        handler
                            .serve(Routed::new(
                                StreamableHttpClientTransport::from_config(config),
                                Arc::clone(&self.progress),
                            ))
                            .await
                    }
                };
                served.map_err(|e| {
                    if e.is_authorization_required() {
                        let message = if oauth {
                            crate::auth::needs_sign_in_message(
                                &self.config.name,
                                had_tokens,
                                keychain_problem.as_deref(),
                            )
                        } else {
                            format!(
                                "{} refused the credentials (HTTP 401/403): check the token or sign in again",
                                crate::failure::shown_url(url)
                            )
                        };
                        (McpServerStatus::NeedsAuth, message)
                    } else {
                        failed(crate::failure::without_url(
                            &format!("cannot connect to {url}: {e}"),
                            url,
                        ))
                    }
                })?
            }
        };
        Ok(Connected::Live(running, changes, guard))
    }

    /// The server's tools (every page), sorted by qualified name; at most
    /// [`MAX_TOOL_PAGES`] pages, [`MAX_TOOLS`] tools and
    /// [`MAX_LISTING_BYTES`] of JSON, within the startup timeout.
    pub(super) async fn list_tools(
        &self,
        peer: &Peer<RoleClient>,
    ) -> Result<Vec<RemoteTool>, String> {
        let limit = self.config.startup_timeout;
        let tools = tokio::time::timeout(limit, list_all_tools(peer))
            .await
            .map_err(|_| format!("tools/list did not finish within {} s", limit.as_secs_f64()))??;
        let mut out: Vec<RemoteTool> = tools
            .iter()
            .map(|t| RemoteTool::from_model(&self.config.name, t))
            .collect();
        out.sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
        Ok(out)
    }
}

/// Every page of `tools/list`, within [`MAX_TOOL_PAGES`], [`MAX_TOOLS`] and
/// [`MAX_LISTING_BYTES`] (a server is outside input: it could hand out
/// cursors forever, or a million tools).
pub(super) async fn list_all_tools(
    peer: &Peer<RoleClient>,
) -> Result<Vec<rmcp::model::Tool>, String> {
    let mut tools = Vec::new();
    let mut bytes = 0_usize;
    let mut cursor = None;
    for _ in 0..MAX_TOOL_PAGES {
        let params = cursor
            .take()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = peer
            .list_tools(params)
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        bytes += serde_json::to_string(&page.tools).map_or(0, |t| t.len());
        tools.extend(page.tools);
        if tools.len() > MAX_TOOLS {
            return Err(format!(
                "tools/list gave more than {MAX_TOOLS} tools, more than Gatehouse takes from one server"
            ));
        }
        if bytes > MAX_LISTING_BYTES {
            return Err(format!(
                "tools/list gave more than {} MiB of tool definitions, more than Gatehouse takes from one server",
                MAX_LISTING_BYTES / (1024 * 1024)
            ));
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
    Err(format!(
        "tools/list had more than {MAX_TOOL_PAGES} pages (the server keeps handing out cursors)"
    ))
}
