//! The `hooks` key of Claude Code's settings files:
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//!   {"type": "command", "command": "./guard.sh", "timeout": 30}]}]}}
//! ```
//!
//! Read from every settings source ([`SettingsLayout::files`]: managed
//! policy and drop-ins, `--settings` files, local, project, user). A
//! malformed entry is a [`SettingsError`] with file, line and column (like
//! a bad rule) and is not run; an unknown event name is a warning and the
//! entry is kept (listed, never run: Gatehouse does not fire it). Trust:
//! project and local hooks run only in a trusted project; an untrusted
//! project's hooks are listed with why they do not run. Managed policy's
//! `disableAllHooks` turns every hook off; `allowManagedHooksOnly` keeps
//! only the policy's own.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::bounded_read::read_text;
use gatehouse_permissions::rule::parse_rule;
use gatehouse_permissions::settings::locate::scan_depth;
use gatehouse_permissions::settings::{MAX_SETTINGS_FILE_BYTES, Position, SettingsError};
use gatehouse_permissions::sources::SettingsLayout;
use gatehouse_protocol::event::{HookEventName, HookHandlerKind, HookNotRunReason};
use gatehouse_protocol::permission::RuleSource;
use serde_json::Value;

use crate::matcher::Matcher;

/// The default per-handler timeout (Claude Code's).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest timeout accepted (an hour): a larger number is a typo.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// An event name as written: one Gatehouse fires, or one it does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookEvent {
    /// An event Gatehouse fires.
    Known(HookEventName),
    /// Any other name (Claude Code has more, e.g. `PreCompact`): kept and
    /// listed, never run.
    Unknown(String),
}

impl HookEvent {
    /// Reads an event name.
    pub fn parse(name: &str) -> Self {
        use HookEventName as E;
        let known = match name {
            "PreToolUse" => E::PreToolUse,
            "PostToolUse" => E::PostToolUse,
            "PostToolUseFailure" => E::PostToolUseFailure,
            "PermissionRequest" => E::PermissionRequest,
            "UserPromptSubmit" => E::UserPromptSubmit,
            "SessionStart" => E::SessionStart,
            "SessionEnd" => E::SessionEnd,
            "Stop" => E::Stop,
            "Notification" => E::Notification,
            other => return Self::Unknown(other.to_owned()),
        };
        Self::Known(known)
    }

    /// The name as Claude Code writes it.
    pub fn name(&self) -> String {
        match self {
            Self::Known(e) => format!("{e:?}"),
            Self::Unknown(s) => s.clone(),
        }
    }
}

/// What a handler runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handler {
    /// `{"type": "command", "command": "..."}`: `sh -c command` in the
    /// project directory; or with `args`, the program run directly (no
    /// shell): `command` is the program and `args` its arguments, or
    /// without `command`, `args[0]` is the program.
    Command {
        /// The shell command, when run through `sh -c`.
        shell: Option<String>,
        /// The program and its arguments, in the exec form.
        exec: Option<Vec<String>>,
    },
    /// `{"type": "http", "url": "...", "headers": {...}}`: a POST of the
    /// same JSON; `secretHeaders` names headers whose values come from the
    /// keychain (never written in the file).
    Http {
        /// The URL (http or https).
        url: String,
        /// Plain headers.
        headers: Vec<(String, String)>,
        /// Headers whose values are read from the keychain.
        secret_headers: Vec<String>,
    },
}

impl Handler {
    /// Command or HTTP.
    pub fn kind(&self) -> HookHandlerKind {
        match self {
            Self::Command { .. } => HookHandlerKind::Command,
            Self::Http { .. } => HookHandlerKind::Http,
        }
    }

    /// The command as written (exec form joined by spaces), or the URL.
    pub fn display(&self) -> String {
        match self {
            Self::Command { shell: Some(s), .. } => s.clone(),
            Self::Command {
                exec: Some(argv), ..
            } => argv.join(" "),
            Self::Command { .. } => String::new(),
            Self::Http { url, .. } => url.clone(),
        }
    }
}

/// One handler of one matcher group, with where it was read.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// The event it is registered for.
    pub event: HookEvent,
    /// The matcher as written.
    pub matcher: Option<String>,
    /// The matcher compiled.
    pub compiled: Arc<Matcher>,
    /// The `if` filter in permission-rule syntax (`Bash(git *)`).
    pub if_rule: Option<String>,
    /// What runs.
    pub handler: Handler,
    /// Per-handler timeout.
    pub timeout: Duration,
    /// The settings source.
    pub source: RuleSource,
    /// The settings file.
    pub file: PathBuf,
    /// Where the handler object starts in the file.
    pub position: Position,
    /// `hooks.<Event>[group].hooks[index]`.
    pub group: usize,
    /// Index in the group's `hooks` list.
    pub index: usize,
    /// `false`: the editor's disable switch (`"disabled": true`,
    /// a Gatehouse key Claude Code ignores).
    pub enabled: bool,
}

