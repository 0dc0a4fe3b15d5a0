//! Claude Code's `sandbox` settings key, read from each settings file and
//! merged.
//!
//! Read: `sandbox.enabled`, `sandbox.autoAllowBashIfSandboxed`,
//! `sandbox.excludedCommands`, `sandbox.filesystem.allowWrite`,
//! `sandbox.filesystem.denyRead` and `sandbox.network.allowedDomains`
//! (WebFetch's domain patterns: `example.com`, `*.example.com`). Other keys
//! under `sandbox` (Claude Code's `network.allowUnixSockets`,
//! `network.httpProxyPort`, …) are not implemented: they are listed in
//! [`SandboxSettings::unsupported`] for a warning, and never widen anything.
//!
//! Merging follows the sources' precedence (highest first), except that
//! nothing loosens what the managed policy tightens, and a project the user
//! has not trusted may only tighten: it can turn the sandbox on and hide
//! paths, never turn it off, auto-allow, exclude commands, add writable
//! roots or allow domains.

use std::path::{Path, PathBuf};

use gatehouse_permissions::domain::DomainPattern;
use serde_json::Value;

/// A `sandbox` key of the wrong shape: which setting and what it must be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{setting}` {expected}")]
pub struct SettingsShapeError {
    /// The setting's dotted name (`sandbox.filesystem.allowWrite`).
    pub setting: String,
    /// What it must be.
    pub expected: String,
}

/// The `sandbox` key of one settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `sandbox.enabled`.
    pub enabled: Option<bool>,
    /// `sandbox.autoAllowBashIfSandboxed`.
    pub auto_allow: Option<bool>,
    /// `sandbox.excludedCommands`.
    pub excluded_commands: Vec<String>,
    /// `sandbox.filesystem.allowWrite`, as written.
    pub allow_write: Vec<String>,
    /// `sandbox.filesystem.denyRead`, as written.
    pub deny_read: Vec<String>,
    /// `sandbox.network.allowedDomains`, parsed.
    pub allowed_domains: Vec<DomainPattern>,
    /// Keys under `sandbox` Gatehouse does not implement, dotted
    /// (`sandbox.network.allowUnixSockets`), in file order: ignored, so
    /// the sandbox stays as tight as without them.
    pub unsupported: Vec<String>,
}

/// The keys read under `sandbox`, `sandbox.filesystem` and `sandbox.network`.
const KNOWN: &[(&str, &[&str])] = &[
    (
        "sandbox",
        &[
            "enabled",
            "autoAllowBashIfSandboxed",
            "excludedCommands",
            "filesystem",
            "network",
        ],
    ),
    ("sandbox.filesystem", &["allowWrite", "denyRead"]),
    ("sandbox.network", &["allowedDomains"]),
];

/// The keys of `map` (at `at`) that are not read, dotted.
fn unsupported_keys(at: &str, map: &serde_json::Map<String, Value>, out: &mut Vec<String>) {
    let known = KNOWN
        .iter()
        .find(|(k, _)| *k == at)
        .map_or(&[][..], |(_, keys)| *keys);
    out.extend(
        map.keys()
            .filter(|k| !known.contains(&k.as_str()))
            .map(|k| format!("{at}.{k}")),
    );
}

impl SandboxSettings {
    /// Reads the `sandbox` key of a whole settings document (`None` when
    /// it has none).
    pub fn from_document(doc: &Value) -> Result<Option<Self>, SettingsShapeError> {
        match doc.get("sandbox") {
            None => Ok(None),
            Some(v) => Self::from_value(v).map(Some),
        }
    }

    /// Reads a `sandbox` value.
    pub fn from_value(value: &Value) -> Result<Self, SettingsShapeError> {
        let Value::Object(map) = value else {
            return Err(shape("sandbox", "must be an object"));
        };
        let mut out = Self {
            enabled: bool_at(map.get("enabled"), "sandbox.enabled")?,
            auto_allow: bool_at(
                map.get("autoAllowBashIfSandboxed"),
                "sandbox.autoAllowBashIfSandboxed",
            )?,
            excluded_commands: strings_at(map.get("excludedCommands"), "sandbox.excludedCommands")?,
            ..Self::default()
        };
        unsupported_keys("sandbox", map, &mut out.unsupported);
        match map.get("filesystem") {
            None => {}
            Some(Value::Object(fs)) => {
                unsupported_keys("sandbox.filesystem", fs, &mut out.unsupported);
                out.allow_write =
                    strings_at(fs.get("allowWrite"), "sandbox.filesystem.allowWrite")?;
                out.deny_read = strings_at(fs.get("denyRead"), "sandbox.filesystem.denyRead")?;
            }
            Some(_) => return Err(shape("sandbox.filesystem", "must be an object")),
        }
        match map.get("network") {
            None => {}
            Some(Value::Object(net)) => {
                unsupported_keys("sandbox.network", net, &mut out.unsupported);
                const KEY: &str = "sandbox.network.allowedDomains";
                for text in strings_at(net.get("allowedDomains"), KEY)? {
                    let pattern = DomainPattern::parse(text.trim()).map_err(|e| {
                        shape(
                            KEY,
                            &format!(
                                "has `{text}`, which is not a domain pattern ({e}); write `example.com` or `*.example.com`"
                            ),
                        )
                    })?;
                    out.allowed_domains.push(pattern);
                }
            }
            Some(_) => return Err(shape("sandbox.network", "must be an object")),
        }
        Ok(out)
    }
}

