//! Installing what the build and the tests need, only when it is missing.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

use crate::process::{run_checked, succeeds};

/// Debian packages the app needs to build (Tauri 2 on WebKitGTK 4.1).
pub(crate) const BUILD_PACKAGES: &[&str] = &[
    "build-essential",
    "pkg-config",
    "libssl-dev",
    "libwebkit2gtk-4.1-dev",
    "libjavascriptcoregtk-4.1-dev",
    "libsoup-3.0-dev",
    "libayatana-appindicator3-dev",
    "librsvg2-dev",
    // The sandbox's blocked-write reports (seccomp user notifications
    // through libseccomp; its run-time library, libseccomp2, is in every
    // Debian and Ubuntu install).
    "libseccomp-dev",
];

/// Debian packages the app needs at run time: `bubblewrap`, the Bash
/// sandbox (issue 24; the sandbox tests need it too, and fail without it).
pub(crate) const RUN_PACKAGES: &[&str] = &["bubblewrap"];

/// Debian packages `cargo xtask bundle` needs besides the build's:
/// `strip` (binutils) for the packaged copies of the binaries.
pub(crate) const BUNDLE_PACKAGES: &[&str] = &["binutils"];

/// Debian packages the tests need: a virtual display, WebDriver and
/// `xdotool` (real X key chords such as Shift+Tab, which WebKitWebDriver
/// does not deliver) for the end-to-end tests, `ripgrep` (Grep's results are compared with `rg`'s),
/// a real Secret Service for the keychain tests (`gnome-keyring` inside
/// `dbus-run-session`, from `dbus-daemon`), `lintian` for the package
/// test (`cargo xtask test package`), `curl`, `wget`, `ssh`, `nc` and
/// `ping`, which the sandbox's network tests run inside bwrap (issue 24
/// item 6 names them; minimal Debian and Ubuntu images lack them),
/// and `socat`, which real Claude Code's own sandbox needs beside bwrap
/// (`cli/tests/claude_code_real.rs`).
pub(crate) const TEST_PACKAGES: &[&str] = &[
    "xvfb",
    "xauth",
    "webkit2gtk-driver",
    "xdotool",
    "ripgrep",
    "gnome-keyring",
    "dbus-daemon",
    "lintian",
    "curl",
    "wget",
    "openssh-client",
    "netcat-openbsd",
    "iputils-ping",
    "socat",
];

/// The tauri-driver the end-to-end tests run (an exact version: a fresh
/// machine gets the one they were written against).
const TAURI_DRIVER_VERSION: &str = "2.1.0";

/// The oldest Node.js that the UI's toolchain (Vite 7) runs on.
const MIN_NODE: (u32, u32) = (20, 19);

fn is_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("install ok installed"))
}

/// Whether this process runs as root.
pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// Installs the missing Debian packages (and Node.js when `node` does not
/// run) with apt-get when root; otherwise fails with the one command the
/// user has to run.
pub(crate) fn ensure_system_packages(packages: &[&str]) -> anyhow::Result<()> {
    let node: &[&str] = if succeeds(Command::new("node").arg("--version")) {
        &[]
    } else {
        &["nodejs", "npm"]
    };
    install_missing(packages, node)
}

/// Installs the Debian `packages` that are missing with apt-get when root;
/// otherwise fails with the one command the user has to run. Unlike
/// [`ensure_system_packages`], Node.js is not needed.
pub(crate) fn ensure_debian_packages(packages: &[&str]) -> anyhow::Result<()> {
    install_missing(packages, &[])
}

/// Installs those of `packages` that dpkg does not know as installed, plus
/// `also` (known to be missing), as root; else fails saying how.
fn install_missing(packages: &[&str], also: &[&str]) -> anyhow::Result<()> {
    if !Path::new("/usr/bin/dpkg-query").exists() {
        eprintln!(
            "xtask: not a Debian/Ubuntu system: make sure the equivalents of these are installed: {}",
            packages.join(" ")
        );
        return Ok(());
    }
    let mut missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| !is_installed(p))
        .collect();
    missing.extend(also);
    if missing.is_empty() {
        return Ok(());
    }
    let line = format!(
        "apt-get install -y --no-install-recommends {}",
        missing.join(" ")
    );
    if !is_root() {
        bail!("missing system packages; run:\n    sudo {line}\nthen run this command again");
    }
    eprintln!("xtask: installing {}", missing.join(" "));
    let apt = |args: &[&str]| {
        let mut cmd = Command::new("apt-get");
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    run_checked(&mut apt(&["update", "-qq"]))?;
    let mut install = apt(&["install", "-y", "-qq", "--no-install-recommends"]);
    install.args(&missing);
    run_checked(&mut install)
}

