//! The local socket between a guarded Claude Code's hooks and the window
//! (issue 25): a real Unix socket in a real data directory, owner-only
//! files, a token per start, one live instance, stale sockets replaced,
//! and every way of getting no answer reported as such.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_protocol::claude_code::{
    BridgeRequest, ClaudeCodeAsk, ClaudeCodeAskWithdrawn, ClaudeCodeAskWithdrawnReason,
};
use gatehouse_protocol::permission::DecisionReason;
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_session::claude_guard::bridge::{
    AskHandler, BridgeError, SOCKET_FILE, TOKEN_FILE, ask_window, serve,
};
use serde_json::json;
use tokio::io::AsyncWriteExt;

fn ask() -> ClaudeCodeAsk {
    ClaudeCodeAsk {
        session_id: "s".into(),
        tool_use_id: "toolu_1".into(),
        tool_name: "Edit".into(),
        input: json!({"file_path": "/p/a.txt", "old_string": "a", "new_string": "b"}),
        project: "/p".into(),
        reason: DecisionReason::Default {
            message: "asks".into(),
        },
        trace: Vec::new(),
        suggestions: vec!["Edit(/a.txt)".into()],
        preview: None,
    }
}

fn answering(answer: Option<PermissionAnswer>) -> AskHandler {
    Arc::new(move |asked: ClaudeCodeAsk| {
        assert_eq!(asked.tool_name, "Edit");
        let answer = answer.clone();
        Box::pin(async move { answer })
    })
}

async fn ask_blocking(dir: PathBuf, timeout: Duration) -> Result<PermissionAnswer, String> {
    tokio::task::spawn_blocking(move || ask_window(&dir, &ask(), timeout))
        .await
        .unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn an_ask_reaches_the_window_and_its_answer_comes_back_over_owner_only_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_path_buf();
    let handle = serve(
        &data,
        answering(Some(PermissionAnswer::Deny {
            feedback: Some("use the staging branch".into()),
        })),
    )
    .await
    .unwrap();
    assert_eq!(mode(&data.join(SOCKET_FILE)), 0o600);
    assert_eq!(mode(&data.join(TOKEN_FILE)), 0o600);
    let token = std::fs::read_to_string(data.join(TOKEN_FILE)).unwrap();
    assert_eq!(token.len(), 64);

    let answer = ask_blocking(data.clone(), Duration::from_secs(30)).await;
    assert_eq!(
        answer,
        Ok(PermissionAnswer::Deny {
            feedback: Some("use the staging branch".into())
        })
    );

    // A token of another start is refused.
    std::fs::write(data.join(TOKEN_FILE), "0".repeat(64)).unwrap();
    let refused = ask_blocking(data.clone(), Duration::from_secs(30)).await;
    assert!(refused.unwrap_err().contains("wrong token"));

    drop(handle);
    assert!(!data.join(SOCKET_FILE).exists());
    assert!(!data.join(TOKEN_FILE).exists());
    let gone = ask_blocking(data.clone(), Duration::from_secs(30)).await;
    assert!(
        gone.unwrap_err()
            .contains("the Gatehouse window is not running")
    );
}

#[tokio::test]
async fn a_second_instance_is_refused_and_a_crashed_ones_socket_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_path_buf();
    let first = serve(&data, answering(Some(PermissionAnswer::AllowOnce)))
        .await
        .unwrap();
    let second = serve(&data, answering(None)).await;
    assert!(matches!(second, Err(BridgeError::AlreadyRunning(_))));
    // The first still answers.
    assert_eq!(
        ask_blocking(data.clone(), Duration::from_secs(30)).await,
        Ok(PermissionAnswer::AllowOnce)
    );
    drop(first);

    // A crashed app leaves its socket file with nobody listening.
    let stale = std::os::unix::net::UnixListener::bind(data.join(SOCKET_FILE)).unwrap();
    drop(stale);
    assert!(data.join(SOCKET_FILE).exists());
    let gone = ask_blocking(data.clone(), Duration::from_secs(30)).await;
    assert!(gone.unwrap_err().contains("not running"));
    let _new = serve(&data, answering(Some(PermissionAnswer::AllowForSession)))
        .await
        .unwrap();
    assert_eq!(
        ask_blocking(data.clone(), Duration::from_secs(30)).await,
        Ok(PermissionAnswer::AllowForSession)
    );
}

#[tokio::test]
async fn a_dismissed_ask_and_a_window_that_never_answers_give_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_path_buf();
    let handle = serve(&data, answering(None)).await.unwrap();
    let dismissed = ask_blocking(data.clone(), Duration::from_secs(30)).await;
    assert!(dismissed.unwrap_err().contains("nobody answered"));
    drop(handle);

    let silent: AskHandler = Arc::new(|_| Box::pin(std::future::pending()));
    let _handle = serve(&data, silent).await.unwrap();
    let timed_out = ask_blocking(data.clone(), Duration::from_secs(1)).await;
    assert!(
        timed_out
            .unwrap_err()
            .contains("no answer from the window within 1 s"),
        "the hook gives up; Claude Code asks in its terminal"
    );
}

