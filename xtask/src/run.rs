//! `cargo xtask run`: from a fresh clone to a running Gatehouse window.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, bail};

use crate::deps;
use crate::process::run_checked;

/// Builds the UI (`npm run build` in ui/) after making sure its packages and
/// the generated protocol types are current.
pub(crate) fn build_ui(root: &Path) -> anyhow::Result<()> {
    deps::ensure_ui_packages(root)?;
    crate::gen_types::write()?;
    run_checked(
        Command::new("npm")
            .args(["run", "build", "--silent"])
            .current_dir(root.join("ui")),
    )
}

/// Which cargo profile the app is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    /// `dev`: `cargo xtask run` and the end-to-end tests.
    Debug,
    /// `release`: benchmarks and `cargo xtask bundle`.
    Release,
}

impl Profile {
    /// The folder of the target directory cargo writes this profile to.
    pub(crate) fn dir(self) -> &'static str {
        match self {
            Profile::Debug => "debug",
            Profile::Release => "release",
        }
    }
}

/// The cargo target directory (`CARGO_TARGET_DIR`, else `target/`).
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// The binaries installed side by side: the app, `gatehouse-cli`
/// (Settings → Claude Code's switch installs hook entries that run it) and
/// `gatehouse-sandbox-exec` (started inside the Bash sandbox; the app finds
/// it beside itself).
pub(crate) const APP_BINARIES: [(&str, &str); 3] = [
    ("gatehouse", "gatehouse"),
    ("gatehouse-cli", "gatehouse-cli"),
    ("gatehouse-sandbox", "gatehouse-sandbox-exec"),
];

/// Builds the desktop app and the binaries installed beside it
/// ([`APP_BINARIES`]), and returns the path of the app's binary.
pub(crate) fn build_app(root: &Path, profile: Profile) -> anyhow::Result<PathBuf> {
    let [app, _cli, _helper] = build_binaries(root, profile, &APP_BINARIES)?;
    Ok(app)
}

/// Builds the binaries `bins` (`(package, binary)` pairs) with one cargo
/// run and returns their paths, in the same order.
pub(crate) fn build_binaries<const N: usize>(
    root: &Path,
    profile: Profile,
    bins: &[(&str, &str); N],
) -> anyhow::Result<[PathBuf; N]> {
    let mut cmd = Command::new("cargo");
    cmd.arg("build").current_dir(root);
    for (package, bin) in bins {
        cmd.args(["--package", package, "--bin", bin]);
    }
    if profile == Profile::Release {
        cmd.arg("--release");
    }
    run_checked(&mut cmd)?;
    let dir = target_dir(root).join(profile.dir());
    let paths = bins.map(|(_, bin)| dir.join(bin));
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        bail!("the build succeeded but {} is missing", missing.display());
    }
    Ok(paths)
}

/// A `cargo` command that can drive the real window: the app (built with
/// `profile`) and tauri-driver are passed to `gatehouse-e2e` through
/// `GATEHOUSE_E2E_APP` / `GATEHOUSE_E2E_TAURI_DRIVER`, and it runs on a
/// virtual X display when there is no display. The end-to-end tests and the
/// UI benchmark both run through it; the caller adds the cargo arguments.
pub(crate) fn webdriver_cargo(root: &Path, profile: Profile) -> anyhow::Result<Command> {
    let driver = deps::ensure_tauri_driver()?;
    // The CLI too: the Claude Code e2e tests run its hook beside the window.
    let [app, cli, _helper] = build_binaries(root, profile, &APP_BINARIES)?;
    let mut cmd = if deps::has_display() {
        Command::new("cargo")
    } else {
        let mut xvfb = Command::new("xvfb-run");
        xvfb.args([
            "--auto-servernum",
            "--server-args=-screen 0 1600x1000x24",
            "cargo",
        ]);
        xvfb
    };
    cmd.current_dir(root)
        .env("CARGO_TERM_COLOR", "never")
        .env("GATEHOUSE_E2E_APP", &app)
        .env("GATEHOUSE_E2E_CLI", &cli)
        .env("GATEHOUSE_E2E_TAURI_DRIVER", &driver);
    Ok(cmd)
}

pub(crate) fn run(smoke: bool) -> anyhow::Result<ExitCode> {
    let root = crate::root();
    let mut packages = deps::BUILD_PACKAGES.to_vec();
    packages.extend(deps::RUN_PACKAGES);
    let headless = !deps::has_display();
    if headless {
        packages.extend(["xvfb", "xauth"]);
    }
    deps::ensure_system_packages(&packages)?;
    build_ui(&root)?;
    let binary = build_app(&root, Profile::Debug)?;

    let mut cmd = if headless {
        if !smoke {
            eprintln!(
                "xtask: no display found (DISPLAY/WAYLAND_DISPLAY unset): running on a virtual \
                 X display, so the window is not visible. Use --smoke to just check it starts."
            );
        }
        let mut xvfb = Command::new("xvfb-run");
        xvfb.args(["--auto-servernum", "--server-args=-screen 0 1600x1000x24"])
            .arg(&binary);
        xvfb
    } else {
        Command::new(&binary)
    };
    if smoke {
        cmd.env("GATEHOUSE_SMOKE", "1");
    }
    eprintln!("xtask: launching {}", binary.display());
    let status = cmd
        .current_dir(&root)
        .status()
        .with_context(|| format!("launching {}", binary.display()))?;
    if status.success() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("xtask: the app exited with {status}");
        Ok(ExitCode::FAILURE)
    }
}
