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

/// An HTTP server's URL as messages show it: without the user info, query
/// and fragment, where a key put in the URL (`?apiKey=${KEY}`, expanded
/// from the environment) would be. States and their messages are stored
/// and shown, so they never carry it.
pub(crate) fn shown_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return "the server's URL".into();
    };
    let hidden = parsed.query().is_some()
        || parsed.fragment().is_some()
        || !parsed.username().is_empty()
        || parsed.password().is_some();
    parsed.set_query(None);
    parsed.set_fragment(None);
    // Only fails for URLs that cannot have user info (no host).
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    let mut shown = parsed.to_string();
    if hidden {
        shown.push_str(" (its query and user info not shown)");
    }
    shown
}

/// `message` (a connection error, which may quote the URL) with `url`, as
/// written and as parsed, replaced by [`shown_url`].
pub(crate) fn without_url(message: &str, url: &str) -> String {
    let shown = shown_url(url);
    let mut out = message.replace(url, &shown);
    if let Ok(parsed) = url::Url::parse(url) {
        let normalised = parsed.to_string();
        if normalised != shown {
            out = out.replace(&normalised, &shown);
        }
    }
    out
}

/// `message` with each of `secrets` (the keychain values a server was
/// given) replaced, so that a server that prints them does not have them
/// stored with its state.
pub(crate) fn without_secrets(message: &str, secrets: &[String]) -> String {
    secrets
        .iter()
        .filter(|s| !s.is_empty())
        .fold(message.to_owned(), |m, s| {
            m.replace(s.as_str(), "[a keychain secret]")
        })
}

#[cfg(test)]
mod url_tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_query_fragment_or_user_info() {
        assert_eq!(
            shown_url("http://127.0.0.1:8/mcp"),
            "http://127.0.0.1:8/mcp"
        );
        assert_eq!(
            shown_url("https://u:pw@mcp.example.com/mcp?apiKey=k3y#x"),
            "https://mcp.example.com/mcp (its query and user info not shown)"
        );
        assert_eq!(shown_url("not a url ?key=k3y"), "the server's URL");
        let message = without_url(
            "error sending request for url (https://mcp.example.com/mcp?apiKey=k3y)",
            "https://mcp.example.com/mcp?apiKey=k3y",
        );
        assert!(!message.contains("k3y"), "{message}");
    }
}
