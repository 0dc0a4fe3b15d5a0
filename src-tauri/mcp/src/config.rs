//! MCP server configuration, compatible with Claude Code (SPEC §8).
//!
//! Sources, lowest to highest precedence (a later source's server of the same
//! name replaces an earlier one, as in Claude Code):
//!
//! 1. user: `~/.claude.json`, top-level `mcpServers`;
//! 2. Gatehouse's own list: `~/.gatehouse/mcp.json` (`mcpServers`, plus the
//!    Gatehouse keys `trusted`, `disabled`, `secretHeaders`, `secretEnv`,
//!    `startupTimeoutMs`, `callTimeoutMs`);
//! 3. project: `<project>/.mcp.json` — these need the user's approval
//!    before they first start, and cannot mark themselves trusted;
//! 4. local: `~/.claude.json`, `projects["<project>"].mcpServers`.
//!
//! A server is either stdio (`command`, `args`, `env`; `type` absent or
//! `"stdio"`) or HTTP (`type: "http"`, `url`, `headers`). `${VAR}` and
//! `${VAR:-default}` are expanded in `command`, `args`, `env` values, `url`
//! and header values. A `url` without `type` is an error, as is an unset
//! variable without a default. Every error names the file and the server.
//!
//! `secretEnv` / `secretHeaders` (Gatehouse's file and project files only)
//! name env variables / headers whose values live in the OS keychain; the
//! file holds only the names (see [`crate::secrets`]).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::bounded_read::read_text;
use serde_json::{Map, Value};

/// The default time a server has to start and answer `initialize` +
/// `tools/list`.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// The default time one tool call or resource read may take.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(600);
/// Names the fingerprint formula (hashed first), so a later change of it
/// cannot collide with approvals made under this one.
const FINGERPRINT_SCHEME: &str = "gatehouse-mcp-approval-v2";

/// `value` with the keys of every object in sorted order, whatever map
/// type serde_json was built with (`preserve_order` keeps insertion order).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), canonical(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Where a server's configuration came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigScope {
    /// `~/.claude.json` top-level `mcpServers`.
    User,
    /// Gatehouse's own `~/.gatehouse/mcp.json`.
    Gatehouse,
    /// The project's `.mcp.json` (needs approval).
    Project,
    /// `~/.claude.json` → `projects[<project>].mcpServers`.
    Local,
}

impl ConfigScope {
    /// Whether servers of this scope need the user's approval to start.
    pub fn needs_approval(self) -> bool {
        self == Self::Project
    }
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (values may be secrets: never log
        /// or emit them).
        env: BTreeMap<String, String>,
        /// Environment variable names whose values come from the OS
        /// keychain (Gatehouse's own list and project files; see
        /// [`crate::secrets`]).
        secret_env: Vec<String>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// Extra headers (values may be secrets: never log or emit them).
        headers: BTreeMap<String, String>,
        /// Header names whose values come from the OS keychain
        /// (Gatehouse's own list only; see [`crate::secrets`]).
        secret_headers: Vec<String>,
    },
}

/// One configured server.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Its name (the `<server>` of `mcp__<server>__<tool>`).
    pub name: String,
    /// Where it was configured.
    pub scope: ConfigScope,
    /// The file it came from.
    pub file: PathBuf,
    /// How to reach it.
    pub transport: ServerTransport,
    /// Turned off: listed, never started.
    pub disabled: bool,
    /// The user trusts its tool annotations (read-only, destructive hints).
    pub trusted: bool,
    /// Time to start and list tools.
    pub startup_timeout: Duration,
    /// Time one call may take.
    pub call_timeout: Duration,
    /// The entry as written in its file (before `${VAR}` expansion); what
    /// [`Self::fingerprint`] hashes. May hold env and header values (never
    /// log or emit it). Configurations built in code put their own JSON here.
    pub entry: Value,
}

impl fmt::Debug for ServerConfig {
    // Hand-written so env and header values (secrets) never reach a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let transport = match &self.transport {
            ServerTransport::Stdio {
                command,
                args,
                env,
                secret_env,
            } => format!(
                "stdio {command} {args:?} env keys {:?} secret env {secret_env:?}",
                env.keys().collect::<Vec<_>>()
            ),
            ServerTransport::Http { url, headers, .. } => format!(
                "http {url} header names {:?}",
                headers.keys().collect::<Vec<_>>()
            ),
        };
        f.debug_struct("ServerConfig")
            .field("name", &self.name)
            .field("scope", &self.scope)
            .field("file", &self.file)
            .field("transport", &transport)
            .field("disabled", &self.disabled)
            .field("trusted", &self.trusted)
            .finish_non_exhaustive()
    }
}

