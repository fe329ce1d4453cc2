//! The first-move cache: [`RollTable`]s of the first [`CACHED_PLIES`] plies of a
//! rollout's trials, kept per job and shared through the coordinator's store.
//!
//! Every trial of a candidate starts from the same position and the policy is
//! deterministic, so ply 0 has one state and ply 1 at most 21; their tables (21 best
//! moves, at `--ply 2` the most expensive searches of a rollout) are computed once
//! and served to every trial. A table is a pure function of (luck mode, search depth,
//! position) and the engine, so a cached table cannot change a result: trials are
//! bit-identical whether the cache is cold, warm or partly filled.
//!
//! Entries travel as bytes ([`FirstPlyKey::to_bytes`], [`RollTable::to_bytes`]):
//! a worker reports the tables it computed ([`FirstPlyCache::take_computed`]), the
//! coordinator stores them under the job's engine fingerprint and hands them to the
//! next worker ([`FirstPlyCache::import`]); [`first_ply_keys`] lists what a job needs.

use super::settings::{Luck, TrialSettings};
use super::RolloutJob;
use crate::eval::{terminal_probs, Probs};
use crate::position::Position;
use std::collections::HashMap;
use std::sync::Mutex;

/// Plies of each trial served from the [`FirstPlyCache`].
pub const CACHED_PLIES: u32 = 2;

/// Encoding version, the first byte of every key: a new layout gets a new number,
/// so old entries are never misread (they are simply never asked for).
const VERSION: u8 = 1;
/// Key bytes: version, luck mode, depth, 26 signed pip counts.
pub const KEY_BYTES: usize = 3 + 26;
/// Table bytes: 21 x 5 little-endian f32 values, then 21 x 26 pip counts.
pub const TABLE_BYTES: usize = 21 * 5 * 4 + 21 * 26;

/// What a trial needs at one state before its roll, for each of the 21 rolls: the
/// luck value `V(S, r)` (mover's side) and the position after the policy's move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollTable {
    pub(super) values: [Probs; 21],
    pub(super) next: [Position; 21],
}

impl RollTable {
    /// The position after the policy's move for each of the 21 rolls (in
    /// [`crate::dice::Dice::ALL_21`] order).
    pub fn successors(&self) -> &[Position; 21] {
        &self.next
    }

    /// Stable bytes: the f32 values bit for bit, then the successors.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TABLE_BYTES);
        for p in &self.values {
            for x in p.0 {
                out.extend_from_slice(&x.to_bits().to_le_bytes());
            }
        }
        for pos in &self.next {
            out.extend(pos.pips().iter().map(|&c| c as u8));
        }
        out
    }

    /// The table `bytes` encode; malformed bytes (length, an impossible position)
    /// are refused.
    pub fn from_bytes(bytes: &[u8]) -> Result<RollTable, String> {
        if bytes.len() != TABLE_BYTES {
            return Err(format!(
                "first-move table of {} bytes, expected {TABLE_BYTES}",
                bytes.len()
            ));
        }
        let (vals, poss) = bytes.split_at(21 * 5 * 4);
        let mut t = RollTable {
            values: [Probs::default(); 21],
            next: [Position::STARTING; 21],
        };
        for (k, chunk) in vals.chunks_exact(4).enumerate() {
            let x = f32::from_bits(u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]));
            t.values[k / 5].0[k % 5] = x;
        }
        for (k, chunk) in poss.chunks_exact(26).enumerate() {
            t.next[k] = position_of(chunk)?;
        }
        Ok(t)
    }
}

fn position_of(bytes: &[u8]) -> Result<Position, String> {
    let mut pips = [0i8; 26];
    for (p, &b) in pips.iter_mut().zip(bytes) {
        *p = b as i8;
    }
    Position::from_pips(pips).map_err(|e| format!("bad position in a first-move entry: {e}"))
}

/// What a [`RollTable`] is a function of (besides the engine): the luck mode (which
/// values it holds), the chequer-play depth (which moves) and the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FirstPlyKey {
    pub luck: Luck,
    pub depth: u8,
    pub pos: Position,
}

