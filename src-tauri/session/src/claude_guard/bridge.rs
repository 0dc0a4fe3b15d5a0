//! The local socket between a guarded Claude Code's hook processes and the
//! running Gatehouse window: `<data dir>/claude-code.sock` (a Unix socket,
//! owner-only, never a TCP port) and `<data dir>/claude-code.token` (a
//! random token per app start, owner-only). A hook sends one JSON line
//! ([`BridgeRequest`]) and reads one back ([`BridgeReply`]).
//!
//! The app side ([`serve`]) refuses to start while another live instance
//! holds the socket, and replaces a stale socket a crashed app left. The
//! hook side ([`ask_window`]) is synchronous and bounded in time and size:
//! no window, a stale socket, a wrong token or no answer in time is an
//! error the hook turns into "no decision". While an ask waits, the app
//! watches the hook's side of the connection: when it closes (the hook's
//! own timeout, its process killed) the ask is dropped, which withdraws it
//! from the window ([`super::window`]).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, Either};
use gatehouse_protocol::claude_code::{BridgeReply, BridgeRequest, ClaudeCodeAsk};
use gatehouse_protocol::session::PermissionAnswer;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

/// The socket's file name in the data directory.
pub const SOCKET_FILE: &str = "claude-code.sock";

/// The token's file name in the data directory.
pub const TOKEN_FILE: &str = "claude-code.token";

/// The largest request line read (an ask carries a Write's whole content).
const MAX_REQUEST_BYTES: u64 = 9 * 1024 * 1024;

/// The largest reply line read.
const MAX_REPLY_BYTES: u64 = 1024 * 1024;

/// How long a hook waits to connect and to send its ask.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// What the window does with an ask: show it and resolve with the user's
/// answer, or `None` when it goes unanswered (dismissed, window closed).
pub type AskHandler =
    Arc<dyn Fn(ClaudeCodeAsk) -> BoxFuture<'static, Option<PermissionAnswer>> + Send + Sync>;

/// Why the socket could not be served.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// Another Gatehouse window answers on the socket already.
    #[error("another Gatehouse window already answers Claude Code on {0}; this one does not")]
    AlreadyRunning(PathBuf),
    /// A file operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

/// The served socket; dropping it stops serving and removes the socket and
/// token files.
#[derive(Debug)]
pub struct BridgeHandle {
    socket: PathBuf,
    token_file: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for BridgeHandle {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.socket);
        let _ = std::fs::remove_file(&self.token_file);
    }
}

