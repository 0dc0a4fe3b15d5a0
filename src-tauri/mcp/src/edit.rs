//! Editing the two files Gatehouse writes: its own `~/.gatehouse/mcp.json`
//! and a project's `.mcp.json` (the MCP panel; SPEC §8, §12).
//!
//! * Entries are read back *as written* (`${VAR}` unexpanded) so that saving
//!   a form never bakes an environment value into the file.
//! * Writes are atomic (a temporary file in the same folder, then a rename)
//!   and keep every other key of the file and of the entry
//!   (`startupTimeoutMs`, Claude Code's own keys, …). `serde_json` does not
//!   keep key order, so a rewritten file has its keys sorted.
//! * Secret env values and headers go to the keychain through a
//!   [`SecretLookup`] (account: [`secret_account`]); the file gets only their
//!   names in `secretEnv` / `secretHeaders`. A value is never written to the
//!   file, returned, logged or put in an error.
//! * Validation names the field at fault with the same paths the UI uses:
//!   `name`, `command`, `args[i]`, `env[i].name`, `env[i].value`, `url`,
//!   `headers[i].name`, `headers[i].value`, `trusted`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::read_text;
use gatehouse_protocol::mcp::{McpServerDraft, McpTransportDraft, McpValueDraft};
use serde_json::{Map, Value, json};

use crate::config::{ConfigLayout, ConfigScope, MAX_CLAUDE_USER_FILE_BYTES};
use crate::secrets::{SecretKind, SecretLookup, secret_account};

/// A rejected edit: the field at fault (when one is) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", field.as_ref().map(|f| format!("`{f}`: ")).unwrap_or_default())]
pub struct EditError {
    /// The form field (`url`, `env[0].name`, …), `None` for file problems.
    pub field: Option<String>,
    /// What is wrong (never a secret value).
    pub message: String,
}

fn field_error(field: impl Into<String>, message: impl Into<String>) -> EditError {
    EditError {
        field: Some(field.into()),
        message: message.into(),
    }
}

fn file_error(message: impl Into<String>) -> EditError {
    EditError {
        field: None,
        message: message.into(),
    }
}

/// The file of an editable scope: Gatehouse's own list or the project's
/// `.mcp.json`. Claude Code's `~/.claude.json` is not written by Gatehouse.
pub fn editable_file(layout: &ConfigLayout, scope: ConfigScope) -> Result<PathBuf, EditError> {
    match scope {
        ConfigScope::Gatehouse => Ok(layout.gatehouse_file()),
        ConfigScope::Project => Ok(layout.project_file()),
        ConfigScope::User | ConfigScope::Local => Err(file_error(format!(
            "servers in {} belong to Claude Code; edit them there (Gatehouse writes only ~/.gatehouse/mcp.json and the project's .mcp.json)",
            layout.claude_user_file().display()
        ))),
    }
}

/// Whether `name` may name a server: letters, digits, `_`, `-`, `.`, no
/// `__` (the separator of `mcp__<server>__<tool>`). `:` is excluded because
/// it separates the parts of keychain account names.
pub fn check_server_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("enter a name".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "`{c}` is not allowed: use letters, digits, `_`, `-` and `.`"
        ));
    }
    if name.contains("__") {
        return Err("may not contain `__` (it separates server and tool in tool names)".into());
    }
    Ok(())
}

/// Checks a name; `Err` says what is wrong with it.
type NameCheck = fn(&str) -> Result<(), String>;

fn check_env_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    match chars.next() {
        None => Err("enter a variable name".into()),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => {
            Err("must start with a letter or `_`".into())
        }
        _ if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            Err("use letters, digits and `_` only".into())
        }
        _ => Ok(()),
    }
}

fn check_header_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("enter a header name".into());
    }
    // RFC 9110 token characters.
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(*c)))
    {
        return Err(format!("`{c}` is not allowed in a header name"));
    }
    Ok(())
}