impl FirstPlyKey {
    /// Stable bytes: version, luck (0 off, 1 full, 2 ranked, 4 searched; 3 auto,
    /// which trials resolve by depth before they ask), depth, pips.
    pub fn to_bytes(&self) -> Vec<u8> {
        let luck = match self.luck {
            Luck::Off => 0,
            Luck::Full => 1,
            Luck::Ranked => 2,
            Luck::Auto => 3,
            Luck::Searched => 4,
        };
        let mut out = vec![VERSION, luck, self.depth];
        out.extend(self.pos.pips().iter().map(|&c| c as u8));
        out
    }

    /// The key `bytes` encode; another version, luck mode or length is refused.
    pub fn from_bytes(bytes: &[u8]) -> Result<FirstPlyKey, String> {
        if bytes.len() != KEY_BYTES || bytes[0] != VERSION {
            return Err(format!(
                "first-move key of {} bytes or version {:?}, expected {KEY_BYTES} bytes, version {VERSION}",
                bytes.len(),
                bytes.first()
            ));
        }
        let luck = match bytes[1] {
            0 => Luck::Off,
            1 => Luck::Full,
            2 => Luck::Ranked,
            3 => Luck::Auto,
            4 => Luck::Searched,
            l => return Err(format!("first-move key with luck mode {l}")),
        };
        Ok(FirstPlyKey {
            luck,
            depth: bytes[2],
            pos: position_of(&bytes[3..])?,
        })
    }
}

/// An encoded entry: key bytes and table bytes.
pub type EntryBytes = (Vec<u8>, Vec<u8>);

#[derive(Default)]
struct Inner {
    map: HashMap<FirstPlyKey, RollTable>,
    /// Keys computed here (not imported) and not yet handed out.
    computed: Vec<FirstPlyKey>,
}

/// Per-job cache of [`RollTable`]s for the first [`CACHED_PLIES`] plies of trials,
/// shared by the threads running the job's batches.
#[derive(Default)]
pub struct FirstPlyCache {
    inner: Mutex<Inner>,
}

impl FirstPlyCache {
    /// The table for `key`, computed by `compute` on a miss (outside the lock, so
    /// two threads may both compute it; the first insert wins and only it counts
    /// as computed here).
    pub(super) fn get_or_compute(
        &self,
        key: FirstPlyKey,
        compute: impl FnOnce() -> RollTable,
    ) -> RollTable {
        if let Some(t) = self
            .inner
            .lock()
            .ok()
            .and_then(|m| m.map.get(&key).copied())
        {
            return t;
        }
        let t = compute();
        if let Ok(mut m) = self.inner.lock() {
            if let std::collections::hash_map::Entry::Vacant(e) = m.map.entry(key) {
                e.insert(t);
                m.computed.push(key);
            }
        }
        t
    }

    /// Adds an entry computed elsewhere (a table already here is kept). Malformed
    /// bytes are refused and change nothing.
    pub fn import(&self, key: &[u8], table: &[u8]) -> Result<(), String> {
        let key = FirstPlyKey::from_bytes(key)?;
        let table = RollTable::from_bytes(table)?;
        if let Ok(mut m) = self.inner.lock() {
            m.map.entry(key).or_insert(table);
        }
        Ok(())
    }

    /// The entries computed here since the last call (imported ones never), for a
    /// worker to report only what is new.
    pub fn take_computed(&self) -> Vec<EntryBytes> {
        let Ok(mut m) = self.inner.lock() else {
            return Vec::new();
        };
        let keys = std::mem::take(&mut m.computed);
        keys.iter()
            .filter_map(|k| m.map.get(k).map(|t| (k.to_bytes(), t.to_bytes())))
            .collect()
    }

    /// Adds the well-formed ones of `entries` ([`FirstPlyCache::import`]);
    /// returns how many.
    pub fn import_all(&self, entries: &[EntryBytes]) -> usize {
        entries
            .iter()
            .filter(|(k, t)| self.import(k, t).is_ok())
            .count()
    }

    /// The table cached for `key`, if any.
    pub fn get(&self, key: &FirstPlyKey) -> Option<RollTable> {
        self.inner.lock().ok().and_then(|m| m.map.get(key).copied())
    }