mod window {
    //! The window's pending asks: an ask shown through the socket waits for
    //! the modal's answer, a dismissed or unanswered one goes back without
    //! an answer (paused tokio time: no wall clock).

    use std::sync::Mutex;

    use gatehouse_session::claude_guard::window::PendingAsks;

    use super::*;

    #[tokio::test]
    async fn the_modals_answer_goes_back_through_the_socket() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().to_path_buf();
        let asks = Arc::new(PendingAsks::default());
        let shown = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&shown);
        let handler = asks.handler(
            move |id, ask: ClaudeCodeAsk| kept.lock().unwrap().push((id, ask.tool_use_id)),
            |withdrawn| panic!("an answered ask was withdrawn: {withdrawn:?}"),
            Duration::from_secs(300),
        );
        let _bridge = serve(&data, handler).await.unwrap();
        let asking = tokio::spawn(ask_blocking(data.clone(), Duration::from_secs(60)));
        // The ask reaches the window (the app emits it to the modal).
        let id = loop {
            if let Some((id, _)) = shown.lock().unwrap().first().cloned() {
                break id;
            }
            tokio::task::yield_now().await;
        };
        assert_eq!(asks.pending_ids(), std::slice::from_ref(&id));
        asks.answer(&id, Some(PermissionAnswer::AllowOnce)).unwrap();
        assert_eq!(asking.await.unwrap(), Ok(PermissionAnswer::AllowOnce));
        assert!(asks.pending_ids().is_empty());
        let again = asks.answer(&id, Some(PermissionAnswer::AllowOnce));
        assert!(again.unwrap_err().contains("no longer waiting"));
    }

    #[tokio::test(start_paused = true)]
    async fn an_ask_nobody_answers_in_time_or_that_is_dismissed_gets_no_answer() {
        let asks = Arc::new(PendingAsks::default());
        let withdrawn = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&withdrawn);
        let handler = asks.handler(
            |_, _| {},
            move |w| kept.lock().unwrap().push(w),
            Duration::from_secs(300),
        );
        let waiting = tokio::spawn(handler(ask()));
        tokio::task::yield_now().await;
        assert_eq!(asks.pending_ids().len(), 1);
        let id = asks.pending_ids().pop().unwrap();
        tokio::time::advance(Duration::from_secs(301)).await;
        assert_eq!(waiting.await.unwrap(), None);
        assert!(asks.pending_ids().is_empty());
        // The modal is told to drop it.
        assert_eq!(
            *withdrawn.lock().unwrap(),
            vec![ClaudeCodeAskWithdrawn {
                request_id: id,
                reason: ClaudeCodeAskWithdrawnReason::TimedOut
            }]
        );

        let dismissed = tokio::spawn(handler(ask()));
        tokio::task::yield_now().await;
        let id = asks.pending_ids().pop().unwrap();
        asks.answer(&id, None).unwrap();
        assert_eq!(dismissed.await.unwrap(), None);
        // Dismissed by the modal itself: nothing more to withdraw.
        assert_eq!(withdrawn.lock().unwrap().len(), 1);
    }

    /// What the window saw, in order.
    #[derive(Debug, PartialEq)]
    enum Seen {
        Shown(String),
        Withdrawn(ClaudeCodeAskWithdrawn),
    }

    #[tokio::test]
    async fn an_ask_whose_hook_connection_closes_is_withdrawn_from_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().to_path_buf();
        let asks = Arc::new(PendingAsks::default());
        let (tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
        let on_withdraw = tx.clone();
        let handler = asks.handler(
            move |id, _| tx.send(Seen::Shown(id)).unwrap(),
            move |w| on_withdraw.send(Seen::Withdrawn(w)).unwrap(),
            // Far longer than the test: only the hang-up can end the ask.
            Duration::from_secs(3600),
        );
        let _bridge = serve(&data, handler).await.unwrap();
        // A hook as `ask_window` speaks it: one request line on the real
        // socket with this start's token, then waiting for the reply.
        let token = std::fs::read_to_string(data.join(TOKEN_FILE)).unwrap();
        let mut hook = tokio::net::UnixStream::connect(data.join(SOCKET_FILE))
            .await
            .unwrap();
        let mut line = serde_json::to_string(&BridgeRequest { token, ask: ask() }).unwrap();
        line.push('\n');
        hook.write_all(line.as_bytes()).await.unwrap();
        let Some(Seen::Shown(id)) = seen.recv().await else {
            panic!("the ask was not shown first");
        };
        assert_eq!(asks.pending_ids(), std::slice::from_ref(&id));
        // The hook gives up (its own timeout, its process killed).
        drop(hook);
        assert_eq!(
            seen.recv().await.unwrap(),
            Seen::Withdrawn(ClaudeCodeAskWithdrawn {
                request_id: id.clone(),
                reason: ClaudeCodeAskWithdrawnReason::HookGone,
            })
        );
        assert!(asks.pending_ids().is_empty());
        let late = asks.answer(&id, Some(PermissionAnswer::AllowOnce));
        assert!(late.unwrap_err().contains("no longer waiting"));
    }
}