impl ServerConfig {
    /// The approval fingerprint: SHA-256 (hex) of the server's name and its
    /// whole entry as written in its file ([`Self::entry`]) in canonical
    /// form (object keys sorted at every level, no whitespace). Every field
    /// counts — `command`, `args`, `env` and `headers` *values*, `url`,
    /// `type`, `cwd`, timeouts, fields Gatehouse does not read today — so
    /// any change to what will run needs a new approval; reordering keys
    /// does not. `secretEnv` / `secretHeaders` count by name (that is all
    /// the file holds; their values live in the keychain). The entry is
    /// hashed before `${VAR}` expansion: the repository controls the text,
    /// the variables are the user's own environment (and may be secrets,
    /// which so never reach the hash). Fingerprints of the earlier scheme
    /// (16 hex digits of FNV-1a over names only) never equal one of these,
    /// so such approvals ask again.
    pub fn fingerprint(&self) -> String {
        use sha2::Digest as _;
        let mut hasher = sha2::Sha256::new();
        hasher.update(FINGERPRINT_SCHEME.as_bytes());
        hasher.update([0]);
        hasher.update(self.name.as_bytes());
        hasher.update([0]);
        hasher.update(canonical(&self.entry).to_string().as_bytes());
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// `stdio` or `http`.
    pub fn transport_kind(&self) -> &'static str {
        match self.transport {
            ServerTransport::Stdio { .. } => "stdio",
            ServerTransport::Http { .. } => "http",
        }
    }
}

/// A problem in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file.display(), server.as_ref().map(|s| format!(": server `{s}`")).unwrap_or_default())]
pub struct ConfigError {
    /// The file.
    pub file: PathBuf,
    /// The server, when the problem is in one server's entry.
    pub server: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Every configured server and every problem found.
#[derive(Debug, Clone, Default)]
pub struct McpConfig {
    /// Servers by precedence resolved, sorted by name.
    pub servers: Vec<ServerConfig>,
    /// Problems; servers with problems are left out (fail closed).
    pub errors: Vec<ConfigError>,
}

/// Where to read configuration from.
#[derive(Debug, Clone)]
pub struct ConfigLayout {
    /// The project folder (its `.mcp.json`).
    pub project: PathBuf,
    /// The home folder (`~/.claude.json`, `~/.gatehouse/mcp.json`).
    pub home: PathBuf,
}

impl ConfigLayout {
    /// `<project>/.mcp.json`.
    pub fn project_file(&self) -> PathBuf {
        self.project.join(".mcp.json")
    }

    /// `~/.claude.json`.
    pub fn claude_user_file(&self) -> PathBuf {
        self.home.join(".claude.json")
    }

