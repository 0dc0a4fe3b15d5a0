//! `cargo xtask test package`: the `.deb` used as a user would use it.
//!
//! Bundles the debug build (the release build would add minutes of
//! compiling for the same packaging code), runs lintian on it, installs it
//! with `apt-get install ./gatehouse_….deb` (apt resolves `Depends`),
//! checks the installed layout and desktop entry, launches the desktop
//! entry's `Exec` command with `--smoke` on a virtual display, runs the
//! installed `gatehouse-cli --version`, removes the package and checks that
//! nothing it installed is left. Each of those is one test in the summary.
//!
//! It needs root or sudo (apt). A `gatehouse` package left installed by an
//! earlier run is removed first; the package is removed again on the way
//! out, whichever step failed. The app runs with a throwaway `HOME` and
//! data directory, so the developer's own data is never touched.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::bundle::{self, PACKAGE, VERSION};
use crate::process::run_captured;
use crate::run::Profile;

/// One named check's outcome, printed as it is made.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    /// How many passed.
    pub(crate) passed: u64,
    /// How many failed.
    pub(crate) failed: u64,
}

impl Checks {
    fn record(&mut self, name: &str, result: anyhow::Result<()>) -> bool {
        match result {
            Ok(()) => {
                println!("package test: ok   {name}");
                self.passed += 1;
                true
            }
            Err(err) => {
                println!("package test: FAIL {name}: {err:#}");
                self.failed += 1;
                false
            }
        }
    }
}

/// The app's smoke flag (`--smoke`, src-tauri/app/launch.rs `Args`).
const SMOKE_FLAG: &str = "--smoke";

/// The hicolor sizes the package must install the icon at (icons/).
const ICON_SIZES: &[u32] = &[16, 24, 32, 48, 64, 128, 256, 512];

/// A command run as root: directly when root, else through `sudo -n`.
fn privileged(program: &str) -> Command {
    if crate::deps::is_root() {
        Command::new(program)
    } else {
        let mut cmd = Command::new("sudo");
        cmd.args(["-n", program]);
        cmd
    }
}

fn apt_get(args: &[&str]) -> Command {
    let mut cmd = privileged("apt-get");
    cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
    cmd
}

/// Whether dpkg has the package installed.
fn installed() -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", PACKAGE])
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("install ok installed"))
}

/// Runs `cmd`, echoing its output; an error with that output's tail when it fails.
fn run_ok(cmd: &mut Command) -> anyhow::Result<String> {
    let (ok, out) = run_captured(cmd)?;
    if !ok {
        bail!("the command failed (its output is above)");
    }
    Ok(out)
}

/// Removes the package when installed (`apt-get remove`).
fn remove() -> anyhow::Result<()> {
    if installed() {
        run_ok(&mut apt_get(&["remove", "-y", "-qq", PACKAGE]))?;
    }
    Ok(())
}

/// Removes the package when dropped, so a failed step never leaves it
/// installed.
struct RemoveOnDrop;

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if let Err(err) = remove() {
            eprintln!("package test: could not remove {PACKAGE} on the way out: {err:#}");
        }
    }
}

