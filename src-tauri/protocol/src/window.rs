//! Requests the app shell makes of the window: from the native menu, and
//! from a second launch handed over to the running instance.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The Tauri event name [`WindowRequest`]s are emitted on.
pub const WINDOW_REQUEST_CHANNEL: &str = "gatehouse://window-request";

/// Something the user asked of the app outside the page: a menu item, or
/// `gatehouse FOLDER` run while a window was already open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WindowRequest {
    /// Open this folder as a project (canonical path when it exists; as
    /// given otherwise, so adding it reports what is wrong with it).
    OpenFolder {
        /// The folder.
        path: String,
    },
    /// File → Open Folder…: pick a folder with the native dialog.
    PickFolder,
    /// Help → Keyboard Shortcuts: show the shortcuts overlay.
    ShowShortcuts,
}