    /// `~/.gatehouse/mcp.json`.
    pub fn gatehouse_file(&self) -> PathBuf {
        self.home.join(".gatehouse").join("mcp.json")
    }
}

/// Loads every source of `layout`, expanding variables with the process
/// environment.
pub fn load(layout: &ConfigLayout) -> McpConfig {
    load_with_env(layout, &|name| std::env::var(name).ok())
}

/// [`load`] on a blocking thread, for async callers: it reads files
/// (`~/.claude.json` reaches MiBs) and resolves each project path there,
/// which must not hold up a runtime worker.
pub async fn load_off_runtime(layout: &ConfigLayout) -> McpConfig {
    let owned = layout.clone();
    let file = layout.claude_user_file();
    tokio::task::spawn_blocking(move || load(&owned))
        .await
        .unwrap_or_else(|e| McpConfig {
            servers: Vec::new(),
            errors: vec![file_error(
                &file,
                None,
                format!("reading the configuration failed: {e}"),
            )],
        })
}

/// [`load`] with an explicit variable lookup (tests).
pub fn load_with_env(layout: &ConfigLayout, env: &dyn Fn(&str) -> Option<String>) -> McpConfig {
    let mut errors = Vec::new();
    let mut by_name: BTreeMap<String, ServerConfig> = BTreeMap::new();
    let mut add = |servers: Vec<ServerConfig>| {
        for s in servers {
            by_name.insert(s.name.clone(), s);
        }
    };
    let user_file = layout.claude_user_file();
    let user_doc = read_json(&user_file, MAX_CLAUDE_USER_FILE_BYTES, &mut errors);
    if let Some(doc) = &user_doc {
        add(parse_servers(
            doc.get("mcpServers"),
            &user_file,
            ConfigScope::User,
            env,
            &mut errors,
        ));
    }
    let gatehouse_file = layout.gatehouse_file();
    if let Some(doc) = read_json(&gatehouse_file, MAX_CONFIG_FILE_BYTES, &mut errors) {
        add(parse_servers(
            doc.get("mcpServers"),
            &gatehouse_file,
            ConfigScope::Gatehouse,
            env,
            &mut errors,
        ));
    }
    let project_file = layout.project_file();
    if let Some(doc) = read_json(&project_file, MAX_CONFIG_FILE_BYTES, &mut errors) {
        add(parse_servers(
            doc.get("mcpServers"),
            &project_file,
            ConfigScope::Project,
            env,
            &mut errors,
        ));
    }
    if let Some(doc) = &user_doc {
        let local = doc
            .get("projects")
            .and_then(Value::as_object)
            .and_then(|projects| {
                let canonical = layout.project.canonicalize().ok();
                projects.iter().find_map(|(path, entry)| {
                    let p = Path::new(path);
                    let same = p == layout.project
                        || canonical
                            .as_deref()
                            .is_some_and(|c| p == c || p.canonicalize().ok().as_deref() == Some(c));
                    same.then(|| entry.get("mcpServers")).flatten()
                })
            });
        add(parse_servers(
            local,
            &user_file,
            ConfigScope::Local,
            env,
            &mut errors,
        ));
    }
    McpConfig {
        servers: by_name.into_values().collect(),
        errors,
    }
}

/// The largest `.mcp.json` or `~/.gatehouse/mcp.json` read (real ones are a
/// few KiB). A project's file is the repository's to choose (a symlink to
/// `/dev/zero` included), so every file is bounded.
pub const MAX_CONFIG_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The largest `~/.claude.json` read: the user's own file, which holds Claude
/// Code's per-project state besides `mcpServers` and has been seen past
/// 100 MB; only a file past this is refused (it must still be a file).
pub const MAX_CLAUDE_USER_FILE_BYTES: u64 = 1024 * 1024 * 1024;

/// Reads a JSON object file; absent files are not an error.
fn read_json(path: &Path, limit: u64, errors: &mut Vec<ConfigError>) -> Option<Value> {
    let text = match read_text(path, limit) {
        Ok(Some(t)) => t,
        Ok(None) => return None,
        Err(e) => {
            errors.push(file_error(path, None, e.to_string()));
            return None;
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v @ Value::Object(_)) => Some(v),
        Ok(_) => {
            errors.push(file_error(path, None, "not a JSON object".into()));
            None
        }
        Err(e) => {
            errors.push(file_error(
                path,
                None,
                format!(
                    "invalid JSON at line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ),
            ));
            None
        }
    }
}

fn file_error(path: &Path, server: Option<&str>, message: String) -> ConfigError {
    ConfigError {
        file: path.to_path_buf(),
        server: server.map(str::to_owned),
        message,
    }
}

/// Parses an `mcpServers` object. Entries with problems are reported and
/// left out.
pub fn parse_servers(
    servers: Option<&Value>,
    file: &Path,
    scope: ConfigScope,
    env: &dyn Fn(&str) -> Option<String>,
    errors: &mut Vec<ConfigError>,
) -> Vec<ServerConfig> {
    let Some(servers) = servers else {
        return Vec::new();
    };
    let Some(map) = servers.as_object() else {
        errors.push(file_error(
            file,
            None,
            "`mcpServers` must be an object".into(),
        ));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, entry) in map {
        match parse_server(name, entry, file, scope, env) {
            Ok(s) => out.push(s),
            Err(message) => errors.push(file_error(file, Some(name), message)),
        }
    }
    out
}

fn parse_server(
    name: &str,
    entry: &Value,
    file: &Path,
    scope: ConfigScope,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerConfig, String> {
    if name.is_empty() {
        return Err("the server name is empty".into());
    }
    if name.contains("__") {
        // `__` separates server and tool in `mcp__<server>__<tool>`.
        return Err("a server name may not contain `__`".into());
    }
    let obj = entry.as_object().ok_or("the entry must be an object")?;
    let expand_field = |what: &str, text: &str| {
        expand(text, env).map_err(|var| {
            format!("{what}: environment variable `{var}` is not set and has no default (`${{{var}:-default}}`)")
        })
    };
    let kind = match obj.get("type") {
        None => None,
        Some(Value::String(t)) => Some(t.as_str()),
        Some(_) => return Err("`type` must be a string".into()),
    };
    let transport = match kind {
        None | Some("stdio") => {
            if obj.contains_key("url") && kind.is_none() {
                return Err(
                    "has a `url` but no `type`: add `\"type\": \"http\"` for a streamable HTTP server"
                        .into(),
                );
            }
            let command = string_field(obj, "command")?
                .ok_or("needs a `command` (stdio) or `\"type\": \"http\"` with a `url`")?;
            let command = expand_field("command", &command)?;
            let args = match obj.get("args") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        a.as_str()
                            .ok_or(format!("args[{i}] must be a string"))
                            .and_then(|a| expand_field(&format!("args[{i}]"), a))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("`args` must be an array of strings".into()),
            };
            let env_map = string_map(obj, "env", &expand_field)?;
            let secret_env = secret_names(obj, "secretEnv", scope)?;
            if let Some(both) = secret_env.iter().find(|n| env_map.contains_key(*n)) {
                return Err(format!(
                    "`{both}` is in both `env` and `secretEnv`: keep it in one"
                ));
            }
            ServerTransport::Stdio {
                command,
                args,
                env: env_map,
                secret_env,
            }
        }
        Some("http") => {
            let url = string_field(obj, "url")?.ok_or("an HTTP server needs a `url`")?;
            let url = expand_field("url", &url)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("`url` must be an http(s) URL, got `{url}`"));
            }
            let headers = string_map(obj, "headers", &expand_field)?;
            let secret_headers = secret_names(obj, "secretHeaders", scope)?;
            if let Some(both) = secret_headers
                .iter()
                .find(|n| headers.keys().any(|h| h.eq_ignore_ascii_case(n)))
            {
                return Err(format!(
                    "`{both}` is in both `headers` and `secretHeaders`: keep it in one"
                ));
            }
            ServerTransport::Http {
                url,
                headers,
                secret_headers,
            }
        }
        Some("sse") => {
            return Err("the legacy `sse` transport is not supported; use `\"type\": \"http\"` (streamable HTTP)".into());
        }
        Some(other) => {
            return Err(format!(
                "unknown `type` `{other}` (expected `stdio` or `http`)"
            ));
        }
    };
    let flag = |key: &str| -> Result<bool, String> {
        match obj.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(format!("`{key}` must be true or false")),
        }
    };
    let millis = |key: &str, default: Duration| -> Result<Duration, String> {
        match obj.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis)
                .ok_or(format!("`{key}` must be a positive number of milliseconds")),
        }
    };
    let trusted = flag("trusted")?;
    // A project's own file cannot make its servers trusted: trust is the
    // user's to give (from their own files).
    let trusted = trusted
        && matches!(
            scope,
            ConfigScope::User | ConfigScope::Gatehouse | ConfigScope::Local
        );
    Ok(ServerConfig {
        name: name.to_owned(),
        scope,
        file: file.to_path_buf(),
        transport,
        disabled: flag("disabled")?,
        trusted,
        startup_timeout: millis("startupTimeoutMs", DEFAULT_STARTUP_TIMEOUT)?,
        call_timeout: millis("callTimeoutMs", DEFAULT_CALL_TIMEOUT)?,
        entry: entry.clone(),
    })
}

