//! A private Secret Service for a test: its own D-Bus session bus and an
//! unlocked gnome-keyring on it, with its keyrings under the test's home,
//! so the app's keychain is real and never the developer's own. Both
//! processes stop when the value is dropped.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// How long the bus and the keyring have to come up.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A private D-Bus session bus; stopped when dropped.
pub struct SessionBus {
    /// `DBUS_SESSION_BUS_ADDRESS` for the app.
    pub address: String,
    bus: Child,
}

impl SessionBus {
    /// Starts `dbus-daemon --session`; fails saying so when it is missing
    /// (`cargo xtask test` installs it).
    pub fn start() -> anyhow::Result<Self> {
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting dbus-daemon (`cargo xtask test` installs it)")?;
        let mut address = String::new();
        let stdout = bus.stdout.take().context("dbus-daemon's stdout")?;
        BufReader::new(stdout)
            .read_line(&mut address)
            .context("reading dbus-daemon's address")?;
        let address = address.trim().to_owned();
        if address.is_empty() {
            let _ = bus.kill();
            let _ = bus.wait();
            bail!("dbus-daemon printed no address");
        }
        Ok(Self { address, bus })
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        let _ = self.bus.kill();
        let _ = self.bus.wait();
    }
}

/// A running D-Bus session with gnome-keyring's Secret Service.
pub struct SecretService {
    /// `DBUS_SESSION_BUS_ADDRESS` for the app.
    pub address: String,
    // Dropped after the keyring (fields drop in order).
    keyring: Child,
    _bus: SessionBus,
}

impl SecretService {
    /// Starts the bus and the keyring (password `pass`), keyrings in
    /// `home`; `None` (with the reason printed) when `dbus-daemon` or
    /// `gnome-keyring-daemon` is not installed (`cargo xtask test`
    /// installs both).
    pub fn start(home: &Path) -> anyhow::Result<Option<Self>> {
        for tool in ["dbus-daemon", "gnome-keyring-daemon"] {
            let found = Command::new(tool)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !found {
                eprintln!("SKIPPED: {tool} is not installed (`cargo xtask test` installs it)");
                return Ok(None);
            }
        }
        let bus = SessionBus::start()?;
        let address = bus.address.clone();
        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting gnome-keyring-daemon")?;
        if let Some(mut stdin) = keyring.stdin.take() {
            stdin
                .write_all(b"pass")
                .context("unlocking gnome-keyring")?;
        }
        let service = Self {
            address,
            keyring,
            _bus: bus,
        };
        service.wait_for_secrets()?;
        Ok(Some(service))
    }

    /// Waits until `org.freedesktop.secrets` is on the bus.
    fn wait_for_secrets(&self) -> anyhow::Result<()> {
        let started = Instant::now();
        loop {
            let names = Command::new("dbus-send")
                .args([
                    "--session",
                    "--print-reply",
                    "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.ListNames",
                ])
                .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
                .output()
                .context("asking the bus for its names")?;
            if String::from_utf8_lossy(&names.stdout).contains("org.freedesktop.secrets") {
                return Ok(());
            }
            if started.elapsed() > START_TIMEOUT {
                bail!(
                    "gnome-keyring's Secret Service did not appear on the test bus within {START_TIMEOUT:?}"
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for SecretService {
    fn drop(&mut self) {
        // The keyring first; the bus stops when `_bus` drops after this.
        let _ = self.keyring.kill();
        let _ = self.keyring.wait();
    }
}