/// Every problem of `draft` for `scope`, in form order. `stored` says
/// whether the keychain already holds a secret (a secret without a new
/// value must have one).
pub fn validate(
    draft: &McpServerDraft,
    scope: ConfigScope,
    stored: &dyn Fn(SecretKind, &str) -> bool,
) -> Vec<EditError> {
    let mut errors = Vec::new();
    if let Err(m) = check_server_name(&draft.name) {
        errors.push(field_error("name", m));
    }
    let (list, kind, check): (&[McpValueDraft], _, NameCheck) = match &draft.transport {
        McpTransportDraft::Stdio { command, env, .. } => {
            if command.trim().is_empty() {
                errors.push(field_error("command", "enter the program to run"));
            }
            (env, SecretKind::Env, check_env_name)
        }
        McpTransportDraft::Http { url, headers } => {
            let url = url.trim();
            if url.is_empty() {
                errors.push(field_error("url", "enter the server's URL"));
            } else if !(url.starts_with("http://")
                || url.starts_with("https://")
                || url.starts_with("${"))
            {
                errors.push(field_error("url", "must start with http:// or https://"));
            }
            (headers, SecretKind::Header, check_header_name)
        }
    };
    let list_name = match kind {
        SecretKind::Env => "env",
        SecretKind::Header => "headers",
    };
    let mut seen = Vec::<String>::new();
    for (i, v) in list.iter().enumerate() {
        let key = match kind {
            SecretKind::Env => v.name.clone(),
            SecretKind::Header => v.name.to_ascii_lowercase(),
        };
        if let Err(m) = check(&v.name) {
            errors.push(field_error(format!("{list_name}[{i}].name"), m));
        } else if seen.contains(&key) {
            errors.push(field_error(
                format!("{list_name}[{i}].name"),
                format!("`{}` is listed twice", v.name),
            ));
        }
        seen.push(key);
        if kind == SecretKind::Header && (v.value.contains('\r') || v.value.contains('\n')) {
            errors.push(field_error(
                format!("{list_name}[{i}].value"),
                "a header value cannot contain line breaks",
            ));
        }
        if !v.secret && v.stored && v.value.is_empty() {
            // Unticking "secret" would otherwise write an empty value and
            // delete the stored one.
            errors.push(field_error(
                format!("{list_name}[{i}].value"),
                "type the value to keep in the file, or keep it secret",
            ));
        }
        if v.secret && v.value.is_empty() && !stored(kind, &v.name) {
            errors.push(field_error(
                format!("{list_name}[{i}].value"),
                "enter the secret value (it is stored in the OS keychain)",
            ));
        }
    }
    if draft.trusted && scope != ConfigScope::Gatehouse {
        errors.push(field_error(
            "trusted",
            "only servers in Gatehouse's own list can be trusted (a project cannot trust its own servers)",
        ));
    }
    errors
}

/// Reads an editable file's JSON object (absent: empty). Invalid JSON is an
/// error: the file is never overwritten then.
fn read_object(file: &Path) -> Result<Map<String, Value>, EditError> {
    // `~/.claude.json` included: the larger limit.
    let text = match read_text(file, MAX_CLAUDE_USER_FILE_BYTES) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(Map::new()),
        Err(e) => return Err(file_error(format!("{} {e}", file.display()))),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(file_error(format!(
            "{} is not a JSON object; fix it by hand first",
            file.display()
        ))),
        Err(e) => Err(file_error(format!(
            "{} has invalid JSON at line {}, column {} ({e}); fix it by hand first",
            file.display(),
            e.line(),
            e.column()
        ))),
    }
}

/// Writes `doc` to `file` atomically (the shared implementation: its
/// folder created, its permissions and a symlink kept).
fn write_object(file: &Path, doc: &Map<String, Value>) -> Result<(), EditError> {
    let mut text = serde_json::to_string_pretty(doc)
        .map_err(|e| file_error(format!("cannot encode {}: {e}", file.display())))?;
    text.push('\n');
    gatehouse_core::atomic_write::write_atomic(file, text.as_bytes(), true)
        .map_err(|e| file_error(e.to_string()))
}

