//! The earlier part of a long resumed session: a resumed handle carries only
//! the session's last turns (`SessionHandle::earlier_events` says how many
//! stored events precede them), and the UI fetches the rest here once the
//! last screen is on show. Logic lives in the store.

use gatehouse_protocol::event::Event;
use gatehouse_protocol::session::SessionEventsBeforeArgs;
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, error, store};

#[tauri::command(async)]
pub(crate) fn session_events_before(
    state: State<'_, AppState>,
    args: SessionEventsBeforeArgs,
) -> CommandResult<Vec<Event>> {
    Ok(store(&state)?
        .session_events_head(&args.session_id, args.count)
        .map_err(error)?
        .0)
}