fn shape(setting: &str, expected: &str) -> SettingsShapeError {
    SettingsShapeError {
        setting: setting.into(),
        expected: expected.into(),
    }
}

fn bool_at(v: Option<&Value>, setting: &str) -> Result<Option<bool>, SettingsShapeError> {
    match v {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(shape(setting, "must be true or false")),
    }
}

fn strings_at(v: Option<&Value>, setting: &str) -> Result<Vec<String>, SettingsShapeError> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| shape(setting, "must be an array of strings")),
        Some(_) => Err(shape(setting, "must be an array of strings")),
    }
}

/// Where a settings file's `sandbox` key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsLayer {
    /// The managed policy: what it turns on cannot be turned off.
    Managed,
    /// A file the user stands behind (user settings, command-line files, a
    /// trusted project's files).
    Trusted,
    /// A project's files before the user trusts it: may only tighten.
    Untrusted,
}

/// The merged sandbox configuration of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Commands run in the sandbox.
    pub enabled: bool,
    /// The managed policy turned it on (nothing may turn it off).
    pub forced: bool,
    /// Sandboxed commands that would only ask run without asking.
    pub auto_allow: bool,
    /// Commands run outside the sandbox (the normal permission flow):
    /// a command matches an entry equal to it or starting with the entry
    /// and a space (`docker` matches `docker ps`).
    pub excluded_commands: Vec<String>,
    /// Extra writable roots, resolved.
    pub allow_write: Vec<PathBuf>,
    /// Extra hidden paths, resolved.
    pub deny_read: Vec<PathBuf>,
    /// Hosts reachable through the proxy (empty: no network).
    pub allowed_domains: Vec<DomainPattern>,
    /// Which of the merged layers each value came from.
    pub origin: SandboxOrigin,
}

/// Where each value of a [`SandboxConfig`] came from: indices into the
/// layers given to [`SandboxConfig::merge`] (Settings shows the file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxOrigin {
    /// The layer that decided `enabled` (`None`: the default, off).
    pub enabled: Option<usize>,
    /// The layer that decided `auto_allow` (`None`: the default, off).
    pub auto_allow: Option<usize>,
    /// One per `excluded_commands` entry.
    pub excluded_commands: Vec<usize>,
    /// One per `allow_write` entry.
    pub allow_write: Vec<usize>,
    /// One per `deny_read` entry.
    pub deny_read: Vec<usize>,
    /// One per `allowed_domains` entry.
    pub allowed_domains: Vec<usize>,
}

impl SandboxConfig {
    /// Merges `layers`, highest precedence first. Relative paths are taken
    /// from `project`, `~/` from `home`.
    pub fn merge(layers: &[(SettingsLayer, SandboxSettings)], project: &Path, home: &Path) -> Self {
        let mut out = Self::default();
        let mut enabled: Option<(bool, usize)> = None;
        let mut auto_allow: Option<(bool, usize)> = None;
        let mut forced_by: Option<usize> = None;
        let mut project_on: Option<usize> = None;
        for (i, (layer, s)) in layers.iter().enumerate() {
            let first = |current: Option<(bool, usize)>, value: Option<bool>| {
                current.or(value.map(|v| (v, i)))
            };
            match layer {
                SettingsLayer::Managed => {
                    if s.enabled == Some(true) {
                        forced_by = forced_by.or(Some(i));
                    }
                    enabled = first(enabled, s.enabled);
                    auto_allow = first(auto_allow, s.auto_allow);
                }
                SettingsLayer::Trusted => {
                    enabled = first(enabled, s.enabled);
                    auto_allow = first(auto_allow, s.auto_allow);
                }
                SettingsLayer::Untrusted => {
                    if s.enabled == Some(true) {
                        project_on = project_on.or(Some(i));
                    }
                }
            }
            if *layer != SettingsLayer::Untrusted {
                for c in &s.excluded_commands {
                    out.excluded_commands.push(c.clone());
                    out.origin.excluded_commands.push(i);
                }
                for p in &s.allow_write {
                    out.allow_write.push(resolve(p, project, home));
                    out.origin.allow_write.push(i);
                }
                for d in &s.allowed_domains {
                    if !out.allowed_domains.contains(d) {
                        out.allowed_domains.push(d.clone());
                        out.origin.allowed_domains.push(i);
                    }
                }
            }
            for p in &s.deny_read {
                out.deny_read.push(resolve(p, project, home));
                out.origin.deny_read.push(i);
            }
        }
        out.forced = forced_by.is_some();
        // What turns it on wins: the managed policy, then an untrusted
        // project (which may only tighten), then the first that says.
        let on_by = forced_by.or(project_on);
        out.enabled = on_by.is_some() || enabled.is_some_and(|(v, _)| v);
        out.origin.enabled = on_by.or(enabled.map(|(_, i)| i));
        out.auto_allow = auto_allow.is_some_and(|(v, _)| v);
        out.origin.auto_allow = auto_allow.map(|(_, i)| i);
        out
    }