    /// States cached so far.
    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |m| m.map.len())
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether a trial at `ply` in `pos` stops before rolling (so needs no table),
/// mirroring `Trial::run`: a finished game, a truncation point, or (with bear-off
/// truncation) a position `endgame` says the bear-off tables cover.
fn stops(
    settings: &TrialSettings,
    pos: &Position,
    ply: u32,
    endgame: &impl Fn(&Position) -> bool,
) -> bool {
    terminal_probs(pos).is_some()
        || (settings.bearoff_truncation && endgame(pos))
        || settings.truncate.is_some_and(|t| ply >= t)
}

/// The keys the first plies of `job`'s trials need, as far as `known` tells: for
/// each candidate its start at the ply-0 depth, and for each ply-0 table `known`
/// holds, its 21 successors at the ply-1 depth (a ply-0 table not known yet hides
/// its successors, so the list is complete exactly when every listed key is known).
/// Depths are those `Trial::run` uses: [`TrialSettings::chequer_ply_at`] for the side
/// the results are for at even plies when the candidate reports for the player on
/// roll. `endgame` is the evaluator's "bear-off tables cover this" (a caller without
/// the tables may pass a superset, e.g. "no contact": it only lists fewer keys).
/// Without duplicates, in candidate, then roll order.
pub fn first_ply_keys(
    job: &RolloutJob,
    known: impl Fn(&FirstPlyKey) -> Option<RollTable>,
    endgame: impl Fn(&Position) -> bool,
) -> Vec<FirstPlyKey> {
    let s = &job.settings;
    let mut out: Vec<FirstPlyKey> = Vec::new();
    let push = |out: &mut Vec<FirstPlyKey>, k: FirstPlyKey| {
        if !out.contains(&k) {
            out.push(k);
        }
    };
    for c in &job.candidates {
        if stops(s, &c.start, 0, &endgame) {
            continue;
        }
        // root_moves is true at ply 0 and false at ply 1 (see Trial::run).
        let depth = s.chequer_ply_at(0, !c.report_for_opponent);
        let key = FirstPlyKey {
            luck: s.luck.at(depth),
            depth,
            pos: c.start,
        };
        push(&mut out, key);
        let Some(t) = known(&key) else { continue };
        let depth = s.chequer_ply_at(1, c.report_for_opponent);
        for next in t.next {
            if !stops(s, &next, 1, &endgame) && CACHED_PLIES > 1 {
                push(
                    &mut out,
                    FirstPlyKey {
                        luck: s.luck.at(depth),
                        depth,
                        pos: next,
                    },
                );
            }
        }
    }
    out
}

/// The tables of a job a store holds, and whether they are all it needs.
pub struct StoredTables {
    pub entries: Vec<EntryBytes>,
    pub complete: bool,
    /// Whether any first ply searches (depth > 0): only then is a table worth
    /// waiting for.
    pub deep: bool,
}

