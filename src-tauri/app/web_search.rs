//! Handlers of Settings → Web search: each maps onto
//! `gatehouse_session::web_search_settings`, which holds the logic. The
//! settings file and the keychain are used on one blocking thread (the
//! keychain talks to D-Bus or the kernel). Sessions read the provider when
//! they start.

use gatehouse_protocol::command::NoArgs;
use gatehouse_protocol::web::{SaveWebSearchArgs, WebSearchSettings};
use gatehouse_session::keys::keychain;
use gatehouse_session::web_search_settings as settings;
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, blocking, home};

#[tauri::command]
pub(crate) async fn web_search_settings(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<WebSearchSettings> {
    let NoArgs {} = args;
    let home = home(&state);
    blocking(move || settings::web_search_settings(&home, &keychain())).await
}

#[tauri::command]
pub(crate) async fn save_web_search_settings(
    state: State<'_, AppState>,
    args: SaveWebSearchArgs,
) -> CommandResult<WebSearchSettings> {
    let home = home(&state);
    blocking(move || settings::save_web_search_settings(&home, &args, &keychain())).await
}
