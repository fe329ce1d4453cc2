//! The searched values of `bench race-referee`, kept in a file between runs.
//!
//! Why: the searches' value of each play does not depend on the nets, only on the
//! tables, the search limit and the gammon budget, and it is nearly all of the
//! command's cost (48 minutes on 2 cores at the default limit). With the
//! values kept, scoring a new net costs its own 0-ply choices plus the searches of
//! the decisions it newly disputes: minutes instead of most of an hour.
//!
//! Format: JSON lines, one decision each (`{"position", "dice", "search_limit",
//! "gammon_budget", "tables", "values": {play's position ID: equity or null}}`),
//! appended as each decision is searched, so a run that is stopped keeps what it
//! finished. Lines for other limits, budgets or tables are kept in the file and
//! ignored; a line that does not parse (a run killed mid-write) is skipped with a
//! warning and searched again.

use crate::cli::CliError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Every play's cubeless equity for the mover by the searches (`None`: a play over
/// the limit), by the position ID it leads to.
pub type PlayValues = BTreeMap<String, Option<f64>>;

/// What the values depend on besides the decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    pub search_limit: u64,
    pub gammon_budget: usize,
    /// [`BearoffDb::checksum`](bgfarm_engine::eval::bearoff::BearoffDb::checksum).
    pub tables: u64,
}

#[derive(Serialize, Deserialize)]
struct Line {
    position: String,
    dice: [u8; 2],
    search_limit: u64,
    gammon_budget: usize,
    tables: String,
    values: PlayValues,
}

/// The values read from a file, and the file to append new ones to.
pub struct ValueStore {
    settings: SearchSettings,
    known: HashMap<(String, [u8; 2]), PlayValues>,
    file: Option<(PathBuf, Mutex<File>)>,
}

impl ValueStore {
    /// No file: nothing known, nothing kept.
    pub fn none(settings: SearchSettings) -> ValueStore {
        ValueStore {
            settings,
            known: HashMap::new(),
            file: None,
        }
    }

    /// Reads `path` (a missing file is an empty one) and opens it for appending.
    pub fn open(path: &Path, settings: SearchSettings) -> Result<ValueStore, CliError> {
        let mut known = HashMap::new();
        let tables = format!("{:016x}", settings.tables);
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => {
                return Err(CliError::msg(format!(
                    "cannot read {}: {e}",
                    path.display()
                )))
            }
        };
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let l: Line = match serde_json::from_str(line) {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(
                        "{} line {}: {e}; that decision is searched again",
                        path.display(),
                        n + 1
                    );
                    continue;
                }
            };
            if l.search_limit == settings.search_limit
                && l.gammon_budget == settings.gammon_budget
                && l.tables == tables
            {
                known.insert((l.position, l.dice), l.values);
            }
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| CliError::msg(format!("cannot open {}: {e}", path.display())))?;
        // A torn last line gets its end, so the next line starts on its own.
        if !text.is_empty() && !text.ends_with('\n') {
            file.write_all(b"\n")
                .map_err(|e| CliError::msg(format!("cannot write {}: {e}", path.display())))?;
        }
        Ok(ValueStore {
            settings,
            known,
            file: Some((path.to_path_buf(), Mutex::new(file))),
        })
    }

    /// The settings the values are for.
    pub fn settings(&self) -> SearchSettings {
        self.settings
    }

    /// How many decisions the file already holds for these settings.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// The values of a decision searched before, if any.
    pub fn get(&self, position: &str, dice: [u8; 2]) -> Option<&PlayValues> {
        self.known.get(&(position.to_string(), dice))
    }

    /// Appends a freshly searched decision (one whole line per write, flushed).
    pub fn put(&self, position: &str, dice: [u8; 2], values: &PlayValues) -> Result<(), String> {
        let Some((path, file)) = &self.file else {
            return Ok(());
        };
        let line = Line {
            position: position.to_string(),
            dice,
            search_limit: self.settings.search_limit,
            gammon_budget: self.settings.gammon_budget,
            tables: format!("{:016x}", self.settings.tables),
            values: values.clone(),
        };
        let mut text = serde_json::to_string(&line).map_err(|e| e.to_string())?;
        text.push('\n');
        let mut f = file.lock().map_err(|_| "a thread panicked".to_string())?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(limit: u64) -> SearchSettings {
        SearchSettings {
            search_limit: limit,
            gammon_budget: 100,
            tables: 0xabc,
        }
    }

    /// What one run puts, the next reads back, for the same settings only; a torn
    /// last line is skipped, not fatal.
    #[test]
    fn values_round_trip_per_settings() {
        let dir = std::env::temp_dir().join(format!("bgfarm-refvals-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("values.jsonl");
        let _ = std::fs::remove_file(&path);
        let mut v = PlayValues::new();
        v.insert("4HPwATDgc/ABMA".into(), Some(-0.25));
        v.insert("4HPwATDgc/ABMB".into(), None);
        {
            let s = ValueStore::open(&path, settings(10)).unwrap();
            assert_eq!(s.len(), 0);
            s.put("pos1", [3, 1], &v).unwrap();
        }
        // A run killed mid-line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"position\":\"pos2\",\"di").unwrap();
        drop(f);
        let s = ValueStore::open(&path, settings(10)).unwrap();
        assert_eq!(s.len(), 1);
        s.put("pos3", [6, 6], &v).unwrap();
        let s = ValueStore::open(&path, settings(10)).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s.get("pos3", [6, 6]), Some(&v));
        assert_eq!(s.get("pos1", [3, 1]), Some(&v));
        assert_eq!(s.get("pos1", [1, 3]), None);
        let other = ValueStore::open(&path, settings(11)).unwrap();
        assert_eq!(other.len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