impl HookSpec {
    /// The name used in events and traces: "`./guard.sh` (project settings)".
    pub fn label(&self) -> String {
        format!(
            "`{}` ({})",
            self.handler.display(),
            source_words(self.source)
        )
    }
}

/// "project settings", "managed policy", … for messages.
pub fn source_words(source: RuleSource) -> &'static str {
    match source {
        RuleSource::Policy => "managed policy",
        RuleSource::Flag => "--settings file",
        RuleSource::Local => "local project settings",
        RuleSource::Project => "project settings",
        RuleSource::User => "user settings",
        RuleSource::Session => "session",
        RuleSource::Skill => "skill",
    }
}

/// The hooks of one settings file.
#[derive(Debug, Clone, Default)]
pub struct ParsedHooks {
    /// Every handler that parsed (unknown events included).
    pub hooks: Vec<HookSpec>,
    /// Malformed entries: not run, never silently dropped.
    pub errors: Vec<SettingsError>,
    /// Unknown event names (kept, listed, not run).
    pub warnings: Vec<SettingsError>,
    /// `disableAllHooks: true`.
    pub disable_all: bool,
    /// `allowManagedHooksOnly: true`.
    pub managed_only: bool,
}

/// Parses the `hooks` of the settings file at `path` (of `source`). Text
/// that is not JSON is left to the permission engine's reader, which
/// reports it; here it yields nothing.
pub fn parse_hooks(path: &Path, source: RuleSource, text: &str) -> ParsedHooks {
    let mut out = ParsedHooks::default();
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(text) else {
        return out;
    };
    out.disable_all = root.get("disableAllHooks").and_then(Value::as_bool) == Some(true);
    out.managed_only = root.get("allowManagedHooksOnly").and_then(Value::as_bool) == Some(true);
    let Some(hooks) = root.get("hooks") else {
        return out;
    };
    let spans = scan_depth(text, 6);
    let root_pos = Position { line: 1, column: 1 };
    let at = |path: &[&str], fallback: Position| spans.position(path).unwrap_or(fallback);
    let error = |position: Position, cause: String| SettingsError {
        file: path.to_path_buf(),
        line: position.line,
        column: position.column,
        cause,
        loses_restrictions: false,
    };
    let hooks_pos = at(&["hooks"], root_pos);
    let Value::Object(events) = hooks else {
        out.errors.push(error(
            hooks_pos,
            "`hooks` must be an object of event names, each a list of matcher groups".into(),
        ));
        return out;
    };
    for (event_name, groups) in events {
        let event = HookEvent::parse(event_name);
        let event_pos = at(&["hooks", event_name], hooks_pos);
        if let HookEvent::Unknown(name) = &event {
            out.warnings.push(error(
                event_pos,
                format!("unknown hook event `{name}`: kept, but Gatehouse never fires it"),
            ));
        }
        let Value::Array(groups) = groups else {
            out.errors.push(error(
                event_pos,
                format!("`hooks.{event_name}` must be a list of matcher groups"),
            ));
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let gs = g.to_string();
            let group_pos = at(&["hooks", event_name, &gs], event_pos);
            let Value::Object(group) = group else {
                out.errors.push(error(
                    group_pos,
                    format!(
                        "`hooks.{event_name}[{g}]` must be an object with `matcher` and `hooks`"
                    ),
                ));
                continue;
            };
            let matcher = match group.get("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(m)) => Some(m.clone()),
                Some(other) => {
                    out.errors.push(error(
                        at(&["hooks", event_name, &gs, "matcher"], group_pos),
                        format!("`hooks.{event_name}[{g}].matcher` must be a string, not {other}"),
                    ));
                    continue;
                }
            };
            let compiled = match Matcher::compile(matcher.as_deref()) {
                Ok(m) => Arc::new(m),
                Err(e) => {
                    out.errors.push(error(
                        at(&["hooks", event_name, &gs, "matcher"], group_pos),
                        format!("`hooks.{event_name}[{g}]`: {e}"),
                    ));
                    continue;
                }
            };
            let list_pos = at(&["hooks", event_name, &gs, "hooks"], group_pos);
            let Some(Value::Array(handlers)) = group.get("hooks") else {
                out.errors.push(error(
                    list_pos,
                    format!("`hooks.{event_name}[{g}].hooks` must be a list of hook handlers"),
                ));
                continue;
            };
            for (i, h) in handlers.iter().enumerate() {
                let is = i.to_string();
                let pos = at(&["hooks", event_name, &gs, "hooks", &is], list_pos);
                let key_pos = |key: &str| at(&["hooks", event_name, &gs, "hooks", &is, key], pos);
                let here = format!("`hooks.{event_name}[{g}].hooks[{i}]`");
                match parse_handler(h, &here) {
                    Ok((
                        Handler::Command {
                            shell: Some(command),
                            ..
                        },
                        ..,
                    )) if crate::guard_entry::guard_event_of(&command).is_some() => {
                        out.warnings.push(error(
                            pos,
                            format!(
                                "{here} is Gatehouse's own Claude Code guard entry: Claude Code runs it, Gatehouse sessions do not"
                            ),
                        ));
                    }
                    Ok((handler, timeout, if_rule, enabled)) => out.hooks.push(HookSpec {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        compiled: Arc::clone(&compiled),
                        if_rule,
                        handler,
                        timeout,
                        source,
                        file: path.to_path_buf(),
                        position: pos,
                        group: g,
                        index: i,
                        enabled,
                    }),
                    Err((key, cause)) => out.errors.push(error(key.map_or(pos, key_pos), cause)),
                }
            }
        }
    }
    out
}

