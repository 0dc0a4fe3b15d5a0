//! The earlier part of a long resumed session: a resumed handle carries only
//! the session's last turns (`SessionHandle::earlier_events` says how many
//! stored events precede them), and the UI fetches the rest here once the
//! last screen is on show. Logic lives in the store.

use gatehouse_protocol::session::{SessionEventsBeforeArgs, StoredEvents};
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, with_store};

#[tauri::command]
pub(crate) async fn session_events_before(
    state: State<'_, AppState>,
    args: SessionEventsBeforeArgs,
) -> CommandResult<StoredEvents> {
    with_store(&state, move |store| {
        if args.subagents == Some(true) {
            store.family_events_head(&args.session_id, args.count)
        } else {
            store.stored_events(&args.session_id, Some(args.count))
        }
    })
    .await
}
