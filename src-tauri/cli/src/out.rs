//! Lines on stdout, for scripts: a reader that goes away (`| head -1`)
//! ends the command quietly, as `rg` does, instead of a panic.
//!
//! `println!` panics when stdout is a closed pipe (Rust ignores SIGPIPE, so
//! the write fails with `BrokenPipe`). Every line goes through [`line`]
//! instead, whose error carries the `io::Error`; `main` recognises it with
//! [`reader_gone`] and exits with status 0 and nothing on stderr.

use std::fmt;
use std::io::{self, Write};

/// Writes one line (the text and a newline) to stdout. Stdout is line
/// buffered, so a closed pipe is noticed at this line, not at exit.
pub fn line(text: fmt::Arguments<'_>) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(text)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(|e| anyhow::Error::new(e).context("writing to stdout"))
}

/// Whether `err` is stdout's reader having gone away.
pub fn reader_gone(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `println!` for this crate: one line to stdout through [`line`],
/// returning early with its error.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::line(format_args!($($arg)*))?
    };
}
pub(crate) use outln;