/// Checks Node.js is new enough, then runs `npm ci` in ui/ when
/// `node_modules` is missing or older than `package-lock.json`.
pub(crate) fn ensure_ui_packages(root: &Path) -> anyhow::Result<()> {
    check_node_version()?;
    let ui = root.join("ui");
    let lock = ui.join("package-lock.json");
    let marker = ui.join("node_modules/.package-lock.json");
    let stale = match (std::fs::metadata(&lock), std::fs::metadata(&marker)) {
        (Ok(lock), Ok(marker)) => match (lock.modified(), marker.modified()) {
            (Ok(l), Ok(m)) => l > m,
            _ => true,
        },
        _ => true,
    };
    if stale {
        eprintln!("xtask: installing UI packages (npm ci)");
        run_checked(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&ui),
        )?;
    }
    Ok(())
}

fn check_node_version() -> anyhow::Result<()> {
    let out = Command::new("node")
        .arg("--version")
        .output()
        .context("running `node --version` (is Node.js installed?)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().trim_start_matches('v');
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if found < MIN_NODE {
        bail!(
            "Node.js {version} is too old: the UI needs {}.{} or newer (Ubuntu/Debian: install \
             a current `nodejs` package, e.g. from your distribution's backports)",
            MIN_NODE.0,
            MIN_NODE.1
        );
    }
    Ok(())
}

/// Path of `tauri-driver`, installing it with cargo when missing.
pub(crate) fn ensure_tauri_driver() -> anyhow::Result<std::path::PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let driver = cargo_home.join("bin/tauri-driver");
    if !driver.exists() {
        eprintln!("xtask: installing tauri-driver {TAURI_DRIVER_VERSION} (cargo install, ~1 min)");
        run_checked(Command::new("cargo").args([
            "install",
            "tauri-driver",
            "--version",
            &format!("={TAURI_DRIVER_VERSION}"),
            "--locked",
        ]))?;
    }
    Ok(driver)
}

/// Whether a display is available to open windows on.
pub(crate) fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty())
        || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty())
}

/// The environment variable the MCP tests read the test-server cache from.
pub(crate) const MCP_SERVERS_ENV: &str = "GATEHOUSE_MCP_TEST_SERVERS";

/// Where the pinned sets of MCP test servers are committed: `package.json`
/// and `package-lock.json` (the npm servers, every transitive package at
/// the version the lock names) and `requirements.txt` (the Python SDK and
/// everything it pulls in, each `==`). Exact pins all the way down: a new
/// release of a transitive dependency must not change what the tests talk
/// to (an unpinned one once made `mcp_sign_in.rs` fail on a fresh machine).
const MCP_PINS_DIR: &str = "xtask/mcp-test-servers";

/// The PyPI `mcp` SDK the Python test servers (`py_server.py`,
/// `oauth_server.py`) are written against; `requirements.txt` must pin it
/// at this version.
const MCP_PYPI_VERSION: &str = "2.3.0";