/// Runs every check; `Err` only when the test could not start at all. The
/// UI must be built (`cargo xtask test` does that first).
pub(crate) fn run(root: &Path) -> anyhow::Result<Checks> {
    if !Path::new("/usr/bin/dpkg").exists() {
        bail!("the package test needs a Debian/Ubuntu system (dpkg and apt-get)");
    }
    if !crate::deps::is_root()
        && !crate::process::succeeds(Command::new("sudo").args(["-n", "true"]))
    {
        bail!("the package test installs a .deb: run it as root or with password-less sudo");
    }
    for tool in ["lintian", "xvfb-run"] {
        if !crate::process::succeeds(Command::new("sh").args(["-c", &format!("command -v {tool}")]))
        {
            bail!(
                "`{tool}` is missing: run `cargo xtask test` (it installs it) or `apt-get install lintian xvfb xauth`"
            );
        }
    }
    // An earlier run that was killed may have left it installed.
    remove().context("removing the gatehouse package an earlier run left installed")?;
    for bin in [
        "/usr/bin/gatehouse",
        "/usr/bin/gatehouse-cli",
        "/usr/bin/gatehouse-sandbox-exec",
    ] {
        if Path::new(bin).exists() {
            bail!(
                "{bin} exists but belongs to no installed gatehouse package: remove it (it \
                 would be overwritten by the package) and run the test again"
            );
        }
    }

    let mut checks = Checks::default();
    let packages = match bundle::build_packages(root, Profile::Debug, false) {
        Ok(p) => p,
        Err(err) => {
            checks.record("the .deb is built", Err(err));
            return Ok(checks);
        }
    };
    checks.record("the .deb is built", Ok(()));
    let deb = packages.deb;
    checks.record("lintian reports no errors", lintian(&deb));

    let _cleanup = RemoveOnDrop;
    let mut install = apt_get(&["install", "-y", "-qq", "--no-install-recommends"]);
    install.arg(&deb);
    if !checks.record(
        "apt-get install ./gatehouse_….deb",
        run_ok(&mut install).map(drop),
    ) {
        return Ok(checks);
    }
    let files = match installed_files() {
        Ok(files) => files,
        Err(err) => {
            checks.record("dpkg -L lists the installed files", Err(err));
            return Ok(checks);
        }
    };
    checks.record("installed layout", layout(&files));
    let exec = desktop_entry();
    let exec = match exec {
        Ok(exec) => {
            checks.record(
                "desktop entry (Name, Comment, Categories, Exec, Icon)",
                Ok(()),
            );
            Some(exec)
        }
        Err(err) => {
            checks.record(
                "desktop entry (Name, Comment, Categories, Exec, Icon)",
                Err(err),
            );
            None
        }
    };
    if let Some(exec) = exec {
        checks.record(
            "the desktop entry's Exec starts the app (--smoke, Xvfb)",
            launch(&exec),
        );
    }
    checks.record("gatehouse-cli --version", cli_version());
    let removed = remove().and_then(|()| {
        if installed() {
            bail!("dpkg still lists {PACKAGE} as installed after apt-get remove");
        }
        Ok(())
    });
    if checks.record("apt-get remove gatehouse", removed) {
        checks.record("nothing the package installed is left", leftovers(&files));
    }
    Ok(checks)
}

/// lintian's tags for the `.deb`; an error when one is an error (`E:`).
fn lintian(deb: &Path) -> anyhow::Result<()> {
    let (_, out) = run_captured(Command::new("lintian").arg(deb))?;
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("E: ")).collect();
    if !errors.is_empty() {
        bail!("{} error(s):\n{}", errors.len(), errors.join("\n"));
    }
    Ok(())
}

