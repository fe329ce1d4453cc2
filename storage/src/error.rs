//! Store errors, each with a message an operator can act on.

use std::fmt;

/// Why the store could not do what was asked.
#[derive(Debug)]
pub enum StoreError {
    /// sled failed (I/O, corruption, another process holding the directory).
    Sled(sled::Error),
    /// A record could not be (de)serialized.
    Json(serde_json::Error),
    /// The directory holds a store of another layout.
    Schema { found: Option<u32>, expected: u32 },
    /// A key or value has an impossible shape.
    Corrupt(String),
    /// Another store handle (usually another coordinator process) holds the directory.
    Locked(String),
}

impl PartialEq for StoreError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Sled(e) => write!(f, "store: {e}"),
            StoreError::Json(e) => write!(f, "store record: {e}"),
            StoreError::Schema { found: Some(v), expected } => write!(
                f,
                "store has schema version {v}, this bgfarm needs {expected}: use another --data directory"
            ),
            StoreError::Schema { found: None, expected } => {
                write!(f, "store has an unreadable schema version, this bgfarm needs {expected}")
            }
            StoreError::Corrupt(m) => write!(f, "store corrupt: {m}"),
            StoreError::Locked(d) => write!(
                f,
                "store directory {d} is in use by another bgfarm process: stop it or use another --data directory"
            ),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<sled::Error> for StoreError {
    fn from(e: sled::Error) -> Self {
        StoreError::Sled(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Json(e)
    }
}
