//! The error every text parser in the engine returns: one line that names what is
//! wrong, ready for the CLI to print with exit code 2.

use std::fmt;

/// A rejected piece of text input (an ID, a dice string, a move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(String);

impl ParseError {
    /// An error with the given one-line message.
    pub fn new(message: impl Into<String>) -> Self {
        ParseError(message.into())
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}
