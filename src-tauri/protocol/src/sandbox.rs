//! The Bash sandbox's state (issue 24 items 3 and 4): why it cannot run
//! here and how to fix it, and the settings in force with the file each
//! came from. The UI reads these typed fields, never a sentence.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::event::SettingsProblem;

/// Why the sandbox cannot run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SandboxUnavailableReason {
    /// No `bwrap` executable on `PATH`.
    BwrapMissing,
    /// bwrap ran but could not create its namespaces, and a kernel setting
    /// (sysctl) read on this machine forbids unprivileged user namespaces.
    UserNamespacesDisabled,
    /// bwrap ran and failed for another reason (its stderr is the detail).
    BwrapFailed,
    /// bwrap could not be started, or did not finish within the probe's time.
    BwrapNotStarted,
    /// The seccomp filter or the network proxy cannot be set up here.
    SetupFailed,
}

/// What the user can do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SandboxFix {
    /// Install a package (`bubblewrap`).
    InstallPackage {
        /// The package's name (Debian, Ubuntu, Fedora and Arch agree).
        package: String,
    },
    /// Set a kernel setting (`sysctl -w key=value`, and in
    /// `/etc/sysctl.d/` to keep it).
    Sysctl {
        /// The setting (`kernel.apparmor_restrict_unprivileged_userns`).
        key: String,
        /// The value that allows bwrap.
        value: String,
        /// What it reads now.
        current: String,
    },
}

/// The sandbox is enabled but cannot run here: commands run unconfined
/// and ask as usual (nothing is auto-allowed as if confined).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxUnavailable {
    /// Why.
    pub reason: SandboxUnavailableReason,
    /// Details for people: bwrap's path, status and stderr (bounded).
    pub detail: String,
    /// How to fix it, when known.
    pub fix: Option<SandboxFix>,
}

/// What a session's sandbox is, after its settings files were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionSandboxState {
    /// `sandbox.enabled` is not set: commands run as before.
    Off,
    /// Commands run inside bubblewrap.
    On,
    /// Enabled, but it cannot run here (a `sandbox_unavailable` event says
    /// why).
    Unavailable,
}

/// A yes/no setting in force and the file it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxFlag {
    /// Its value.
    pub value: bool,
    /// The settings file that set it; `None`: the default.
    pub file: Option<String>,
}

/// One entry of a list setting in force and the file it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxEntry {
    /// The entry (a command prefix, a resolved path, a domain pattern).
    pub value: String,
    /// The settings file it is in.
    pub file: String,
}

/// The `sandbox` settings in force, merged by trust (an untrusted
/// project only tightens; the managed policy can force the sandbox on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxEffectiveSettings {
    /// `sandbox.enabled`.
    pub enabled: SandboxFlag,
    /// The managed policy turned it on (nothing may turn it off).
    pub forced: bool,
    /// `sandbox.autoAllowBashIfSandboxed`.
    pub auto_allow: SandboxFlag,
    /// `sandbox.excludedCommands`.
    pub excluded_commands: Vec<SandboxEntry>,
    /// `sandbox.filesystem.allowWrite`, resolved.
    pub allow_write: Vec<SandboxEntry>,
    /// `sandbox.filesystem.denyRead`, resolved.
    pub deny_read: Vec<SandboxEntry>,
    /// `sandbox.network.allowedDomains`, normalised.
    pub allowed_domains: Vec<SandboxEntry>,
}

/// Settings → Sandbox: whether bubblewrap can run here (probed by running
/// it once; cached until asked to check again), and the settings in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxState {
    /// `None`: a sandbox runs here. Otherwise why not and how to fix it.
    pub unavailable: Option<SandboxUnavailable>,
    /// The bwrap executable found on `PATH`.
    pub bwrap: Option<String>,
    /// What `bwrap --version` says (`bubblewrap 0.8.0`).
    pub bwrap_version: Option<String>,
    /// The project whose files were read (`None`: user and managed only).
    pub project: Option<String>,
    /// The settings in force.
    pub settings: SandboxEffectiveSettings,
    /// Problems in the `sandbox` keys (wrong shapes, unsupported keys),
    /// with file, line and column.
    pub problems: Vec<SettingsProblem>,
}

/// `sandbox_state`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxStateArgs {
    /// Also read this project's files (a known project's id; trusted or
    /// not as the app records it); `None`: user and managed settings only.
    #[serde(default)]
    pub project_id: Option<i64>,
    /// Run bwrap again instead of using the cached probe.
    #[serde(default)]
    pub recheck: bool,
}
