//! Projects (folders the user works in) and facts about the running app.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A folder the user opened in Gatehouse, as stored in SQLite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Project {
    /// Row id, stable for the life of the database.
    pub id: i64,
    /// Canonical absolute path of the folder.
    pub path: String,
    /// Display name (the folder's last path component).
    pub name: String,
    /// When the project was first added, in milliseconds since the Unix epoch.
    pub added_at_ms: i64,
    /// When the project was last opened, in milliseconds since the Unix epoch.
    pub last_opened_ms: i64,
    /// When the user trusted the project (its settings' allow rules apply
    /// only then; its deny and ask rules always do), in milliseconds since
    /// the Unix epoch; `None` while it is not trusted.
    pub trusted_at_ms: Option<i64>,
    /// Whether the folder has project settings (`.claude/settings.json` or
    /// `.claude/settings.local.json`), so trusting it would change anything.
    pub has_project_settings: bool,
}

/// Facts about the running backend, shown in the UI and used by the smoke test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AppInfo {
    /// The Gatehouse version (the crate version).
    pub version: String,
    /// The data directory in use (platform default or `GATEHOUSE_DATA_DIR`).
    pub data_dir: String,
    /// Path of the SQLite database inside the data directory.
    pub database_path: String,
    /// True when the app was launched by `cargo xtask run --smoke`: the UI
    /// reports back with `smoke_report` once it has loaded.
    pub smoke: bool,
    /// Why the database could not be opened (damaged, from a newer
    /// Gatehouse, unwritable), if it could not. The UI shows it and touches
    /// nothing; the file is left as it was.
    pub database_error: Option<String>,
    /// The folder named on the command line (`gatehouse FOLDER`), for the
    /// window to open at start; canonical when it exists, as given when not
    /// (opening it then says what is wrong).
    pub launch_folder: Option<String>,
}
