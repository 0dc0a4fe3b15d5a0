//! `cargo xtask bundle`: the `.deb` and `.rpm` packages, made by Tauri's
//! bundler.
//!
//! The bundler is the prebuilt `@tauri-apps/cli` (the `tauri` command in
//! `ui/node_modules/.bin`, pinned in `ui/package-lock.json` at the Tauri
//! version of `Cargo.lock`), which `npm ci` installs in seconds; see
//! docs/ARCHITECTURE.md for why not `cargo install tauri-cli` or the
//! `tauri-bundler` crate. The app itself is still built by plain cargo (the
//! `custom-protocol` feature embeds ui/dist); the bundler only packs it
//! (`tauri bundle`, never `tauri build`).
//!
//! What the bundle step adds to what tauri.conf.json says:
//! * the binaries are stripped copies in a staging target directory, as
//!   Debian's `dh_strip` would (cargo's own outputs keep their symbols);
//! * `productName` is `gatehouse` for the bundler only, so the package, its
//!   desktop entry and its doc folder follow Debian's lower-case names
//!   (`gatehouse_0.1.0_amd64.deb`, `/usr/share/applications/gatehouse.desktop`);
//!   the window's title and the desktop entry's `Name` stay "Gatehouse";
//! * `gatehouse-cli` and `gatehouse-sandbox-exec` (started inside the Bash
//!   sandbox) beside the app in `/usr/bin`, the copyright file and a
//!   Debian changelog carrying the version of Cargo.toml.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, bail};

use crate::deps;
use crate::process::run_checked;
use crate::run::{self, Profile};

/// The Debian/RPM package name.
pub(crate) const PACKAGE: &str = "gatehouse";

/// The version of every workspace crate (xtask's is the workspace's, as is
/// the app's: `version.workspace = true`).
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Who the package's `Maintainer` and changelog name.
const MAINTAINER: &str = "The Gatehouse developers <gatehouse@example.invalid>";

/// The packages one bundle run made.
#[derive(Debug)]
pub(crate) struct Packages {
    /// The `.deb`.
    pub(crate) deb: PathBuf,
    /// The `.rpm`, when asked for.
    pub(crate) rpm: Option<PathBuf>,
}

