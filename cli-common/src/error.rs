//! [`CliError`]: every failure on user input, printed as one line; the binaries
//! exit with code 2 on it.

use std::fmt;

/// A one-line error for the user.
#[derive(Debug)]
pub struct CliError(String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

impl CliError {
    /// An error with the given message.
    pub fn msg(m: impl Into<String>) -> Self {
        CliError(m.into())
    }
}
