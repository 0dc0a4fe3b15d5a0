//! The in-sandbox half: install the notifying filter, hand its listener to
//! the host, exec the command.
//!
//! Runs in the helper binary as `__gatehouse-sandbox-exec <socket> <network> --
//! <program> <args…>`, after bwrap has made its mounts and loaded its own filter, so
//! bwrap's set-up is never trapped. libseccomp returns the listener as a
//! raw fd and the workspace forbids `unsafe`, so it is sent with `nix`'s
//! `sendmsg`, which takes raw fds (the kernel checks them).

use std::ffi::OsString;
use std::io::{IoSlice, Read as _};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;

use libseccomp::{
    ScmpAction, ScmpArch, ScmpArgCompare, ScmpCompareOp, ScmpFilterContext, ScmpSyscall,
};
use nix::sys::socket::{ControlMessage, MsgFlags, UnixAddr, sendmsg};

use super::{TRAPPED, WRITE_FLAGS, allowed_families, refused_family_rules};
use crate::NetworkPolicy;

/// The exit code when the command could not be started (as `env` and
/// `nohup` use).
const CANNOT_START: i32 = 125;

/// Runs `<socket> <network> -- <program> <args…>` (`<network>`: `off` or
/// `proxy`, the policy whose socket families are refused): never returns
/// on success (the process becomes the program); else the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    match exec(args) {
        Ok(never) => match never {},
        Err(e) => {
            eprintln!("gatehouse sandbox: cannot start the command: {e}");
            CANNOT_START
        }
    }
}

fn exec(args: Vec<OsString>) -> Result<std::convert::Infallible, String> {
    let mut args = args.into_iter();
    let socket = args
        .next()
        .ok_or("the first argument must be the host's socket")?;
    let network = match args.next().as_ref().and_then(|a| a.to_str()) {
        Some("off") => NetworkPolicy::Off,
        Some("proxy") => NetworkPolicy::Proxy,
        _ => return Err("the second argument must be the network policy (off or proxy)".into()),
    };
    if args.next().is_none_or(|a| a != "--") {
        return Err("expected `--` before the command".into());
    }
    let program = args.next().ok_or("no command after `--`")?;
    // Connected before the filter is loaded (connecting is not trapped,
    // but nothing before the host holds the listener may be).
    let host = UnixStream::connect(&socket).map_err(|e| {
        format!(
            "connecting to Gatehouse at {}: {e}",
            socket.to_string_lossy()
        )
    })?;
    let listener = install_filter(network)?;
    send_listener(host.as_raw_fd(), listener)?;
    // The host answers once it holds the listener and has closed its
    // socket, so the command can neither reach that socket nor make a
    // trapped call nobody answers; no answer (the host went away): nothing
    // runs.
    let mut ack = [0u8; 1];
    (&host)
        .read_exact(&mut ack)
        .map_err(|e| format!("waiting for Gatehouse to take the seccomp listener: {e}"))?;
    // Both are close-on-exec (std's sockets and the kernel's listener), so
    // the command inherits neither.
    drop(host);
    let e = std::process::Command::new(&program).args(args).exec();
    Err(format!("{}: {e}", program.to_string_lossy()))
}

/// The argument naming `network` for the helper.
pub fn network_arg(network: NetworkPolicy) -> &'static str {
    match network {
        NetworkPolicy::Off => "off",
        NetworkPolicy::Proxy => "proxy",
    }
}

/// The filter that notifies for [`TRAPPED`] and for sockets of the
/// families `network` does not allow (the supervisor refuses those, so
/// bwrap's own filter leaves them to this one).
pub fn filter(network: NetworkPolicy) -> Result<ScmpFilterContext, String> {
    let err = |what: &str, e: libseccomp::error::SeccompError| format!("{what}: {e}");
    let mut ctx = ScmpFilterContext::new(ScmpAction::Allow).map_err(|e| err("seccomp", e))?;
    let arch = ScmpArch::native();
    for t in TRAPPED {
        // A name this architecture lacks (`open` on aarch64) is skipped.
        let Ok(nr) = ScmpSyscall::from_name_by_arch(t.name, arch) else {
            continue;
        };
        match t.open_flags {
            Some(arg) => {
                let arg = u32::try_from(arg).map_err(|e| e.to_string())?;
                for flag in WRITE_FLAGS {
                    let cmp = ScmpArgCompare::new(arg, ScmpCompareOp::MaskedEqual(flag), flag);
                    ctx.add_rule_conditional(ScmpAction::Notify, nr, &[cmp])
                        .map_err(|e| err(t.name, e))?;
                }
            }
            None => {
                ctx.add_rule(ScmpAction::Notify, nr)
                    .map_err(|e| err(t.name, e))?;
            }
        }
    }
    let socket = ScmpSyscall::from_name_by_arch("socket", arch).map_err(|e| err("socket", e))?;
    for cmp in refused_family_rules(allowed_families(network)) {
        ctx.add_rule_conditional(ScmpAction::Notify, socket, &[cmp])
            .map_err(|e| err("socket", e))?;
    }
    Ok(ctx)
}

fn install_filter(network: NetworkPolicy) -> Result<RawFd, String> {
    let ctx = filter(network)?;
    ctx.load()
        .map_err(|e| format!("loading the seccomp filter: {e}"))?;
    ctx.get_notify_fd()
        .map_err(|e| format!("the seccomp listener: {e}"))
}

fn send_listener(socket: RawFd, listener: RawFd) -> Result<(), String> {
    let fds = [listener];
    let cmsg = [ControlMessage::ScmRights(&fds)];
    let iov = [IoSlice::new(b"L")];
    sendmsg::<UnixAddr>(socket, &iov, &cmsg, MsgFlags::empty(), None)
        .map_err(|e| format!("sending the seccomp listener to Gatehouse: {e}"))?;
    Ok(())
}
