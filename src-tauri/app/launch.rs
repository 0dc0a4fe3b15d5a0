//! The command line (`gatehouse [--smoke] [FOLDER]`) and one window per data
//! directory.
//!
//! A second launch on the same data directory hands its folder to the
//! running window (the single-instance plugin, over D-Bus) and exits; where
//! D-Bus is missing, the data directory's [`AppLock`] still keeps it from
//! writing the database, and it says why and exits.
//!
//! [`AppLock`]: gatehouse_store::AppLock

use std::path::{Path, PathBuf};

use clap::Parser;
use gatehouse_protocol::window::{WINDOW_REQUEST_CHANNEL, WindowRequest};
use sha2::{Digest as _, Sha256};
use tauri::{AppHandle, Emitter as _, Manager as _, Runtime};

/// Gatehouse: run an AI coding agent's tools safely and visibly.
///
/// Starting it again while a window is open (with the same data directory)
/// brings that window to the front and opens FOLDER there.
#[derive(Debug, Parser)]
#[command(name = "gatehouse", version)]
pub(crate) struct Args {
    /// Launch, let the window load and answer once, then exit 0 (or
    /// non-zero saying what failed): a check that the installed app works.
    /// Same as setting GATEHOUSE_SMOKE.
    #[arg(long)]
    pub(crate) smoke: bool,
    /// A project folder to open.
    pub(crate) folder: Option<PathBuf>,
}

impl Args {
    /// The folder to open, resolved against `cwd`.
    pub(crate) fn folder_from(&self, cwd: &Path) -> Option<String> {
        self.folder.as_deref().map(|f| resolve_folder(f, cwd))
    }
}

/// `folder` made absolute against `cwd` and canonical when it exists; as
/// given (absolute) otherwise, so opening it reports what is wrong with it.
pub(crate) fn resolve_folder(folder: &Path, cwd: &Path) -> String {
    let absolute = cwd.join(folder);
    std::fs::canonicalize(&absolute)
        .unwrap_or(absolute)
        .display()
        .to_string()
}

/// The D-Bus name prefix for this data directory's instance: one window per
/// data directory, so `GATEHOUSE_DATA_DIR` gives a separate app (tests run
/// side by side; a user can keep a scratch profile open).
pub(crate) fn instance_id(identifier: &str, data_dir: &Path) -> String {
    let canonical = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    // A D-Bus name element must not start with a digit.
    format!("{identifier}.d{hex}")
}

/// Whether a D-Bus session bus answers, so the single-instance plugin can
/// hand a second launch over to the running window.
pub(crate) fn session_bus_answers() -> bool {
    #[cfg(target_os = "linux")]
    return zbus::blocking::Connection::session().is_ok();
    #[cfg(not(target_os = "linux"))]
    return true;
}

/// What the running window does when another launch hands over: come to
/// the front and open the folder it was given, if any.
pub(crate) fn on_second_launch<R: Runtime>(app: &AppHandle<R>, argv: Vec<String>, cwd: String) {
    if let Some(window) = app.get_webview_window("main") {
        // Best effort: a window manager may refuse focus.
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
    match Args::try_parse_from(&argv) {
        Ok(args) => {
            if let Some(path) = args.folder_from(Path::new(&cwd)) {
                let request = WindowRequest::OpenFolder { path };
                if let Err(e) = app.emit(WINDOW_REQUEST_CHANNEL, &request) {
                    eprintln!("gatehouse: could not pass {request:?} to the window: {e}");
                }
            }
        }
        Err(e) => eprintln!("gatehouse: a second launch's arguments {argv:?}: {e}"),
    }
}

/// Ends the app as File → Quit does when the system asks it to stop
/// (SIGTERM at logout or `kill`, SIGINT from a terminal): the exit handler
/// stores every pending event and the window's size and place are saved.
pub(crate) async fn quit_on_termination<R: Runtime>(app: AppHandle<R>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (mut term, mut int) = match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(term), Ok(int)) => (term, int),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("gatehouse: note: SIGTERM/SIGINT will end the app without saving: {e}");
            return;
        }
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    app.exit(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_folder_is_resolved_against_the_launch_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("proj")).unwrap();
        let args = Args::try_parse_from(["gatehouse", "proj"]).unwrap();
        let expected = std::fs::canonicalize(dir.path().join("proj")).unwrap();
        assert_eq!(
            args.folder_from(dir.path()),
            Some(expected.display().to_string())
        );
    }

    #[test]
    fn a_missing_folder_is_passed_on_as_given_for_opening_to_report() {
        let dir = tempfile::tempdir().unwrap();
        let args = Args::try_parse_from(["gatehouse", "--smoke", "gone"]).unwrap();
        assert!(args.smoke);
        assert_eq!(
            args.folder_from(dir.path()),
            Some(dir.path().join("gone").display().to_string())
        );
    }

    #[test]
    fn each_data_directory_has_its_own_valid_instance_name() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let id_a = instance_id("dev.gatehouse.app", a.path());
        assert_ne!(id_a, instance_id("dev.gatehouse.app", b.path()));
        assert_eq!(id_a, instance_id("dev.gatehouse.app", a.path()));
        let last = id_a.rsplit('.').next().unwrap();
        assert!(last.starts_with('d') && last.len() == 17, "{id_a}");
    }
}
