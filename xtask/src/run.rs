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

/// Builds the desktop app (debug) and returns the path of its binary.
pub(crate) fn build_app(root: &Path) -> anyhow::Result<PathBuf> {
    run_checked(
        Command::new("cargo")
            .args(["build", "--package", "gatehouse", "--bin", "gatehouse"])
            .current_dir(root),
    )?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let binary = target.join("debug/gatehouse");
    if !binary.exists() {
        bail!("the build succeeded but {} is missing", binary.display());
    }
    Ok(binary)
}

pub(crate) fn run(smoke: bool) -> anyhow::Result<ExitCode> {
    let root = crate::root();
    let mut packages = deps::BUILD_PACKAGES.to_vec();
    let headless = !deps::has_display();
    if headless {
        packages.extend(["xvfb", "xauth"]);
    }
    deps::ensure_system_packages(&packages)?;
    build_ui(&root)?;
    let binary = build_app(&root)?;

    let mut cmd = if headless {
        if !smoke {
            eprintln!(
                "xtask: no display found (DISPLAY/WAYLAND_DISPLAY unset): running on a virtual \
                 X display, so the window is not visible. Use --smoke to just check it starts."
            );
        }
        let mut xvfb = Command::new("xvfb-run");
        xvfb.args(["--auto-servernum", "--server-args=-screen 0 1280x800x24"])
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
