//! [`ClientError`]: why talking to a coordinator failed. Its own type, not the
//! command line's error, so that the worker can use the client too; the binaries
//! turn it into their one-line error through its `Display`, which is the message
//! the user reads.

use std::fmt;

/// A failure of the client side of a coordinator.
#[derive(Debug)]
pub enum ClientError {
    /// The coordinator's URL, the TLS settings or the token cannot be used.
    Config(String),
    /// A file the client reads (a token, a PEM certificate or key) cannot be read
    /// or is not what it should be.
    File(String),
    /// The async runtime could not start.
    Runtime(std::io::Error),
    /// The coordinator answered a request with an error.
    Status {
        /// The gRPC status code.
        code: tonic::Code,
        /// The coordinator's message.
        message: String,
    },
    /// The job ended other than done: cancelled or failed (`state`, e.g.
    /// `failed`, from [`crate::job::state_name`]), with the coordinator's message.
    JobEnded {
        id: u64,
        state: String,
        message: String,
    },
    /// The job could not be followed any longer (the coordinator stayed away).
    Lost {
        id: u64,
        /// The last error, or that the stream ended.
        why: String,
    },
    /// A job was asked for with nets other than the default, which workers do not
    /// have.
    NotDefaultNets,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Config(m) | ClientError::File(m) => f.write_str(m),
            ClientError::Runtime(e) => write!(f, "cannot start the async runtime: {e}"),
            ClientError::Status { code, message } => write!(f, "coordinator: {message} ({code:?})"),
            ClientError::JobEnded { id, state, message } => {
                write!(f, "job {id} {state}: {message}")
            }
            ClientError::Lost { id, why } => write!(f, "lost job {id} on the coordinator: {why}"),
            ClientError::NotDefaultNets => {
                f.write_str("workers run the default nets: use --net default with --coordinator")
            }
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Runtime(e) => Some(e),
            _ => None,
        }
    }
}

/// A gRPC failure keeps its code and message (the rest of a status, its details
/// and metadata, says nothing to the user and would make every result large).
impl From<tonic::Status> for ClientError {
    fn from(s: tonic::Status) -> Self {
        ClientError::Status {
            code: s.code(),
            message: s.message().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gRPC failure reads as it did when the command line formatted it.
    #[test]
    fn a_status_reads_as_one_line() {
        let e = ClientError::from(tonic::Status::not_found("no job 7"));
        assert_eq!(e.to_string(), "coordinator: no job 7 (NotFound)");
    }
}