impl BridgeHandle {
    /// The socket's path.
    pub fn socket(&self) -> &Path {
        &self.socket
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> BridgeError + '_ {
    move |source| BridgeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A fresh random token (256 bits, hex).
fn new_token() -> String {
    let (a, b) = (rand::random::<u128>(), rand::random::<u128>());
    format!("{a:032x}{b:032x}")
}

/// Writes the token owner-only: a new file with mode 0600, renamed over
/// the old one.
fn write_token(path: &Path, token: &str) -> Result<(), BridgeError> {
    let tmp = path.with_extension("token.tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io(&tmp))?;
    file.write_all(token.as_bytes()).map_err(io(&tmp))?;
    file.sync_all().map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// Serves the socket in `data_dir`, answering each ask with `handler`.
/// Refused while another live instance serves it; a stale socket (nobody
/// listening) is replaced. Must run inside a tokio runtime.
pub async fn serve(data_dir: &Path, handler: AskHandler) -> Result<BridgeHandle, BridgeError> {
    std::fs::create_dir_all(data_dir).map_err(io(data_dir))?;
    let socket = data_dir.join(SOCKET_FILE);
    let token_file = data_dir.join(TOKEN_FILE);
    if socket.exists() {
        if UnixStream::connect(&socket).await.is_ok() {
            return Err(BridgeError::AlreadyRunning(socket));
        }
        // A crashed app's socket: nobody listens on it.
        std::fs::remove_file(&socket).map_err(io(&socket))?;
    }
    let listener = UnixListener::bind(&socket).map_err(io(&socket))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .map_err(io(&socket))?;
    let token = new_token();
    write_token(&token_file, &token)?;
    let token = Arc::new(token);
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let (handler, token) = (Arc::clone(&handler), Arc::clone(&token));
            tokio::spawn(async move {
                if let Err(e) = answer_one(stream, &token, &handler).await {
                    tracing::warn!(target: "claude_code_bridge", "a Claude Code ask failed: {e}");
                }
            });
        }
    });
    Ok(BridgeHandle {
        socket,
        token_file,
        task,
    })
}

async fn answer_one(stream: UnixStream, token: &str, handler: &AskHandler) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    let mut reader = tokio::io::BufReader::new(read.take(MAX_REQUEST_BYTES));
    reader.read_line(&mut line).await?;
    let reply = match serde_json::from_str::<BridgeRequest>(&line) {
        Err(e) => BridgeReply::Unanswered(format!("not an ask: {e}")),
        Ok(request) if request.token != token => {
            BridgeReply::Unanswered("wrong token: not this app start's".into())
        }
        Ok(request) => {
            let asked = handler(request.ask);
            let closed = hung_up(reader.into_inner().into_inner());
            match futures::future::select(asked, std::pin::pin!(closed)).await {
                Either::Left((Some(answer), _)) => BridgeReply::Answer(answer),
                Either::Left((None, _)) => {
                    BridgeReply::Unanswered("nobody answered in Gatehouse".into())
                }
                // The hook gave up (its own timeout) or its process ended:
                // dropping the ask withdraws it from the window, and there
                // is nobody to reply to.
                Either::Right(((), _)) => return Ok(()),
            }
        }
    };
    let mut text = serde_json::to_string(&reply).map_err(std::io::Error::other)?;
    text.push('\n');
    write.write_all(text.as_bytes()).await?;
    write.shutdown().await
}

/// Resolves when the hook's side of the connection is done: end of file
/// (it closed the socket or its process ended), an error, or anything more
/// after its one request line (not the protocol: treated as gone too).
async fn hung_up(mut read: tokio::net::unix::OwnedReadHalf) {
    let mut byte = [0_u8; 1];
    let _ = read.read(&mut byte).await;
}

/// Asks the window serving `data_dir`'s socket and waits at most `timeout`
/// for the user's answer. Every way of not getting one (no window, a stale
/// socket, a token that does not match, a timeout, a dismissed ask) is an
/// error saying which.
pub fn ask_window(
    data_dir: &Path,
    ask: &ClaudeCodeAsk,
    timeout: Duration,
) -> Result<PermissionAnswer, String> {
    let socket = data_dir.join(SOCKET_FILE);
    let token_file = data_dir.join(TOKEN_FILE);
    let mut token = String::new();
    std::fs::File::open(&token_file)
        .and_then(|f| f.take(256).read_to_string(&mut token))
        .map_err(|e| {
            format!(
                "the Gatehouse window is not running ({}: {e})",
                token_file.display()
            )
        })?;
    let mut stream = std::os::unix::net::UnixStream::connect(&socket).map_err(|e| {
        format!(
            "the Gatehouse window is not running ({}: {e})",
            socket.display()
        )
    })?;
    let request = BridgeRequest {
        token: token.trim().to_owned(),
        ask: ask.clone(),
    };
    let mut line = serde_json::to_string(&request).map_err(|e| e.to_string())?;
    line.push('\n');
    stream
        .set_write_timeout(Some(CONNECT_TIMEOUT))
        .and_then(|()| stream.write_all(line.as_bytes()))
        .map_err(|e| format!("sending the ask to the window: {e}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let mut reply = String::new();
    BufReader::new((&stream).take(MAX_REPLY_BYTES))
        .read_line(&mut reply)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => format!(
                "no answer from the window within {} s",
                timeout.as_secs_f64()
            ),
            _ => format!("reading the window's answer: {e}"),
        })?;
    match serde_json::from_str::<BridgeReply>(&reply) {
        Ok(BridgeReply::Answer(answer)) => Ok(answer),
        Ok(BridgeReply::Unanswered(why)) => Err(format!("the window did not answer: {why}")),
        Err(e) => Err(format!("the window's reply is not an answer ({e})")),
    }
}