fn servers_mut<'a>(
    doc: &'a mut Map<String, Value>,
    file: &Path,
) -> Result<&'a mut Map<String, Value>, EditError> {
    doc.entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| {
            file_error(format!(
                "{}: `mcpServers` is not an object; fix it by hand first",
                file.display()
            ))
        })
}

fn names_in(entry: &Map<String, Value>, key: &str) -> Vec<String> {
    entry
        .get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The keychain-held names of an entry as written.
fn secrets_of(entry: &Map<String, Value>) -> Vec<(SecretKind, String)> {
    names_in(entry, "secretEnv")
        .into_iter()
        .map(|n| (SecretKind::Env, n))
        .chain(
            names_in(entry, "secretHeaders")
                .into_iter()
                .map(|n| (SecretKind::Header, n)),
        )
        .collect()
}

fn string_map_of(entry: &Map<String, Value>, key: &str) -> Option<Vec<(String, String)>> {
    match entry.get(key) {
        None => Some(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
            .collect(),
        Some(_) => None,
    }
}

/// An entry as written, as a form draft; `None` when it is malformed (the
/// loader reports why). Secret values are never read: `stored` says whether
/// the keychain holds one.
pub fn draft_of(
    name: &str,
    entry: &Value,
    scope: ConfigScope,
    file: &Path,
    secrets: &dyn SecretLookup,
) -> Option<McpServerDraft> {
    let obj = entry.as_object()?;
    let secret = |kind: SecretKind, n: String| {
        let stored = secret_account(scope, file, name, kind, &n)
            .and_then(|account| secrets.get(&account).ok().flatten())
            .is_some();
        McpValueDraft {
            name: n,
            value: String::new(),
            secret: true,
            stored,
        }
    };
    let plain = |(name, value): (String, String)| McpValueDraft {
        name,
        value,
        secret: false,
        stored: false,
    };
    let transport = match obj.get("type").map(Value::as_str) {
        Some(Some("http")) => McpTransportDraft::Http {
            url: obj.get("url")?.as_str()?.to_owned(),
            headers: string_map_of(obj, "headers")?
                .into_iter()
                .map(plain)
                .chain(
                    names_in(obj, "secretHeaders")
                        .into_iter()
                        .map(|n| secret(SecretKind::Header, n)),
                )
                .collect(),
        },
        None | Some(Some("stdio")) => McpTransportDraft::Stdio {
            command: obj.get("command")?.as_str()?.to_owned(),
            args: match obj.get("args") {
                None => Vec::new(),
                Some(a) => a
                    .as_array()?
                    .iter()
                    .map(|a| a.as_str().map(str::to_owned))
                    .collect::<Option<_>>()?,
            },
            env: string_map_of(obj, "env")?
                .into_iter()
                .map(plain)
                .chain(
                    names_in(obj, "secretEnv")
                        .into_iter()
                        .map(|n| secret(SecretKind::Env, n)),
                )
                .collect(),
        },
        _ => return None,
    };
    let flag = |key: &str| obj.get(key).and_then(Value::as_bool).unwrap_or(false);
    Some(McpServerDraft {
        name: name.to_owned(),
        transport,
        disabled: flag("disabled"),
        trusted: flag("trusted"),
    })
}

/// The entries of an editable file as drafts, by name (malformed entries
/// and unreadable files give none; the loader reports them).
pub fn drafts(
    layout: &ConfigLayout,
    scope: ConfigScope,
    secrets: &dyn SecretLookup,
) -> BTreeMap<String, McpServerDraft> {
    let Ok(file) = editable_file(layout, scope) else {
        return BTreeMap::new();
    };
    let Ok(doc) = read_object(&file) else {
        return BTreeMap::new();
    };
    let Some(servers) = doc.get("mcpServers").and_then(Value::as_object) else {
        return BTreeMap::new();
    };
    servers
        .iter()
        .filter_map(|(name, entry)| {
            draft_of(name, entry, scope, &file, secrets).map(|d| (name.clone(), d))
        })
        .collect()
}

/// The JSON entry for `draft`, starting from the entry it replaces (so
/// keys the form does not show survive).
fn entry_json(draft: &McpServerDraft, previous: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut entry = previous.cloned().unwrap_or_default();
    let split = |list: &[McpValueDraft]| {
        let plain: Map<String, Value> = list
            .iter()
            .filter(|v| !v.secret)
            .map(|v| (v.name.clone(), Value::String(v.value.clone())))
            .collect();
        let secret: Vec<Value> = list
            .iter()
            .filter(|v| v.secret)
            .map(|v| Value::String(v.name.clone()))
            .collect();
        (plain, secret)
    };
    let mut put = |key: &str, value: Option<Value>| match value {
        Some(v) => {
            entry.insert(key.to_owned(), v);
        }
        None => {
            entry.remove(key);
        }
    };
    match &draft.transport {
        McpTransportDraft::Stdio { command, args, env } => {
            let (plain, secret) = split(env);
            for key in ["url", "headers", "secretHeaders"] {
                put(key, None);
            }
            // Keep an explicit `"type": "stdio"`; otherwise leave it out,
            // as Claude Code writes stdio entries.
            let was_stdio = previous
                .and_then(|p| p.get("type"))
                .is_some_and(|t| t == "stdio");
            put("type", was_stdio.then(|| json!("stdio")));
            put("command", Some(json!(command.trim())));
            put("args", (!args.is_empty()).then(|| json!(args)));
            put("env", (!plain.is_empty()).then_some(Value::Object(plain)));
            put(
                "secretEnv",
                (!secret.is_empty()).then_some(Value::Array(secret)),
            );
        }
        McpTransportDraft::Http { url, headers } => {
            let (plain, secret) = split(headers);
            for key in ["command", "args", "env", "secretEnv"] {
                put(key, None);
            }
            put("type", Some(json!("http")));
            put("url", Some(json!(url.trim())));
            put(
                "headers",
                (!plain.is_empty()).then_some(Value::Object(plain)),
            );
            put(
                "secretHeaders",
                (!secret.is_empty()).then_some(Value::Array(secret)),
            );
        }
    }
    put("disabled", draft.disabled.then_some(Value::Bool(true)));
    put("trusted", draft.trusted.then_some(Value::Bool(true)));
    entry
}

fn account(
    scope: ConfigScope,
    file: &Path,
    server: &str,
    kind: SecretKind,
    name: &str,
) -> Result<String, EditError> {
    secret_account(scope, file, server, kind, name)
        .ok_or_else(|| file_error("this file cannot hold keychain secrets"))
}

/// Adds `draft` to (or, with `original_name`, replaces that server in) the
/// file of `scope`. New secret values go to `secrets` first; only if they
/// are all stored is the file written; keychain entries the new version no
/// longer names are then deleted (a renamed server's kept secrets move to
/// its new name).
pub fn save(
    layout: &ConfigLayout,
    scope: ConfigScope,
    original_name: Option<&str>,
    draft: &McpServerDraft,
    secrets: &dyn SecretLookup,
) -> Result<(), EditError> {
    let file = editable_file(layout, scope)?;
    let mut doc = read_object(&file)?;
    let servers = servers_mut(&mut doc, &file)?;
    let previous = match original_name {
        Some(old) => Some(
            servers
                .get(old)
                .and_then(Value::as_object)
                .cloned()
                .ok_or_else(|| {
                    file_error(format!(
                        "{} has no server `{old}` any more (changed on disk?); reload",
                        file.display()
                    ))
                })?,
        ),
        None => None,
    };
    let old_name = original_name.unwrap_or(&draft.name);
    let stored = |kind: SecretKind, name: &str| {
        previous
            .as_ref()
            .is_some_and(|p| secrets_of(p).iter().any(|(k, n)| *k == kind && n == name))
            && secret_account(scope, &file, old_name, kind, name)
                .and_then(|a| secrets.get(&a).ok().flatten())
                .is_some()
    };
    if let Some(first) = validate(draft, scope, &stored).into_iter().next() {
        return Err(first);
    }
    if original_name != Some(draft.name.as_str()) && servers.contains_key(&draft.name) {
        return Err(field_error(
            "name",
            format!(
                "{} already has a server named `{}`",
                file.display(),
                draft.name
            ),
        ));
    }
    let (kind, list) = match &draft.transport {
        McpTransportDraft::Stdio { env, .. } => (SecretKind::Env, env),
        McpTransportDraft::Http { headers, .. } => (SecretKind::Header, headers),
    };
    // Secrets first: a file that names a secret the keychain lacks would
    // leave the server in needs-auth.
    let mut kept = Vec::new();
    for v in list.iter().filter(|v| v.secret) {
        let new_account = account(scope, &file, &draft.name, kind, &v.name)?;
        if v.value.is_empty() {
            let old_account = account(scope, &file, old_name, kind, &v.name)?;
            if old_account != new_account {
                let value = secrets
                    .get(&old_account)
                    .map_err(|e| file_error(format!("reading the keychain: {e}")))?
                    .ok_or_else(|| {
                        field_error("name", format!("the stored secret `{}` vanished", v.name))
                    })?;
                secrets.set(&new_account, &value).map_err(|e| {
                    file_error(format!("storing `{}` in the keychain: {e}", v.name))
                })?;
            }
        } else {
            secrets
                .set(&new_account, &v.value)
                .map_err(|e| file_error(format!("storing `{}` in the keychain: {e}", v.name)))?;
        }
        kept.push(new_account);
    }
    let entry = entry_json(draft, previous.as_ref());
    if let Some(old) = original_name {
        servers.remove(old);
    }
    servers.insert(draft.name.clone(), Value::Object(entry));
    write_object(&file, &doc)?;
    if let Some(previous) = &previous {
        for (kind, name) in secrets_of(previous) {
            let old = account(scope, &file, old_name, kind, &name)?;
            if !kept.contains(&old) {
                // Best effort: the file no longer names it, so a leftover
                // entry is never read; report nothing secret.
                let _ = secrets.delete(&old);
            }
        }
    }
    Ok(())
}

/// Removes server `name` from the file of `scope`, then its keychain
/// secrets.
pub fn remove(
    layout: &ConfigLayout,
    scope: ConfigScope,
    name: &str,
    secrets: &dyn SecretLookup,
) -> Result<(), EditError> {
    let file = editable_file(layout, scope)?;
    let mut doc = read_object(&file)?;
    let servers = servers_mut(&mut doc, &file)?;
    let entry = servers
        .remove(name)
        .ok_or_else(|| file_error(format!("{} has no server `{name}`", file.display())))?;
    write_object(&file, &doc)?;
    if let Some(obj) = entry.as_object() {
        for (kind, secret) in secrets_of(obj) {
            let _ = secrets.delete(&account(scope, &file, name, kind, &secret)?);
        }
    }
    Ok(())
}

/// Turns server `name` of the file of `scope` off (`disabled: true`) or on.
pub fn set_disabled(
    layout: &ConfigLayout,
    scope: ConfigScope,
    name: &str,
    disabled: bool,
) -> Result<(), EditError> {
    let file = editable_file(layout, scope)?;
    let mut doc = read_object(&file)?;
    let servers = servers_mut(&mut doc, &file)?;
    let entry = servers
        .get_mut(name)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| file_error(format!("{} has no server `{name}`", file.display())))?;
    if disabled {
        entry.insert("disabled".into(), Value::Bool(true));
    } else {
        entry.remove("disabled");
    }
    write_object(&file, &doc)
}

/// Stores one secret value for server `name` of `scope` (the CLI's
/// `mcp secret set`): the server must exist in that file; the file is
/// changed only to add `name` to `secretEnv` / `secretHeaders` (and drop a
/// plain value of the same name) when it is not listed yet.
pub fn set_secret(
    layout: &ConfigLayout,
    scope: ConfigScope,
    server: &str,
    kind: SecretKind,
    name: &str,
    value: &str,
    secrets: &dyn SecretLookup,
) -> Result<String, EditError> {
    let file = editable_file(layout, scope)?;
    let (list_key, plain_key, check): (_, _, NameCheck) = match kind {
        SecretKind::Env => ("secretEnv", "env", check_env_name),
        SecretKind::Header => ("secretHeaders", "headers", check_header_name),
    };
    check(name).map_err(|m| field_error(plain_key, m))?;
    if value.is_empty() {
        return Err(field_error(
            "value",
            "the secret value is empty; nothing was stored",
        ));
    }
    let mut doc = read_object(&file)?;
    let servers = servers_mut(&mut doc, &file)?;
    let entry = servers
        .get_mut(server)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| {
            file_error(format!(
                "{} has no server `{server}`; add it first",
                file.display()
            ))
        })?;
    let is_http = entry.get("type").is_some_and(|t| t == "http");
    if is_http != (kind == SecretKind::Header) {
        return Err(file_error(format!(
            "server `{server}` is {}: it takes {}",
            if is_http {
                "an HTTP server"
            } else {
                "a stdio server"
            },
            if is_http { "--header" } else { "--env" }
        )));
    }
    let account = account(scope, &file, server, kind, name)?;
    secrets
        .set(&account, value)
        .map_err(|e| file_error(format!("storing `{name}` in the keychain: {e}")))?;
    let listed = names_in(entry, list_key).iter().any(|n| n == name);
    if !listed {
        let mut names = names_in(entry, list_key);
        names.push(name.to_owned());
        entry.insert(list_key.into(), json!(names));
        if let Some(plain) = entry.get_mut(plain_key).and_then(Value::as_object_mut) {
            plain.retain(|k, _| !k.eq_ignore_ascii_case(name));
            if plain.is_empty() {
                entry.remove(plain_key);
            }
        }
        write_object(&file, &doc)?;
    }
    Ok(account)
}

