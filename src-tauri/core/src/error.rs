//! Errors a tool reports, and how they reach the model.

/// Why a tool's `validate_input` or `call` failed.
///
/// Every variant becomes an error `tool_result` for the model (its
/// `Display` text is the message); none of them aborts the turn.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The input is well-formed but unacceptable (relative path, file not
    /// found, no-op edit…). Reported by `validate_input`.
    #[error("{0}")]
    InvalidInput(String),
    /// The call ran and failed.
    #[error("{0}")]
    Failed(String),
    /// The call noticed cancellation and stopped.
    #[error("cancelled")]
    Cancelled,
    /// The call noticed cancellation, stopped, and says what it had done
    /// by then (e.g. a command's output so far); the model gets this text
    /// after the reason for the cancellation.
    #[error("cancelled: {0}")]
    CancelledWithOutput(String),
    /// The call ran past its time limit and was stopped (Bash's `timeout`,
    /// an MCP server's call timeout); the text says what happened and what
    /// the call had produced by then. Reported as `timed_out`.
    #[error("{0}")]
    TimedOut(String),
    /// An I/O error, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What the tool was doing.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl ToolError {
    /// A failure with the given message.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed(message.into())
    }

    /// An invalid-input error with the given message.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidInput(message.into())
    }

    /// Wraps an I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}