/// `cargo xtask bundle`: builds the release packages and prints where they are.
pub(crate) fn bundle(debug: bool) -> anyhow::Result<ExitCode> {
    let root = crate::root();
    let profile = if debug {
        Profile::Debug
    } else {
        Profile::Release
    };
    run::build_ui(&root)?;
    let packages = build_packages(&root, profile, true)?;
    for path in std::iter::once(&packages.deb).chain(packages.rpm.as_ref()) {
        let size = std::fs::metadata(path)
            .with_context(|| format!("reading {}", path.display()))?
            .len();
        println!("{} ({:.1} MB)", path.display(), size as f64 / 1e6);
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds the binaries (`profile`; the UI must be built: see
/// [`run::build_ui`]), then the `.deb` (and the `.rpm` when `rpm`) from
/// stripped copies of them.
pub(crate) fn build_packages(root: &Path, profile: Profile, rpm: bool) -> anyhow::Result<Packages> {
    let mut packages = deps::BUILD_PACKAGES.to_vec();
    packages.extend(deps::BUNDLE_PACKAGES);
    deps::ensure_system_packages(&packages)?;
    let tauri = root.join("ui/node_modules/.bin/tauri");
    if !tauri.exists() {
        bail!(
            "{} is missing: `npm ci` in ui/ installs it (`cargo xtask run` does; \
             @tauri-apps/cli is a devDependency)",
            tauri.display()
        );
    }
    let built = run::build_binaries(root, profile, &run::APP_BINARIES)?;

    // The bundler finds the app at `<CARGO_TARGET_DIR>/<profile>/gatehouse`:
    // a staging target directory holds the stripped copies and its output.
    let staging = run::target_dir(root).join("package");
    let bin_dir = staging.join(profile.dir());
    let out_dir = bin_dir.join("bundle");
    for dir in [&bin_dir, &out_dir] {
        if dir == &out_dir && dir.exists() {
            std::fs::remove_dir_all(dir).with_context(|| format!("clearing {}", dir.display()))?;
        }
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut stripped = Vec::new();
    for binary in &built {
        let name = binary
            .file_name()
            .context("a binary path has no file name")?;
        let copy = bin_dir.join(name);
        run_checked(
            Command::new("strip")
                .args([
                    "--strip-all",
                    "--remove-section=.comment",
                    "--remove-section=.note",
                    "-o",
                ])
                .arg(&copy)
                .arg(binary),
        )?;
        stripped.push(copy);
    }
    let changelog = staging.join("changelog");
    std::fs::write(&changelog, debian_changelog(root))
        .with_context(|| format!("writing {}", changelog.display()))?;
    let config = bundle_config(root, &stripped[1], &stripped[2], &changelog);

    let mut cmd = Command::new(&tauri);
    cmd.current_dir(root)
        .env("CARGO_TARGET_DIR", &staging)
        .args([
            "bundle",
            "--ci",
            "--no-sign",
            "--no-binary-patching",
            "--bundles",
        ])
        .arg(if rpm { "deb,rpm" } else { "deb" })
        .arg("--config")
        .arg(config.to_string());
    if profile == Profile::Debug {
        cmd.arg("--debug");
    }
    run_checked(&mut cmd)?;

    let arch = deb_arch()?;
    let deb = out_dir.join(format!("deb/{PACKAGE}_{VERSION}_{arch}.deb"));
    if !deb.exists() {
        bail!("the bundler succeeded but {} is missing", deb.display());
    }
    let rpm = if rpm {
        let path = out_dir.join(format!(
            "rpm/{PACKAGE}-{VERSION}-1.{}.rpm",
            std::env::consts::ARCH
        ));
        if !path.exists() {
            bail!("the bundler succeeded but {} is missing", path.display());
        }
        Some(path)
    } else {
        None
    };
    Ok(Packages { deb, rpm })
}

/// What `--config` merges over tauri.conf.json for the bundler (see the
/// module documentation).
fn bundle_config(root: &Path, cli: &Path, helper: &Path, changelog: &Path) -> serde_json::Value {
    let doc = format!("/usr/share/doc/{PACKAGE}");
    serde_json::json!({
        "productName": PACKAGE,
        "bundle": {
            // The control file's `Maintainer` (the bundler's fallback when
            // Cargo.toml names no authors).
            "publisher": MAINTAINER,
            "linux": {
                "deb": {
                    "files": {
                        "/usr/bin/gatehouse-cli": cli,
                        "/usr/bin/gatehouse-sandbox-exec": helper,
                        format!("{doc}/copyright"): root.join("packaging/linux/copyright"),
                    },
                    "changelog": changelog,
                },
                "rpm": {
                    "files": {
                        "/usr/bin/gatehouse-cli": cli,
                        "/usr/bin/gatehouse-sandbox-exec": helper,
                        format!("{doc}/copyright"): root.join("packaging/linux/copyright"),
                    },
                },
            },
        },
    })
}

/// A one-entry Debian changelog for this version, dated by the last commit
/// (the same bytes for the same source).
fn debian_changelog(root: &Path) -> String {
    let date = Command::new("git")
        .args(["log", "-1", "--format=%aD"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "Thu, 01 Jan 1970 00:00:00 +0000".to_owned());
    format!(
        "{PACKAGE} ({VERSION}) unstable; urgency=medium\n\n  \
         * Built from source with `cargo xtask bundle`.\n\n -- {MAINTAINER}  {date}\n"
    )
}

/// The Debian architecture name of this machine (`amd64`, `arm64`, …).
fn deb_arch() -> anyhow::Result<&'static str> {
    Ok(match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "i386",
        "arm" => "armhf",
        "riscv64" => "riscv64",
        other => bail!("no Debian architecture name known for {other}"),
    })
}