    /// Whether `command` is one of `excludedCommands`.
    pub fn is_excluded(&self, command: &str) -> bool {
        let command = command.trim();
        self.excluded_commands.iter().any(|e| {
            let e = e.trim().trim_end_matches(":*").trim_end_matches('*').trim();
            !e.is_empty()
                && (command == e
                    || command
                        .strip_prefix(e)
                        .is_some_and(|rest| rest.starts_with(' ')))
        })
    }
}

fn resolve(path: &str, project: &Path, home: &Path) -> PathBuf {
    if path == "~" {
        home.to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home.join(rest)
    } else {
        project.join(path)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wrong_shapes_name_the_setting() {
        let cases = [
            (json!({"sandbox": true}), "`sandbox` must be an object"),
            (
                json!({"sandbox": {"enabled": "yes"}}),
                "`sandbox.enabled` must be true or false",
            ),
            (
                json!({"sandbox": {"excludedCommands": "docker"}}),
                "`sandbox.excludedCommands` must be an array of strings",
            ),
            (
                json!({"sandbox": {"filesystem": {"allowWrite": [1]}}}),
                "`sandbox.filesystem.allowWrite` must be an array of strings",
            ),
            (
                json!({"sandbox": {"network": {"allowedDomains": ["ok.test", "https://x.test/"]}}}),
                "`sandbox.network.allowedDomains` has `https://x.test/`, which is not a domain pattern (`https://x.test/` is not a domain (write a host such as `example.com` or `*.example.com`)); write `example.com` or `*.example.com`",
            ),
            (
                json!({"sandbox": {"network": {"allowedDomains": ["a.*.test"]}}}),
                "`sandbox.network.allowedDomains` has `a.*.test`, which is not a domain pattern (`a.*.test` is not a domain (write a host such as `example.com` or `*.example.com`)); write `example.com` or `*.example.com`",
            ),
            (
                json!({"sandbox": {"network": ["x.test"]}}),
                "`sandbox.network` must be an object",
            ),
        ];
        for (doc, message) in cases {
            let err = SandboxSettings::from_document(&doc).unwrap_err();
            assert_eq!(err.to_string(), message);
        }
        assert_eq!(SandboxSettings::from_document(&json!({})).unwrap(), None);
    }

    #[test]
    fn an_untrusted_project_only_tightens() {
        let project = SandboxSettings {
            enabled: Some(true),
            auto_allow: Some(true),
            excluded_commands: vec!["curl".into()],
            allow_write: vec!["/".into()],
            deny_read: vec!["secrets".into()],
            allowed_domains: vec![DomainPattern::parse("evil.test").unwrap()],
            unsupported: Vec::new(),
        };
        let user = SandboxSettings {
            enabled: Some(false),
            ..SandboxSettings::default()
        };
        let c = SandboxConfig::merge(
            &[
                (SettingsLayer::Untrusted, project),
                (SettingsLayer::Trusted, user),
            ],
            Path::new("/p"),
            Path::new("/h"),
        );
        assert!(c.enabled);
        assert!(!c.auto_allow);
        assert!(c.excluded_commands.is_empty() && c.allow_write.is_empty());
        assert!(c.allowed_domains.is_empty());
        assert_eq!(c.deny_read, vec![PathBuf::from("/p/secrets")]);
    }

    #[test]
    fn precedence_and_the_managed_policy() {
        let on = SandboxSettings {
            enabled: Some(true),
            ..SandboxSettings::default()
        };
        let off = SandboxSettings {
            enabled: Some(false),
            ..SandboxSettings::default()
        };
        let p = Path::new("/p");
        let h = Path::new("/h");
        // Local (first) beats user.
        let c = SandboxConfig::merge(
            &[
                (SettingsLayer::Trusted, off.clone()),
                (SettingsLayer::Trusted, on.clone()),
            ],
            p,
            h,
        );
        assert!(!c.enabled);
        let c = SandboxConfig::merge(
            &[(SettingsLayer::Managed, on), (SettingsLayer::Trusted, off)],
            p,
            h,
        );
        assert!(c.enabled && c.forced);
        assert!(!SandboxConfig::merge(&[], p, h).enabled);
    }

    #[test]
    fn allowed_domains_are_read_and_merged() {
        let doc = json!({"sandbox": {"network": {"allowedDomains": ["Docs.rs", "*.crates.io"]}}});
        let s = SandboxSettings::from_document(&doc).unwrap().unwrap();
        let hosts: Vec<_> = s
            .allowed_domains
            .iter()
            .map(|d| (d.host.as_str(), d.subdomains))
            .collect();
        assert_eq!(hosts, [("docs.rs", false), ("crates.io", true)]);
        let c = SandboxConfig::merge(
            &[
                (SettingsLayer::Managed, s.clone()),
                (SettingsLayer::Trusted, s),
            ],
            Path::new("/p"),
            Path::new("/h"),
        );
        assert_eq!(c.allowed_domains.len(), 2);
    }

    #[test]
    fn unsupported_keys_are_listed_and_nothing_widens() {
        let doc = json!({"sandbox": {
            "enabled": true,
            "allowUnsandboxedCommands": false,
            "filesystem": {"allowWrite": ["out"], "allowRead": ["~"]},
            "network": {"allowedDomains": ["docs.rs"], "allowUnixSockets": ["/run/docker.sock"],
                        "allowLocalBinding": true, "httpProxyPort": 8080, "socksProxyPort": 1080}
        }});
        let s = SandboxSettings::from_document(&doc).unwrap().unwrap();
        let mut keys = s.unsupported.clone();
        keys.sort();
        assert_eq!(
            keys,
            [
                "sandbox.allowUnsandboxedCommands",
                "sandbox.filesystem.allowRead",
                "sandbox.network.allowLocalBinding",
                "sandbox.network.allowUnixSockets",
                "sandbox.network.httpProxyPort",
                "sandbox.network.socksProxyPort",
            ]
        );
        // What is read is read as without them.
        assert_eq!(s.allow_write, ["out"]);
        assert_eq!(s.allowed_domains.len(), 1);
    }

    #[test]
    fn each_value_knows_the_layer_it_came_from() {
        let managed = SandboxSettings {
            deny_read: vec!["~/.kube".into()],
            ..SandboxSettings::default()
        };
        let project = SandboxSettings {
            enabled: Some(true),
            excluded_commands: vec!["curl".into()],
            ..SandboxSettings::default()
        };
        let user = SandboxSettings {
            enabled: Some(false),
            auto_allow: Some(true),
            excluded_commands: vec!["docker".into()],
            allowed_domains: vec![DomainPattern::parse("docs.rs").unwrap()],
            ..SandboxSettings::default()
        };
        let c = SandboxConfig::merge(
            &[
                (SettingsLayer::Managed, managed),
                (SettingsLayer::Untrusted, project),
                (SettingsLayer::Trusted, user),
            ],
            Path::new("/p"),
            Path::new("/h"),
        );
        // The untrusted project turned it on (the user's `false` cannot).
        assert!(c.enabled);
        assert_eq!(c.origin.enabled, Some(1));
        assert_eq!(c.origin.auto_allow, Some(2));
        assert_eq!(c.excluded_commands, ["docker"]);
        assert_eq!(c.origin.excluded_commands, [2]);
        assert_eq!(c.origin.allowed_domains, [2]);
        assert_eq!(c.deny_read, [PathBuf::from("/h/.kube")]);
        assert_eq!(c.origin.deny_read, [0]);
        let off = SandboxConfig::merge(&[], Path::new("/p"), Path::new("/h"));
        assert_eq!((off.enabled, off.origin.enabled), (false, None));
    }

    #[test]
    fn excluded_commands_match_whole_words() {
        let c = SandboxConfig {
            excluded_commands: vec!["docker".into(), "git push:*".into()],
            ..SandboxConfig::default()
        };
        assert!(c.is_excluded("docker ps"));
        assert!(c.is_excluded("docker"));
        assert!(c.is_excluded("git push origin"));
        assert!(!c.is_excluded("dockerd"));
        assert!(!c.is_excluded("git pull"));
    }
}