/// A list of keychain-held names (`secretHeaders`, `secretEnv`). Only
/// Gatehouse's own file and the project's file may have them: their
/// keychain accounts are scoped to that file (see [`crate::secrets`]), so a
/// project can never read secrets stored for another project or for the
/// user's own servers.
fn secret_names(
    obj: &Map<String, Value>,
    key: &str,
    scope: ConfigScope,
) -> Result<Vec<String>, String> {
    match obj.get(key) {
        None => Ok(Vec::new()),
        Some(_) if !matches!(scope, ConfigScope::Gatehouse | ConfigScope::Project) => Err(format!(
            "`{key}` is only read from Gatehouse's own ~/.gatehouse/mcp.json and a project's .mcp.json"
        )),
        Some(Value::Array(items)) => items
            .iter()
            .map(|h| {
                h.as_str()
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned)
                    .ok_or(format!("`{key}` must list names (non-empty strings)"))
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be an array of names")),
    }
}

fn string_field(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

fn string_map(
    obj: &Map<String, Value>,
    key: &str,
    expand_field: &dyn Fn(&str, &str) -> Result<String, String>,
) -> Result<BTreeMap<String, String>, String> {
    match obj.get(key) {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let v = v.as_str().ok_or(format!("`{key}.{k}` must be a string"))?;
                Ok((k.clone(), expand_field(&format!("{key}.{k}"), v)?))
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be an object of strings")),
    }
}

/// Expands `${VAR}` and `${VAR:-default}` in `text`. Returns the name of the
/// first variable that is unset and has no default. Text that is not a
/// complete `${…}` is kept as written.
pub fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            out.push_str(&rest[start..start + 3 + end]);
            rest = &after[end + 1..];
            continue;
        }
        match (env(name), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(name.to_owned()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME_DIR" => Some("/home/u".into()),
            "TOKEN" => Some("s3cret".into()),
            _ => None,
        }
    }

    #[test]
    fn expansion_handles_defaults_missing_and_literal_text() {
        assert_eq!(expand("${HOME_DIR}/x", &env).unwrap(), "/home/u/x");
        assert_eq!(
            expand("${NOPE:-dflt}-${HOME_DIR:-z}", &env).unwrap(),
            "dflt-/home/u"
        );
        assert_eq!(expand("${NOPE:-}", &env).unwrap(), "");
        assert_eq!(expand("a ${NOPE} b", &env).unwrap_err(), "NOPE");
        assert_eq!(
            expand("$HOME_DIR ${ unclosed", &env).unwrap(),
            "$HOME_DIR ${ unclosed"
        );
        assert_eq!(expand("${1x} ${a-b}", &env).unwrap(), "${1x} ${a-b}");
    }

    fn parse(v: Value, scope: ConfigScope) -> (Vec<ServerConfig>, Vec<ConfigError>) {
        let mut errors = Vec::new();
        let s = parse_servers(
            Some(&v),
            Path::new("/p/.mcp.json"),
            scope,
            &env,
            &mut errors,
        );
        (s, errors)
    }

    #[test]
    fn stdio_and_http_servers_parse_with_expansion() {
        let (servers, errors) = parse(
            json!({
                "fs": {"command": "node", "args": ["${HOME_DIR}/fs.js", "x"], "env": {"K": "${TOKEN}"}},
                "web": {"type": "http", "url": "https://h.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
            }),
            ConfigScope::User,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(servers.len(), 2);
        assert_eq!(
            servers[0].transport,
            ServerTransport::Stdio {
                command: "node".into(),
                args: vec!["/home/u/fs.js".into(), "x".into()],
                env: [("K".to_string(), "s3cret".to_string())].into(),
                secret_env: Vec::new(),
            }
        );
        let ServerTransport::Http { url, headers, .. } = &servers[1].transport else {
            panic!()
        };
        assert_eq!(url, "https://h.example/mcp");
        assert_eq!(headers["Authorization"], "Bearer s3cret");
        // Debug output never shows secret values.
        let debug = format!("{servers:?}");
        assert!(!debug.contains("s3cret"), "{debug}");
    }

    #[test]
    fn errors_name_file_and_server_and_drop_only_that_server() {
        let (servers, errors) = parse(
            json!({
                "ok": {"command": "x"},
                "urlOnly": {"url": "https://h/mcp"},
                "missingVar": {"command": "${NOPE}"},
                "sse": {"type": "sse", "url": "https://h/sse"},
                "weird": {"type": "ws", "url": "x"},
                "nothing": {},
                "bad__name": {"command": "x"},
                "badArgs": {"command": "x", "args": "a b"}
            }),
            ConfigScope::Project,
        );
        assert_eq!(
            servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["ok"]
        );
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(text.len(), 7, "{text:#?}");
        for t in &text {
            assert!(t.starts_with("/p/.mcp.json: server `"), "{t}");
        }
        assert!(
            text.iter()
                .any(|t| t.contains("`urlOnly`") && t.contains("no `type`"))
        );
        assert!(
            text.iter()
                .any(|t| t.contains("`missingVar`") && t.contains("`NOPE`"))
        );
        assert!(
            text.iter()
                .any(|t| t.contains("`sse`") && t.contains("not supported"))
        );
    }

    #[test]
    fn keychain_references_only_in_gatehouse_and_project_files_and_never_twice() {
        let v = json!({"s": {"command": "x", "secretEnv": ["TOKEN"]}});
        let (servers, errors) = parse(v.clone(), ConfigScope::Project);
        assert!(errors.is_empty(), "{errors:?}");
        let ServerTransport::Stdio { secret_env, .. } = &servers[0].transport else {
            panic!()
        };
        assert_eq!(secret_env, &["TOKEN"]);
        let (_, errors) = parse(v, ConfigScope::User);
        assert!(errors[0].message.contains("only read from"), "{errors:?}");
        let (_, errors) = parse(
            json!({"s": {"command": "x", "env": {"T": "1"}, "secretEnv": ["T"]}}),
            ConfigScope::Gatehouse,
        );
        assert!(
            errors[0].message.contains("both `env` and `secretEnv`"),
            "{errors:?}"
        );
        let (_, errors) = parse(
            json!({"s": {"type": "http", "url": "https://h/mcp", "headers": {"authorization": "x"}, "secretHeaders": ["Authorization"]}}),
            ConfigScope::Local,
        );
        assert!(errors[0].message.contains("only read from"), "{errors:?}");
    }

    #[test]
    fn projects_cannot_trust_themselves() {
        let v = json!({"s": {"command": "x", "trusted": true}});
        assert!(!parse(v.clone(), ConfigScope::Project).0[0].trusted);
        assert!(parse(v, ConfigScope::Gatehouse).0[0].trusted);
    }

    fn fingerprint_of(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        let (servers, errors) = parse(v, ConfigScope::Project);
        assert!(errors.is_empty(), "{text}: {errors:?}");
        servers[0].fingerprint()
    }

    #[test]
    fn every_field_of_an_entry_counts_in_its_fingerprint_and_key_order_does_not() {
        let stdio = r#"{"s": {"command": "node", "args": ["a.js", "--x"],
            "env": {"NODE_OPTIONS": "", "K": "${TOKEN}"}, "secretEnv": ["API_KEY"],
            "cwd": "sub", "startupTimeoutMs": 1000, "callTimeoutMs": 2000}}"#;
        let approved = fingerprint_of(stdio);
        assert_eq!(approved.len(), 64, "SHA-256 in hex");
        assert!(approved.chars().all(|c| c.is_ascii_hexdigit()));
        // The same entry with its keys (and env keys) in another order.
        let reordered = r#"{"s": {"callTimeoutMs": 2000, "cwd": "sub",
            "env": {"K": "${TOKEN}", "NODE_OPTIONS": ""}, "startupTimeoutMs": 1000,
            "secretEnv": ["API_KEY"], "args": ["a.js", "--x"], "command": "node"}}"#;
        assert_eq!(fingerprint_of(reordered), approved);
        // Each field changed: a new fingerprint, so a new approval.
        let changed = [
            ("command", stdio.replace(r#""node""#, r#""nodejs""#)),
            ("an arg", stdio.replace(r#""--x""#, r#""--y""#)),
            (
                "arg order",
                stdio.replace(r#"["a.js", "--x"]"#, r#"["--x", "a.js"]"#),
            ),
            (
                "an added arg",
                stdio.replace(r#""--x"]"#, r#""--x", "evil.js"]"#),
            ),
            (
                "an env value",
                stdio.replace(
                    r#""NODE_OPTIONS": """#,
                    r#""NODE_OPTIONS": "--require ./evil.js""#,
                ),
            ),
            (
                "an env value's variable",
                stdio.replace("${TOKEN}", "${HOME_DIR}"),
            ),
            ("an env name", stdio.replace(r#""K""#, r#""L""#)),
            (
                "secretEnv names",
                stdio.replace(r#"["API_KEY"]"#, r#"["API_KEY", "X"]"#),
            ),
            ("cwd", stdio.replace(r#""sub""#, r#""../elsewhere""#)),
            ("startupTimeoutMs", stdio.replace("1000", "1001")),
            ("callTimeoutMs", stdio.replace("2000", "2001")),
            (
                "type",
                stdio.replace(r#"{"command""#, r#"{"type": "stdio", "command""#),
            ),
            (
                "an unknown field",
                stdio.replace(r#"{"command""#, r#"{"futureField": 1, "command""#),
            ),
            (
                "disabled",
                stdio.replace(r#"{"command""#, r#"{"disabled": false, "command""#),
            ),
            ("the name", stdio.replace(r#"{"s":"#, r#"{"t":"#)),
        ];
        for (what, text) in &changed {
            assert_ne!(
                fingerprint_of(text),
                approved,
                "changing {what} kept the approval"
            );
        }
        let http = r#"{"s": {"type": "http", "url": "https://h.example/mcp",
            "headers": {"X-Api": "v1"}, "secretHeaders": ["Authorization"]}}"#;
        let approved = fingerprint_of(http);
        let changed = [
            ("url", http.replace("h.example", "evil.example")),
            ("a header value", http.replace(r#""v1""#, r#""v2""#)),
            ("a header name", http.replace("X-Api", "X-Other")),
            (
                "secretHeaders names",
                http.replace(r#"["Authorization"]"#, r#"["Authorization", "X-Key"]"#),
            ),
        ];
        for (what, text) in &changed {
            assert_ne!(
                fingerprint_of(text),
                approved,
                "changing {what} kept the approval"
            );
        }
        // An approval stored under the old scheme (16 hex digits of FNV-1a)
        // can never match: it asks again.
        assert_ne!(
            fingerprint_of(r#"{"s": {"command": "x"}}"#),
            "a8260e0a9e7ea3e2"
        );
    }

    #[test]
    fn the_fingerprint_hashes_the_text_before_expansion() {
        // A secret from the environment never reaches the hash (nor SQLite):
        // the same entry gives the same fingerprint whatever TOKEN holds.
        let text = json!({"s": {"command": "x", "env": {"K": "${TOKEN}"}}});
        let mut errors = Vec::new();
        let with =
            |token: &'static str| move |name: &str| (name == "TOKEN").then(|| token.to_owned());
        let file = Path::new("/p/.mcp.json");
        let a = parse_servers(
            Some(&text),
            file,
            ConfigScope::Project,
            &with("one"),
            &mut errors,
        );
        let b = parse_servers(
            Some(&text),
            file,
            ConfigScope::Project,
            &with("two"),
            &mut errors,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_ne!(a[0].transport, b[0].transport);
        assert_eq!(a[0].fingerprint(), b[0].fingerprint());
    }

    #[test]
    fn sources_merge_with_project_over_user_and_errors_name_files() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(".claude.json"),
            json!({
                "mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}},
                "projects": {project.path().to_str().unwrap(): {"mcpServers": {"c": {"command": "local-c"}}}}
            })
            .to_string(),
        )
        .unwrap();
        std::fs::write(
            project.path().join(".mcp.json"),
            json!({"mcpServers": {"b": {"command": "project-b"}}}).to_string(),
        )
        .unwrap();
        std::fs::create_dir_all(home.path().join(".gatehouse")).unwrap();
        std::fs::write(home.path().join(".gatehouse/mcp.json"), "{ not json").unwrap();
        let cfg = load_with_env(
            &ConfigLayout {
                project: project.path().into(),
                home: home.path().into(),
            },
            &env,
        );
        let summary: Vec<(String, ConfigScope)> = cfg
            .servers
            .iter()
            .map(|s| (s.name.clone(), s.scope))
            .collect();
        assert_eq!(
            summary,
            [
                ("a".into(), ConfigScope::User),
                ("b".into(), ConfigScope::Project),
                ("c".into(), ConfigScope::Local)
            ]
        );
        assert_eq!(cfg.errors.len(), 1);
        let e = cfg.errors[0].to_string();
        assert!(
            e.contains(".gatehouse/mcp.json") && e.contains("invalid JSON at line 1"),
            "{e}"
        );
    }
}