/// Whether `installed` holds a byte-identical copy of `pinned` (the stamp
/// that says a cache was installed from exactly these pins).
fn same_file(pinned: &Path, installed: &Path) -> bool {
    match (std::fs::read(pinned), std::fs::read(installed)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Installs exactly what `pins/package-lock.json` names into `cache`
/// (`npm ci --prefix`), copying `package.json` and the lock file there
/// first; the copied lock file is the stamp callers compare with.
fn npm_ci_pinned(pins: &Path, cache: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(cache).with_context(|| format!("creating {}", cache.display()))?;
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(pins.join(file), cache.join(file))
            .with_context(|| format!("copying {} into {}", file, cache.display()))?;
    }
    run_checked(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(cache),
    )
}

/// Installs the MCP servers the `gatehouse-mcp` tests talk to into
/// `<root>/target/mcp-servers` from the pins in [`MCP_PINS_DIR`], skipping
/// what was already installed from the same pins: the npm packages
/// (`npm ci --prefix`) and the PyPI `mcp` package in a venv
/// (`venv/bin/python`; its auth support serves the OAuth tests). Returns the
/// cache directory, which the tests find through [`MCP_SERVERS_ENV`]; at
/// test time nothing is downloaded.
pub(crate) fn ensure_mcp_test_servers(root: &Path) -> anyhow::Result<std::path::PathBuf> {
    let pins = root.join(MCP_PINS_DIR);
    let cache = root.join("target").join("mcp-servers");
    std::fs::create_dir_all(&cache).with_context(|| format!("creating {}", cache.display()))?;

    // npm: the lock file copied into the cache is the stamp; `npm ci`
    // installs exactly what it names (and removes anything else).
    let lock = "package-lock.json";
    let npm_ready = same_file(&pins.join(lock), &cache.join(lock))
        && same_file(&pins.join("package.json"), &cache.join("package.json"))
        && cache
            .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
            .exists();
    if !npm_ready {
        eprintln!("xtask: installing the pinned MCP test servers (npm ci)");
        npm_ci_pinned(&pins, &cache)?;
    }

    // Python: the requirements file copied into the venv is the stamp.
    let venv = cache.join("venv");
    let python = venv.join("bin/python");
    let requirements = pins.join("requirements.txt");
    let stamp = venv.join("gatehouse-requirements.txt");
    // `mcp.server.auth` + uvicorn: the OAuth test server (oauth_server.py),
    // and the SDK at the pinned version.
    let check = format!(
        "import importlib.metadata, sys, mcp.server.mcpserver, mcp.server.auth.provider, uvicorn; \
         sys.exit(importlib.metadata.version('mcp') != '{MCP_PYPI_VERSION}')"
    );
    let has_mcp = || succeeds(Command::new(&python).args(["-c", &check]));
    if !(same_file(&requirements, &stamp) && has_mcp()) {
        if !succeeds(Command::new("python3").args(["-m", "venv", "--help"])) {
            ensure_system_packages(&["python3-venv"])?;
        }
        if !python.exists() {
            eprintln!("xtask: creating the MCP test venv");
            run_checked(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        }
        eprintln!(
            "xtask: installing the Python `mcp` package {MCP_PYPI_VERSION} and its pinned \
             dependencies into the MCP test venv"
        );
        run_checked(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "-r"])
                .arg(&requirements),
        )?;
        if !has_mcp() {
            bail!(
                "the MCP test venv {} still lacks `mcp` {MCP_PYPI_VERSION} with its auth support \
                 (is it pinned in {}?)",
                venv.display(),
                requirements.display()
            );
        }
        std::fs::copy(&requirements, &stamp)
            .with_context(|| format!("writing {}", stamp.display()))?;
    }
    Ok(cache)
}

/// The Claude Code version the real-Claude-Code tests pin (issue 25).
pub(crate) const CLAUDE_CODE_VERSION: &str = "2.1.332";

/// The variable through which the tests find the pinned `claude`.
pub(crate) const CLAUDE_CODE_ENV: &str = "GATEHOUSE_CLAUDE_CODE";

/// The variable that turns the real-Claude-Code tests into counted skips
/// (`cargo xtask test --skip-claude-code`, for offline development).
pub(crate) const SKIP_CLAUDE_CODE_ENV: &str = "GATEHOUSE_SKIP_CLAUDE_CODE";

/// Where the Claude Code the tests run is pinned: `package.json` and a
/// `package-lock.json` naming every package with its integrity hash.
const CLAUDE_CODE_PINS_DIR: &str = "xtask/claude-code";

/// Installs the pinned `@anthropic-ai/claude-code` (`npm ci` from
/// [`CLAUDE_CODE_PINS_DIR`]) into `<root>/target/claude-code/<version>`
/// unless it is there from the same lock file, and returns its `claude`.
/// On Node 20 npm warns that the package wants Node 22 (`EBADENGINE`); it
/// works. Fails, saying so, when npm cannot reach its registry.
pub(crate) fn ensure_claude_code(root: &Path) -> anyhow::Result<std::path::PathBuf> {
    let pins = root.join(CLAUDE_CODE_PINS_DIR);
    let cache = root
        .join("target")
        .join("claude-code")
        .join(CLAUDE_CODE_VERSION);
    let claude = cache.join("node_modules/.bin/claude");
    let installed = || {
        same_file(
            &pins.join("package-lock.json"),
            &cache.join("package-lock.json"),
        ) && Command::new(&claude)
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with(CLAUDE_CODE_VERSION))
    };
    if installed() {
        return Ok(claude);
    }
    eprintln!("xtask: installing @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} (npm ci)");
    npm_ci_pinned(&pins, &cache).with_context(|| {
        format!(
            "npm could not install @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}: is the npm \
             registry reachable? (`cargo xtask test --skip-claude-code` runs without it)"
        )
    })?;
    if !installed() {
        anyhow::bail!(
            "{} does not run as Claude Code {CLAUDE_CODE_VERSION} after npm ci (is {} pinned to it?)",
            claude.display(),
            pins.display()
        );
    }
    Ok(claude)
}