/// What `dpkg -L gatehouse` lists (files and directories).
fn installed_files() -> anyhow::Result<Vec<PathBuf>> {
    let out = Command::new("dpkg")
        .args(["-L", PACKAGE])
        .output()
        .context("running dpkg -L")?;
    if !out.status.success() {
        bail!(
            "dpkg -L {PACKAGE} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('/') && *l != "/.")
        .map(PathBuf::from)
        .collect())
}

/// The files a Debian user expects, each listed by dpkg and present.
fn layout(files: &[PathBuf]) -> anyhow::Result<()> {
    let mut expected: Vec<String> = vec![
        "/usr/bin/gatehouse".into(),
        "/usr/bin/gatehouse-cli".into(),
        "/usr/bin/gatehouse-sandbox-exec".into(),
        "/usr/share/applications/gatehouse.desktop".into(),
        "/usr/share/doc/gatehouse/copyright".into(),
        "/usr/share/doc/gatehouse/changelog.gz".into(),
    ];
    expected.extend(
        ICON_SIZES
            .iter()
            .map(|s| format!("/usr/share/icons/hicolor/{s}x{s}/apps/gatehouse.png")),
    );
    let missing: Vec<&String> = expected
        .iter()
        .filter(|e| !files.iter().any(|f| f == Path::new(e)) || !Path::new(e).is_file())
        .collect();
    if !missing.is_empty() {
        bail!(
            "not installed: {}",
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// Reads the installed desktop entry, checks its keys and returns its
/// `Exec` command line.
fn desktop_entry() -> anyhow::Result<String> {
    let path = "/usr/share/applications/gatehouse.desktop";
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    let key = |name: &str| {
        text.lines()
            .skip_while(|l| l.trim() != "[Desktop Entry]")
            .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
            .map(str::trim)
    };
    for (name, want) in [
        ("Name", Some("Gatehouse")),
        ("Type", Some("Application")),
        ("Icon", Some("gatehouse")),
        ("Comment", None),
    ] {
        match (key(name), want) {
            (None, _) => bail!("{path} has no {name}="),
            (Some(v), Some(w)) if v != w => bail!("{path}: {name}={v}, expected {w}"),
            _ => {}
        }
    }
    let categories = key("Categories").with_context(|| format!("{path} has no Categories="))?;
    if !categories.split(';').any(|c| c == "Development") {
        bail!("{path}: Categories={categories} lacks Development");
    }
    let exec = key("Exec").with_context(|| format!("{path} has no Exec="))?;
    Ok(exec.to_owned())
}

/// The argv of a desktop entry's `Exec` value with no file to open: the
/// field codes (`%f`, `%U`, …) dropped, `%%` kept as `%`. Quoting is the
/// spec's double quotes with backslash escapes.
pub(crate) fn exec_argv(exec: &str) -> anyhow::Result<Vec<String>> {
    let mut args = Vec::new();
    let mut chars = exec.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == ' ' {
            chars.next();
            continue;
        }
        let mut arg = String::new();
        if c == '"' {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => arg.push(chars.next().context("Exec ends inside an escape")?),
                    Some(c) => arg.push(c),
                    None => bail!("Exec has an unclosed quote: {exec}"),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ' ' {
                    break;
                }
                arg.push(c);
                chars.next();
            }
        }
        let is_field_code = arg.len() == 2 && arg.starts_with('%') && arg != "%%";
        if !is_field_code {
            args.push(arg.replace("%%", "%"));
        }
    }
    if args.is_empty() {
        bail!("Exec is empty");
    }
    Ok(args)
}

/// Launches the `Exec` command with `--smoke` on a virtual display, with a
/// throwaway home and data directory; it must report a round trip.
fn launch(exec: &str) -> anyhow::Result<()> {
    let argv = exec_argv(exec)?;
    let home = std::env::temp_dir().join(format!("gatehouse-package-test-{}", std::process::id()));
    std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
    let mut cmd = Command::new("xvfb-run");
    cmd.args(["--auto-servernum", "--server-args=-screen 0 1280x800x24"])
        .args(&argv)
        .arg(SMOKE_FLAG)
        .env("HOME", &home)
        .env("GATEHOUSE_DATA_DIR", home.join("data"))
        .env_remove("GATEHOUSE_SMOKE")
        .current_dir(&home);
    let result = run_captured(&mut cmd);
    let _ = std::fs::remove_dir_all(&home);
    let (ok, out) = result?;
    if !ok || !out.contains("gatehouse smoke: ok") {
        bail!("`{exec} --smoke` did not report a successful round trip (its output is above)");
    }
    Ok(())
}

/// The installed `gatehouse-cli --version` names this version.
fn cli_version() -> anyhow::Result<()> {
    let out = run_ok(Command::new("/usr/bin/gatehouse-cli").arg("--version"))?;
    if !out.contains(VERSION) {
        bail!(
            "`gatehouse-cli --version` printed {:?}, not version {VERSION}",
            out.trim()
        );
    }
    Ok(())
}

/// After removal: no file of the package remains, and no directory it
/// created (an empty one that no other package owns).
fn leftovers(files: &[PathBuf]) -> anyhow::Result<()> {
    let mut left = Vec::new();
    for path in files {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if !meta.is_dir() {
            left.push(path.display().to_string());
            continue;
        }
        let empty = std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none());
        let owned = crate::process::succeeds(Command::new("dpkg").arg("-S").arg(path));
        if empty && !owned {
            left.push(format!("{}/ (empty directory)", path.display()));
        }
    }
    if !left.is_empty() {
        bail!("left after apt-get remove: {}", left.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_field_codes_are_dropped_and_quotes_kept_together() {
        assert_eq!(exec_argv("gatehouse").unwrap(), ["gatehouse"]);
        assert_eq!(exec_argv("gatehouse %F").unwrap(), ["gatehouse"]);
        assert_eq!(
            exec_argv(r#""/opt/My App/gatehouse" --x %u 100%%"#).unwrap(),
            ["/opt/My App/gatehouse", "--x", "100%"]
        );
        assert!(exec_argv("  %U ").is_err());
        assert!(exec_argv(r#""unclosed"#).is_err());
    }
}
