//! Guarding Claude Code (issue 25), the window's side: serves the hook
//! processes' socket (`gatehouse_session::claude_guard::bridge`), shows
//! each ask in the permission modal (`CLAUDE_CODE_ASK_CHANNEL`), sends
//! the modal's answer back (`answer_claude_code_ask`), and tells the modal
//! to drop an ask whose hook went away or whose wait ran out
//! (`CLAUDE_CODE_ASK_WITHDRAWN_CHANNEL`); Settings → Claude Code's switch
//! and status (`claude_code_guard`, `set_claude_code_guard`, over
//! `gatehouse_session::claude_guard::{guard_view, set_guard}`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_protocol::claude_code::{
    AnswerClaudeCodeAskArgs, CLAUDE_CODE_ASK_CHANNEL, CLAUDE_CODE_ASK_WITHDRAWN_CHANNEL,
    ClaudeCodeAsk, ClaudeCodeAskShown, ClaudeCodeAskWithdrawn, ClaudeCodeGuard,
    ClaudeCodeGuardArgs, SetClaudeCodeGuardArgs,
};
use gatehouse_protocol::permission::rule_files;
use gatehouse_session::claude_guard::window::PendingAsks;
use gatehouse_session::claude_guard::{self, bridge};
use tauri::{AppHandle, Emitter as _, State};

use crate::AppState;
use crate::commands::{CommandResult, blocking, error, home};

/// How long the window keeps an ask: longer than any hook waits
/// (`GATEHOUSE_CLAUDE_CODE_ASK_SECS` is at most 590 s), so the hook's own
/// timeout always decides first and Claude Code then asks in its terminal.
const WINDOW_WAIT: Duration = Duration::from_secs(600);

/// The asks the window shows and has not answered.
#[derive(Default)]
pub(crate) struct ClaudeCodeAsks(Arc<PendingAsks>);

/// Serves the socket in `data_dir` for the life of the app (on `runtime`);
/// a second app instance, or a socket that cannot be made, is logged and
/// the hooks then find no window (Claude Code asks in its terminal).
pub(crate) fn serve(
    app: &AppHandle,
    asks: &ClaudeCodeAsks,
    data_dir: PathBuf,
    home: PathBuf,
    runtime: &tokio::runtime::Handle,
) {
    let withdrawn_to = app.clone();
    let withdraw = move |withdrawn: ClaudeCodeAskWithdrawn| {
        if let Err(e) = withdrawn_to.emit(CLAUDE_CODE_ASK_WITHDRAWN_CHANNEL, &withdrawn) {
            eprintln!("gatehouse: could not withdraw a Claude Code ask from the window: {e}");
        }
    };
    let app = app.clone();
    let show = move |request_id: String, ask: ClaudeCodeAsk| {
        let shown = ClaudeCodeAskShown {
            rule_files: rule_files(std::path::Path::new(&ask.project), &home),
            request_id,
            ask,
        };
        if let Err(e) = app.emit(CLAUDE_CODE_ASK_CHANNEL, &shown) {
            eprintln!("gatehouse: could not show a Claude Code ask in the window: {e}");
        }
    };
    let handler = asks.0.handler(show, withdraw, WINDOW_WAIT);
    runtime.spawn(async move {
        match bridge::serve(&data_dir, handler).await {
            // Held until the runtime stops with the app: dropping the
            // handle removes the socket and its token.
            Ok(_handle) => std::future::pending::<()>().await,
            Err(e) => eprintln!("gatehouse: Claude Code asks will not reach this window: {e}"),
        }
    });
}

#[tauri::command]
pub(crate) async fn answer_claude_code_ask(
    asks: State<'_, ClaudeCodeAsks>,
    args: AnswerClaudeCodeAskArgs,
) -> CommandResult<()> {
    asks.0.answer(&args.request_id, args.answer).map_err(error)
}

/// The `gatehouse-cli` beside this app, or why there is none.
fn cli() -> Result<PathBuf, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("the app could not find its own path: {e}"))?;
    claude_guard::cli_beside(&exe)
}

#[tauri::command]
pub(crate) async fn claude_code_guard(
    state: State<'_, AppState>,
    args: ClaudeCodeGuardArgs,
) -> CommandResult<ClaudeCodeGuard> {
    let home = home(&state);
    let data_dir = PathBuf::from(&state.info.data_dir);
    // Reads settings files (and canonicalizes paths): a blocking thread.
    blocking(move || {
        let project = args.project.map(PathBuf::from);
        Ok::<_, String>(claude_guard::guard_view(
            &home,
            project.as_deref(),
            &data_dir,
            &cli(),
        ))
    })
    .await
}

#[tauri::command]
pub(crate) async fn set_claude_code_guard(
    state: State<'_, AppState>,
    args: SetClaudeCodeGuardArgs,
) -> CommandResult<ClaudeCodeGuard> {
    let home = home(&state);
    let data_dir = PathBuf::from(&state.info.data_dir);
    blocking(move || claude_guard::set_guard(&args, &home, &data_dir, &cli())).await
}