type HandlerParts = (Handler, Duration, Option<String>, bool);

/// One handler object; the error names the key at fault (for its position).
fn parse_handler(h: &Value, here: &str) -> Result<HandlerParts, (Option<&'static str>, String)> {
    let Value::Object(h) = h else {
        return Err((None, format!("{here} must be an object with `type`")));
    };
    let string = |key: &'static str| -> Result<Option<String>, (Option<&'static str>, String)> {
        match h.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err((
                Some(key),
                format!("{here}.{key} must be a string, not {other}"),
            )),
        }
    };
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs > 0.0 && secs <= MAX_TIMEOUT.as_secs_f64() => {
                Duration::from_secs_f64(secs)
            }
            _ => {
                return Err((
                    Some("timeout"),
                    format!(
                        "{here}.timeout must be a number of seconds above 0 and at most 3600, not {n}"
                    ),
                ));
            }
        },
        Some(other) => {
            return Err((
                Some("timeout"),
                format!("{here}.timeout must be a number of seconds, not {other}"),
            ));
        }
    };
    let if_rule = string("if")?;
    if let Some(rule) = &if_rule
        && let Err(e) = parse_rule(rule)
    {
        return Err((
            Some("if"),
            format!("{here}.if `{rule}` is not a permission rule: {}", e.message),
        ));
    }
    let enabled = h.get("disabled").and_then(Value::as_bool) != Some(true);
    let kind = string("type")?;
    let handler = match kind.as_deref() {
        Some("command") => {
            let shell = string("command")?;
            let exec = match h.get("args") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) if items.iter().all(Value::is_string) => Some(
                    items
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect::<Vec<_>>(),
                ),
                Some(other) => {
                    return Err((
                        Some("args"),
                        format!("{here}.args must be a list of strings, not {other}"),
                    ));
                }
            };
            match (shell, exec) {
                (Some(c), None) if !c.trim().is_empty() => Handler::Command {
                    shell: Some(c),
                    exec: None,
                },
                (Some(program), Some(args)) if !program.trim().is_empty() => {
                    let mut argv = vec![program];
                    argv.extend(args);
                    Handler::Command {
                        shell: None,
                        exec: Some(argv),
                    }
                }
                (None, Some(argv)) if argv.first().is_some_and(|p| !p.is_empty()) => {
                    Handler::Command {
                        shell: None,
                        exec: Some(argv),
                    }
                }
                _ => {
                    return Err((
                        Some("command"),
                        format!(
                            "{here} is a command hook without a command (give `command`, or `args` with the program first)"
                        ),
                    ));
                }
            }
        }
        Some("http") => {
            let Some(url) = string("url")? else {
                return Err((None, format!("{here} is an http hook without a `url`")));
            };
            if !(url.starts_with("http://") || url.starts_with("https://"))
                || reqwest::Url::parse(&url).is_err()
            {
                return Err((
                    Some("url"),
                    format!("{here}.url `{url}` is not an http(s) URL"),
                ));
            }
            let headers = match h.get("headers") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(map)) if map.values().all(Value::is_string) => map
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect(),
                Some(_) => {
                    return Err((
                        Some("headers"),
                        format!("{here}.headers must be an object of string values"),
                    ));
                }
            };
            let secret_headers = match h.get("secretHeaders") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                Some(_) => {
                    return Err((
                        Some("secretHeaders"),
                        format!("{here}.secretHeaders must be a list of header names"),
                    ));
                }
            };
            Handler::Http {
                url,
                headers,
                secret_headers,
            }
        }
        Some(other) => {
            return Err((
                Some("type"),
                format!(
                    "{here}.type `{other}` is not supported by Gatehouse (it runs `command` and `http` hooks)"
                ),
            ));
        }
        None => {
            return Err((
                None,
                format!("{here} has no `type` (expected \"command\" or \"http\")"),
            ));
        }
    };
    Ok((handler, timeout, if_rule, enabled))
}

