//! The bridge inside the sandbox: a loopback TCP port of the sandbox's
//! network namespace forwarded to the [`crate::proxy`]'s Unix socket, so
//! programs that only speak `HTTP_PROXY=http://127.0.0.1:PORT` reach it.
//!
//! bwrap runs the bridge in place of the shell: it listens on
//! [`BRIDGE_PORT`], starts the shell as its child with the same stdio, and
//! exits with the shell's status (`128 + signal` when a signal ended it),
//! which ends the sandbox and with it every process left inside.
//!
//! The bridge is no boundary: a command can reach the socket itself or
//! stop the bridge; the proxy on the host decides every connection. It
//! speaks no protocol, copying bytes both ways with plain threads (at most
//! [`MAX_BRIDGED`] connections at once), so it needs no runtime.
//!
//! The code runs as a hidden first argument ([`BRIDGE_ARG`]) of a
//! Gatehouse binary that calls [`run_if_requested`] first thing in `main`
//! (the app, the CLI, and this crate's `gatehouse-net-bridge` for tests).

use std::ffi::OsString;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The hidden first argument that makes a Gatehouse binary the bridge.
pub const BRIDGE_ARG: &str = "__gatehouse-sandbox-net-bridge";
/// The loopback port inside the sandbox (its own namespace: always free).
pub const BRIDGE_PORT: u16 = 3128;
/// Where the proxy's socket is bound inside the sandbox.
pub const SOCKET_IN_SANDBOX: &str = "/tmp/.gatehouse-proxy.sock";
/// Connections bridged at once; more are closed at once.
pub const MAX_BRIDGED: usize = 64;

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Call first thing in `main`. When the process was started as the bridge
/// (`<exe> __gatehouse-sandbox-net-bridge …`), runs it and returns its exit
/// code; otherwise records that this executable can serve as the bridge
/// (see [`program`]) and returns `None`.
pub fn run_if_requested() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == BRIDGE_ARG) {
        return Some(run(args.collect()));
    }
    if let Ok(exe) = std::env::current_exe() {
        let _ = PROGRAM.set(exe);
    }
    None
}

/// The executable to start as the bridge: this one, when its `main` called
/// [`run_if_requested`]; else `None` (then allowed domains cannot be
/// served and the network stays off).
pub fn program() -> Option<PathBuf> {
    PROGRAM.get().cloned()
}

/// The bridge's arguments after [`BRIDGE_ARG`]: `<socket> <port> --
/// <program> <args…>`.
pub fn args(socket: &str, port: u16) -> Vec<OsString> {
    vec![
        BRIDGE_ARG.into(),
        socket.into(),
        port.to_string().into(),
        "--".into(),
    ]
}

/// Runs the bridge with `args` (`<socket> <port> -- <program> <args…>`);
/// the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    match bridge(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gatehouse sandbox network bridge: {e}");
            125
        }
    }
}

fn bridge(args: Vec<OsString>) -> Result<i32, String> {
    let mut args = args.into_iter();
    let (Some(socket), Some(port), Some(dashes)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: <socket> <port> -- <program> <args…>".into());
    };
    if dashes != "--" {
        return Err("usage: <socket> <port> -- <program> <args…>".into());
    }
    let port: u16 = port
        .to_str()
        .and_then(|p| p.parse().ok())
        .ok_or("the port is not a number")?;
    let program = args.next().ok_or("no program to run")?;
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let socket = PathBuf::from(socket);
    std::thread::spawn(move || accept(&listener, &socket));
    let status = std::process::Command::new(&program)
        .args(args)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
    Ok(status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1))
}

static BRIDGED: AtomicUsize = AtomicUsize::new(0);

fn accept(listener: &TcpListener, socket: &std::path::Path) {
    for stream in listener.incoming() {
        let Ok(tcp) = stream else {
            // Out of fds, say: do not spin.
            std::thread::sleep(std::time::Duration::from_millis(10));
            continue;
        };
        if BRIDGED.fetch_add(1, Ordering::SeqCst) >= MAX_BRIDGED {
            BRIDGED.fetch_sub(1, Ordering::SeqCst);
            continue;
        }
        let socket = socket.to_path_buf();
        std::thread::spawn(move || {
            if let Ok(unix) = UnixStream::connect(&socket) {
                splice(tcp, unix);
            }
            BRIDGED.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

/// Copies both ways until both directions end.
fn splice(tcp: TcpStream, unix: UnixStream) {
    let (Ok(mut tcp_r), Ok(mut unix_w)) = (tcp.try_clone(), unix.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut tcp_r, &mut unix_w);
        let _ = unix_w.shutdown(Shutdown::Write);
    });
    let (mut unix_r, mut tcp_w) = (unix, tcp);
    let _ = std::io::copy(&mut unix_r, &mut tcp_w);
    let _ = tcp_w.shutdown(Shutdown::Write);
    let _ = up.join();
}
