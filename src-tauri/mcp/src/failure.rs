//! Why a stdio server could not be connected, in the user's terms (issue
//! 17): rmcp's errors name its own types (`Send message error Transport
//! [rmcp::transport::async_rw::AsyncRwTransport<…>] error: Broken pipe`);
//! what the user needs is what the server did (exited, with which status,
//! saying what on stderr) and what that means.

use std::process::ExitStatus;

use rmcp::service::ClientInitializeError;

/// What went wrong in the MCP handshake, as far as the user is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandshakeFailure {
    /// The process ended before it answered.
    Exited {
        /// How it ended (`exit status 1`, `signal 9`), when known.
        status: Option<String>,
    },
    /// It closed its side of the connection but did not exit (yet).
    Closed,
    /// It answered with something that is not an MCP initialize response.
    NotMcp,
    /// It answered the handshake with a JSON-RPC error.
    Refused {
        /// The server's own message.
        message: String,
    },
    /// It speaks no protocol version this client does.
    Incompatible,
    /// Anything else (the library's message).
    Other(String),
}

/// How a process ended, in words.
fn status_text(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("signal {signal}");
        }
    }
    status.to_string()
}

impl HandshakeFailure {
    /// Classifies `error`; `exited` is the process's end if it has ended.
    pub fn classify(error: &ClientInitializeError, exited: Option<ExitStatus>) -> Self {
        match error {
            ClientInitializeError::TransportError { .. }
            | ClientInitializeError::ConnectionClosed(_) => match exited {
                Some(status) => Self::Exited {
                    status: Some(status_text(status)),
                },
                None => Self::Closed,
            },
            ClientInitializeError::ExpectedInitResponse(_)
            | ClientInitializeError::ExpectedInitResult(_)
            | ClientInitializeError::ConflictInitResponseId(..)
            | ClientInitializeError::UncorrelatedErrorResponse { .. } => Self::NotMcp,
            ClientInitializeError::JsonRpcError(e) => Self::Refused {
                message: e.message.to_string(),
            },
            ClientInitializeError::NoCompatibleProtocolVersion { .. } => Self::Incompatible,
            other => match exited {
                Some(status) => Self::Exited {
                    status: Some(status_text(status)),
                },
                None => Self::Other(other.to_string()),
            },
        }
    }

    /// The message for `command`, ending with the last lines of its
    /// stderr (`stderr_tail`, oldest first) when it wrote any.
    pub fn message(&self, command: &str, stderr_tail: &[String]) -> String {
        let what = match self {
            Self::Exited { status: Some(s) } => {
                format!("`{command}` exited ({s}) before it answered as an MCP server")
            }
            Self::Exited { status: None } => {
                format!("`{command}` exited before it answered as an MCP server")
            }
            Self::Closed => {
                format!("`{command}` closed its connection before it answered as an MCP server")
            }
            Self::NotMcp => format!(
                "`{command}` answered with something that is not an MCP response; is it an MCP server, and does it write only MCP messages to its output?"
            ),
            Self::Refused { message } => {
                format!("`{command}` refused the MCP handshake: {message}")
            }
            Self::Incompatible => format!(
                "`{command}` speaks no MCP protocol version Gatehouse supports; update the server"
            ),
            Self::Other(e) => format!("`{command}` did not complete the MCP handshake: {e}"),
        };
        let lines: Vec<&str> = stderr_tail
            .iter()
            .map(String::as_str)
            .filter(|l| !l.trim().is_empty())
            .collect();
        if lines.is_empty() {
            format!("{what}. It wrote nothing to its error output.")
        } else {
            let tail = &lines[lines.len().saturating_sub(5)..];
            format!("{what}. Its last error output: {}", tail.join(" | "))
        }
    }
}