/// A hook that was read but does not run, and why.
#[derive(Debug, Clone)]
pub struct IgnoredHook {
    /// The hook.
    pub hook: HookSpec,
    /// Why it does not run.
    pub why: String,
    /// Why it does not run, typed (for front ends).
    pub reason: HookNotRunReason,
}

/// The hooks of every source, merged.
#[derive(Debug, Clone, Default)]
pub struct LoadedHooks {
    /// Hooks that run, highest-precedence source first, file order kept.
    pub active: Vec<HookSpec>,
    /// Hooks read but not run (untrusted project, managed-only, disabled,
    /// unknown event).
    pub ignored: Vec<IgnoredHook>,
    /// Malformed entries, with file, line and column.
    pub errors: Vec<SettingsError>,
    /// Unknown event names.
    pub warnings: Vec<SettingsError>,
}

impl LoadedHooks {
    /// Active hooks of `event`.
    pub fn of(&self, event: HookEventName) -> impl Iterator<Item = &HookSpec> {
        self.active
            .iter()
            .filter(move |h| h.event == HookEvent::Known(event))
    }

    /// True when no hook runs at all.
    pub fn is_empty(&self) -> bool {
        self.active.is_empty()
    }
}

/// Reads the hooks of every settings file of `layout`, applying trust and
/// managed policy.
pub fn load_hooks(layout: &SettingsLayout) -> LoadedHooks {
    let mut parsed = Vec::new();
    for file in layout.files() {
        // A file that cannot be read is reported by the permission
        // engine's reader; its hooks are simply not there.
        let Ok(Some(text)) = read_text(&file.path, MAX_SETTINGS_FILE_BYTES) else {
            continue;
        };
        parsed.push((file.source, parse_hooks(&file.path, file.source, &text)));
    }
    merge(layout.project_trusted, parsed)
}

/// Merges parsed files (highest precedence first) under the trust and
/// policy rules.
pub fn merge(project_trusted: bool, parsed: Vec<(RuleSource, ParsedHooks)>) -> LoadedHooks {
    let policy =
        |f: fn(&ParsedHooks) -> bool| parsed.iter().any(|(s, p)| *s == RuleSource::Policy && f(p));
    let disable_all = policy(|p| p.disable_all);
    let managed_only = policy(|p| p.managed_only);
    // A user's own `disableAllHooks` turns off the non-policy hooks.
    let disable_own = parsed
        .iter()
        .any(|(s, p)| *s != RuleSource::Policy && p.disable_all);
    let mut out = LoadedHooks::default();
    for (source, p) in parsed {
        out.errors.extend(p.errors);
        out.warnings.extend(p.warnings);
        for hook in p.hooks {
            let why = if disable_all {
                Some((
                    HookNotRunReason::PolicyDisablesAll,
                    "managed policy sets `disableAllHooks`".to_owned(),
                ))
            } else if managed_only && source != RuleSource::Policy {
                Some((
                    HookNotRunReason::ManagedHooksOnly,
                    "managed policy sets `allowManagedHooksOnly`: only its own hooks run"
                        .to_owned(),
                ))
            } else if disable_own && source != RuleSource::Policy {
                Some((
                    HookNotRunReason::DisabledBySettings,
                    "`disableAllHooks` is set in the settings".to_owned(),
                ))
            } else if matches!(source, RuleSource::Project | RuleSource::Local) && !project_trusted
            {
                Some((
                    HookNotRunReason::Untrusted,
                    "the project is not trusted: its hooks are listed, not run".to_owned(),
                ))
            } else if !hook.enabled {
                Some((
                    HookNotRunReason::Disabled,
                    "disabled (`\"disabled\": true`)".to_owned(),
                ))
            } else if let HookEvent::Unknown(name) = &hook.event {
                Some((
                    HookNotRunReason::UnknownEvent,
                    format!("Gatehouse does not fire the event `{name}`"),
                ))
            } else {
                None
            };
            match why {
                Some((reason, why)) => out.ignored.push(IgnoredHook { hook, why, reason }),
                None => out.active.push(hook),
            }
        }
    }
    out
}