/// Deletes one secret value of server `name` of `scope` from the keychain
/// and its name from `secretEnv` / `secretHeaders`.
pub fn delete_secret(
    layout: &ConfigLayout,
    scope: ConfigScope,
    server: &str,
    kind: SecretKind,
    name: &str,
    secrets: &dyn SecretLookup,
) -> Result<String, EditError> {
    let file = editable_file(layout, scope)?;
    let list_key = match kind {
        SecretKind::Env => "secretEnv",
        SecretKind::Header => "secretHeaders",
    };
    let account = account(scope, &file, server, kind, name)?;
    secrets
        .delete(&account)
        .map_err(|e| file_error(format!("deleting `{name}` from the keychain: {e}")))?;
    let mut doc = read_object(&file)?;
    let servers = servers_mut(&mut doc, &file)?;
    if let Some(entry) = servers.get_mut(server).and_then(Value::as_object_mut) {
        let names = names_in(entry, list_key);
        if names.iter().any(|n| n == name) {
            let rest: Vec<&String> = names.iter().filter(|n| *n != name).collect();
            if rest.is_empty() {
                entry.remove(list_key);
            } else {
                entry.insert(list_key.into(), json!(rest));
            }
            write_object(&file, &doc)?;
        }
    }
    Ok(account)
}