/// The tables `job` needs that `get` (a store's look-up by key bytes) holds. A
/// store lacks the evaluator's bear-off tables, so every position without contact
/// counts as one where trials stop (a few tables fewer may be listed: they are
/// then computed where needed, never wrong). The coordinator's lease gate and an
/// embedded run's `--data` store read their tables through this one function.
pub fn stored_tables(job: &RolloutJob, get: impl Fn(&[u8]) -> Option<Vec<u8>>) -> StoredTables {
    let keys = first_ply_keys(
        job,
        |k| get(&k.to_bytes()).and_then(|v| RollTable::from_bytes(&v).ok()),
        |p| !p.has_contact(),
    );
    let entries: Vec<EntryBytes> = keys
        .iter()
        .filter_map(|k| {
            let key = k.to_bytes();
            get(&key).map(|v| (key, v))
        })
        .collect();
    StoredTables {
        complete: entries.len() == keys.len(),
        deep: keys.iter().any(|k| k.depth > 0),
        entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Dice;
    use crate::eval::neural::Class;
    use crate::movegen::MoveGenerator;
    use crate::rollout::{run_batch, Candidate, CubeStart, TrialScratch};
    use crate::testutil::default_nets as evaluator;
    use std::collections::HashSet;

    /// A move rollout (candidates report for the opponent of the player on roll)
    /// with 1-ply play for the mover and 0-ply for the opponent, so the two cached
    /// plies search at different depths.
    fn move_job() -> RolloutJob {
        let mut gen = MoveGenerator::new();
        let roll = Dice::new(3, 1).expect("a roll");
        let moves = gen.generate(&Position::STARTING, roll);
        let candidates = moves
            .iter()
            .take(2)
            .map(|m| Candidate {
                label: None,
                start: m.next_position(),
                report_for_opponent: true,
                cube: CubeStart::default(),
            })
            .collect();
        RolloutJob {
            candidates,
            seed: 11,
            settings: TrialSettings {
                luck: Luck::Ranked,
                truncate: Some(3),
                chequer_ply: 1,
                opponent_ply: Some(0),
                ..TrialSettings::default()
            },
        }
    }

    #[test]
    fn entries_round_trip_and_malformed_bytes_are_refused() {
        let eval = evaluator();
        let job = move_job();
        let cache = FirstPlyCache::default();
        let mut s = TrialScratch::new(&eval);
        run_batch(&job, &eval, None, 0..1, &[], Some(&cache), &mut s);
        let entries = cache.take_computed();
        assert!(!entries.is_empty());
        assert!(cache.take_computed().is_empty(), "entries handed out twice");
        for (k, v) in &entries {
            let key = FirstPlyKey::from_bytes(k).expect("key");
            assert_eq!(&key.to_bytes(), k);
            let t = RollTable::from_bytes(v).expect("table");
            assert_eq!(&t.to_bytes(), v);
            assert_eq!(cache.get(&key).map(|t| t.to_bytes()), Some(v.clone()));
        }
        let (k, v) = &entries[0];
        assert!(FirstPlyKey::from_bytes(&k[1..]).is_err());
        let mut bad = k.clone();
        bad[0] = 9;
        assert!(FirstPlyKey::from_bytes(&bad).is_err(), "another version");
        bad = k.clone();
        bad[1] = 7;
        assert!(FirstPlyKey::from_bytes(&bad).is_err(), "a luck mode");
        bad = k.clone();
        bad[5] = 40;
        assert!(
            FirstPlyKey::from_bytes(&bad).is_err(),
            "an impossible position"
        );
        assert!(RollTable::from_bytes(&v[..v.len() - 1]).is_err());
        let mut badv = v.clone();
        let n = badv.len();
        badv[n - 3] = 100;
        assert!(RollTable::from_bytes(&badv).is_err());
        let fresh = FirstPlyCache::default();
        assert!(fresh.import(&bad, v).is_err());
        assert!(fresh.is_empty(), "a refused entry was kept");
    }

    #[test]
    fn results_are_identical_with_a_cold_warm_or_partly_filled_cache() {
        let eval = evaluator();
        let job = move_job();
        let mut s = TrialScratch::new(&eval);
        let plain = run_batch(&job, &eval, None, 0..36, &[], None, &mut s);
        let cold = FirstPlyCache::default();
        assert_eq!(
            run_batch(&job, &eval, None, 0..36, &[], Some(&cold), &mut s),
            plain
        );
        let entries = cold.take_computed();
        // 36 trials see every first roll: the listed keys are exactly those computed.
        let endgame = |p: &Position| eval.class(p) == Class::Endgame;
        let listed: HashSet<Vec<u8>> = first_ply_keys(&job, |k| cold.get(k), endgame)
            .iter()
            .map(FirstPlyKey::to_bytes)
            .collect();
        let computed: HashSet<Vec<u8>> = entries.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(listed, computed);
        assert_eq!(computed.len(), entries.len(), "a table computed twice");
        assert!(entries.len() > 2 * 21, "{} entries", entries.len());
        // Depths: ply 0 is played by the opponent of the side reported for (0-ply),
        // ply 1 by that side (1-ply).
        let depths: HashSet<u8> = listed
            .iter()
            .map(|k| FirstPlyKey::from_bytes(k).expect("key").depth)
            .collect();
        assert_eq!(depths, HashSet::from([0, 1]));
        // Nothing known: only the starts are listed.
        assert_eq!(first_ply_keys(&job, |_| None, endgame).len(), 2);
        for part in [entries.len(), entries.len() / 2, 1] {
            let warm = FirstPlyCache::default();
            for (k, v) in &entries[..part] {
                warm.import(k, v).expect("import");
            }
            assert_eq!(
                run_batch(&job, &eval, None, 0..36, &[], Some(&warm), &mut s),
                plain,
                "{part} entries imported"
            );
            assert_eq!(warm.take_computed().len(), entries.len() - part);
        }
    }
}
