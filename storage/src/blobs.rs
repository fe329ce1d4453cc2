//! Checked, engine-scoped blobs: the store's memory of computed work (first-move
//! tables, batch results) that any later job may reuse.
//!
//! Why this shape:
//! - **Scoped by engine fingerprint.** A value computed by one engine is never the
//!   value of another, so every key starts with an 8-byte hash of the fingerprint
//!   ([`scope_of`]); entries of other engines are never read and
//!   [`Blobs::prune_except`] deletes them. The `scopes` tree names each hash.
//! - **Checksummed.** A value is stored as `checksum (8) ‖ seq (8) ‖ payload`, the
//!   checksum being the first 8 bytes of SHA-256 over key and payload. A value whose
//!   checksum does not match (a flipped bit, a truncated write) is deleted and
//!   reported as absent, so the caller recomputes it: a memo is never trusted blind.
//! - **Capped, oldest written first out.** Each kind holds at most `cap` entries; a
//!   write over the cap evicts the entries written longest ago (the `seq` order kept
//!   in a second tree). An evicted entry is only recomputed when needed again.
//! - **First write wins.** Values are pure functions of their keys, so a second
//!   writer of the same key has nothing to add; a different value for the same key
//!   means an engine that is not deterministic, and it is refused
//!   ([`BlobPut::Different`]).

use crate::StoreError;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the store remembers, one pair of sled trees each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlobKind {
    /// First-move tables of rollouts (the first-ply cache), shared by workers and jobs.
    FirstPly,
    /// Results of rollout and match-simulation batches, keyed by what they computed.
    Batches,
}

impl BlobKind {
    /// Every kind, for pruning and statistics.
    pub const ALL: [BlobKind; 2] = [BlobKind::FirstPly, BlobKind::Batches];

    fn tree(self) -> &'static str {
        match self {
            BlobKind::FirstPly => "firstply",
            BlobKind::Batches => "batchmemo",
        }
    }

    /// The kind's name in messages and metrics.
    pub fn name(self) -> &'static str {
        match self {
            BlobKind::FirstPly => "first-move tables",
            BlobKind::Batches => "batch results",
        }
    }
}

/// Default entry cap of each kind. A first-move table of a 2-ply rollout is ~1 KB
/// (21 rolls x (5 probabilities + a position)), so 262,144 of them are ~256 MB: the
/// tables of ~6,000 distinct rollout candidates (about 43 tables each).
pub const DEFAULT_CAP: u64 = 1 << 18;

const HEADER: usize = 16;

/// A key (without its engine prefix) and its payload, as [`Blobs::scan`] returns them.
pub type KeyPayload = (Vec<u8>, Vec<u8>);

/// The 8-byte key prefix of an engine fingerprint.
pub fn scope_of(fingerprint: &str) -> [u8; 8] {
    let d = Sha256::digest(fingerprint.as_bytes());
    let mut s = [0u8; 8];
    s.copy_from_slice(&d[..8]);
    s
}

fn checksum(key: &[u8], payload: &[u8]) -> [u8; 8] {
    let mut h = Sha256::new();
    h.update((key.len() as u64).to_le_bytes());
    h.update(key);
    h.update(payload);
    let d = h.finalize();
    let mut c = [0u8; 8];
    c.copy_from_slice(&d[..8]);
    c
}

/// What [`Blobs::put`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobPut {
    /// Stored (not yet flushed).
    Inserted,
    /// The same payload was there already.
    Same,
    /// Another payload is stored for this key and stays.
    Different,
}

/// Counters of one kind since the store was opened (they restart with the process).
#[derive(Debug, Default)]
pub struct BlobCounters {
    pub hits: AtomicU64,
    pub misses: AtomicU64,
    pub inserts: AtomicU64,
    pub evicted: AtomicU64,
    /// Entries whose checksum failed (deleted, to be recomputed).
    pub corrupt: AtomicU64,
}

/// One kind of blob in one store. Cheap to clone; clones share counters.
#[derive(Clone)]
pub struct Blobs {
    kind: BlobKind,
    entries: sled::Tree,
    order: sled::Tree,
    scopes: sled::Tree,
    cap: u64,
    /// Next insertion sequence number and the entry count, kept in memory (sled's
    /// `len` walks the tree).
    seq: Arc<AtomicU64>,
    count: Arc<AtomicU64>,
    counters: Arc<BlobCounters>,
}

impl Blobs {
    pub(crate) fn open(db: &sled::Db, kind: BlobKind, cap: u64) -> Result<Blobs, StoreError> {
        let entries = db.open_tree(kind.tree())?;
        let order = db.open_tree(format!("{}_order", kind.tree()))?;
        let scopes = db.open_tree("scopes")?;
        let next = match order.last()? {
            Some((k, _)) => seq_of(&k)? + 1,
            None => 0,
        };
        let count = order.len() as u64;
        Ok(Blobs {
            kind,
            entries,
            order,
            scopes,
            cap: cap.max(1),
            seq: Arc::new(AtomicU64::new(next)),
            count: Arc::new(AtomicU64::new(count)),
            counters: Arc::new(BlobCounters::default()),
        })
    }

    /// Which kind this is.
    pub fn kind(&self) -> BlobKind {
        self.kind
    }

    /// The entry cap.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Entries stored now.
    pub fn len(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hits, misses, inserts, evictions and corrupt entries since opening.
    pub fn counters(&self) -> &BlobCounters {
        &self.counters
    }

    /// The payload stored for `key` under engine `fingerprint`, if any and intact. A
    /// corrupt entry is deleted and reported as absent.
    pub fn get(&self, fingerprint: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let full = full_key(fingerprint, key);
        let Some(v) = self.entries.get(&full)? else {
            self.counters.misses.fetch_add(1, Ordering::Relaxed);
            return Ok(None);
        };
        match split(&full, &v) {
            Some((_, payload)) => {
                self.counters.hits.fetch_add(1, Ordering::Relaxed);
                Ok(Some(payload.to_vec()))
            }
            None => {
                self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                self.counters.misses.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    kind = self.kind.name(),
                    "corrupt entry deleted; it will be recomputed"
                );
                self.remove_full(&full, &v)?;
                Ok(None)
            }
        }
    }

    /// Stores `payload` for `key` under `fingerprint` unless an intact value is
    /// there; evicts the oldest entries over the cap. Call [`crate::Store::flush`]
    /// before relying on it surviving a crash.
    pub fn put(
        &self,
        fingerprint: &str,
        key: &[u8],
        payload: &[u8],
    ) -> Result<BlobPut, StoreError> {
        let full = full_key(fingerprint, key);
        if let Some(v) = self.entries.get(&full)? {
            match split(&full, &v) {
                Some((_, p)) if p == payload => return Ok(BlobPut::Same),
                Some(_) => return Ok(BlobPut::Different),
                None => {
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    self.remove_full(&full, &v)?;
                }
            }
        }
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let mut value = Vec::with_capacity(HEADER + payload.len());
        value.extend_from_slice(&checksum(&full, payload));
        value.extend_from_slice(&seq.to_be_bytes());
        value.extend_from_slice(payload);
        match self
            .entries
            .compare_and_swap(&full, None as Option<&[u8]>, Some(value))?
        {
            Ok(()) => {}
            // Another writer won the race: first write wins.
            Err(_) => return self.put(fingerprint, key, payload),
        }
        self.order.insert(seq.to_be_bytes(), full.as_slice())?;
        let scope = scope_of(fingerprint);
        if !self.scopes.contains_key(scope)? {
            self.scopes.insert(scope, fingerprint.as_bytes())?;
        }
        self.counters.inserts.fetch_add(1, Ordering::Relaxed);
        let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        if n > self.cap {
            self.evict(n - self.cap)?;
        }
        Ok(BlobPut::Inserted)
    }

    /// Every intact entry under `fingerprint` whose key starts with `prefix`, in key
    /// order (corrupt ones are deleted on the way).
    pub fn scan(&self, fingerprint: &str, prefix: &[u8]) -> Result<Vec<KeyPayload>, StoreError> {
        let p = full_key(fingerprint, prefix);
        let mut out = Vec::new();
        for kv in self.entries.scan_prefix(&p) {
            let (k, v) = kv?;
            match split(&k, &v) {
                Some((_, payload)) => out.push((k[8..].to_vec(), payload.to_vec())),
                None => {
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    self.remove_full(&k, &v)?;
                }
            }
        }
        Ok(out)
    }

    /// Deletes every entry not computed by engine `keep`; returns how many went, by
    /// fingerprint (as named when written).
    pub fn prune_except(&self, keep: &str) -> Result<Vec<(String, u64)>, StoreError> {
        let keep = scope_of(keep);
        let mut gone: Vec<(String, u64)> = Vec::new();
        for kv in self.order.iter() {
            let (seqk, full) = kv?;
            if full.len() < 8 || full[..8] == keep {
                continue;
            }
            let name = match self.scopes.get(&full[..8])? {
                Some(n) => String::from_utf8_lossy(&n).into_owned(),
                None => "an unnamed engine".to_string(),
            };
            self.entries.remove(&full)?;
            self.order.remove(&seqk)?;
            self.count.fetch_sub(1, Ordering::Relaxed);
            match gone.iter_mut().find(|(n, _)| *n == name) {
                Some((_, c)) => *c += 1,
                None => gone.push((name, 1)),
            }
        }
        Ok(gone)
    }

    /// Entries per engine fingerprint, for `store` reports.
    pub fn per_fingerprint(&self) -> Result<Vec<(String, u64)>, StoreError> {
        let mut out: Vec<([u8; 8], u64)> = Vec::new();
        for kv in self.order.iter() {
            let (_, full) = kv?;
            let Ok(s) = <[u8; 8]>::try_from(&full[..full.len().min(8)]) else {
                continue;
            };
            match out.iter_mut().find(|(x, _)| *x == s) {
                Some((_, c)) => *c += 1,
                None => out.push((s, 1)),
            }
        }
        out.into_iter()
            .map(|(s, c)| {
                let name = match self.scopes.get(s)? {
                    Some(n) => String::from_utf8_lossy(&n).into_owned(),
                    None => "an unnamed engine".to_string(),
                };
                Ok((name, c))
            })
            .collect()
    }

    fn evict(&self, n: u64) -> Result<(), StoreError> {
        for _ in 0..n {
            let Some((_, full)) = self.order.pop_min()? else {
                break;
            };
            if self.entries.remove(&full)?.is_some() {
                self.counters.evicted.fetch_add(1, Ordering::Relaxed);
            }
            self.count.fetch_sub(1, Ordering::Relaxed);
        }
        Ok(())
    }

    fn remove_full(&self, full: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.entries.remove(full)?;
        if value.len() >= HEADER {
            let seq: [u8; 8] = value[8..16].try_into().unwrap_or_default();
            if self.order.remove(seq)?.is_some() {
                self.count.fetch_sub(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Deletes the entry of `key` under `fingerprint` (a result found wrong);
    /// true when there was one.
    pub fn remove(&self, fingerprint: &str, key: &[u8]) -> Result<bool, StoreError> {
        let full = full_key(fingerprint, key);
        let Some(v) = self.entries.get(&full)? else {
            return Ok(false);
        };
        self.remove_full(&full, &v)?;
        Ok(true)
    }

    /// Test hook: overwrites the stored bytes of `key` as a failing disk might.
    #[doc(hidden)]
    pub fn corrupt_for_test(&self, fingerprint: &str, key: &[u8]) -> Result<bool, StoreError> {
        let full = full_key(fingerprint, key);
        let Some(v) = self.entries.get(&full)? else {
            return Ok(false);
        };
        let mut bad = v.to_vec();
        if let Some(last) = bad.last_mut() {
            *last ^= 0x5a;
        }
        self.entries.insert(&full, bad)?;
        Ok(true)
    }
}

fn full_key(fingerprint: &str, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(8 + key.len());
    k.extend_from_slice(&scope_of(fingerprint));
    k.extend_from_slice(key);
    k
}

/// The sequence number and payload of an intact value, `None` when it fails its
/// checksum or is too short.
fn split<'a>(full: &[u8], value: &'a [u8]) -> Option<(u64, &'a [u8])> {
    if value.len() < HEADER {
        return None;
    }
    let payload = &value[HEADER..];
    if value[..8] != checksum(full, payload) {
        return None;
    }
    let seq = u64::from_be_bytes(value[8..16].try_into().ok()?);
    Some((seq, payload))
}

fn seq_of(k: &[u8]) -> Result<u64, StoreError> {
    <[u8; 8]>::try_from(k)
        .map(u64::from_be_bytes)
        .map_err(|_| StoreError::Corrupt(format!("blob order key of {} bytes", k.len())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn tempdir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("bgfarm-blobs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn first_write_wins_and_scopes_do_not_mix() {
        let dir = tempdir("wins");
        let s = Store::open(&dir).expect("open");
        let b = s.blobs(BlobKind::FirstPly);
        assert_eq!(b.put("fp-a", b"k", b"one"), Ok(BlobPut::Inserted));
        assert_eq!(b.put("fp-a", b"k", b"one"), Ok(BlobPut::Same));
        assert_eq!(b.put("fp-a", b"k", b"two"), Ok(BlobPut::Different));
        assert_eq!(b.get("fp-a", b"k"), Ok(Some(b"one".to_vec())));
        assert_eq!(b.get("fp-b", b"k"), Ok(None));
        // The other kind is another tree.
        assert_eq!(s.blobs(BlobKind::Batches).get("fp-a", b"k"), Ok(None));
        assert_eq!(b.len(), 1);
        drop((b, s));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_corrupt_entry_is_never_returned_and_can_be_rewritten() {
        let dir = tempdir("corrupt");
        let s = Store::open(&dir).expect("open");
        let b = s.blobs(BlobKind::Batches);
        b.put("fp", b"k", b"payload").expect("put");
        assert!(b.corrupt_for_test("fp", b"k").expect("corrupt"));
        assert_eq!(b.get("fp", b"k"), Ok(None));
        assert_eq!(b.counters().corrupt.load(Ordering::Relaxed), 1);
        assert_eq!(b.len(), 0);
        assert_eq!(b.put("fp", b"k", b"payload"), Ok(BlobPut::Inserted));
        assert_eq!(b.get("fp", b"k"), Ok(Some(b"payload".to_vec())));
        drop((b, s));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_cap_evicts_the_oldest_and_survives_reopen() {
        let dir = tempdir("cap");
        {
            let s = Store::open_with_cap(&dir, 3).expect("open");
            let b = s.blobs(BlobKind::FirstPly);
            for i in 0u8..5 {
                b.put("fp", &[i], &[i; 4]).expect("put");
            }
            assert_eq!(b.len(), 3);
            assert_eq!(b.get("fp", &[0]), Ok(None));
            assert_eq!(b.get("fp", &[1]), Ok(None));
            assert_eq!(b.get("fp", &[4]), Ok(Some(vec![4; 4])));
            assert_eq!(b.counters().evicted.load(Ordering::Relaxed), 2);
            s.flush().expect("flush");
        }
        let s = Store::open_with_cap(&dir, 3).expect("reopen");
        let b = s.blobs(BlobKind::FirstPly);
        assert_eq!(b.len(), 3);
        b.put("fp", &[9], &[9]).expect("put");
        assert_eq!(
            b.get("fp", &[2]),
            Ok(None),
            "the oldest goes first after a reopen too"
        );
        assert_eq!(b.len(), 3);
        drop((b, s));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn prune_keeps_only_the_named_engine() {
        let dir = tempdir("prune");
        let s = Store::open(&dir).expect("open");
        let b = s.blobs(BlobKind::Batches);
        b.put("old", b"a", b"1").expect("put");
        b.put("old", b"b", b"2").expect("put");
        b.put("new", b"a", b"3").expect("put");
        assert_eq!(
            b.per_fingerprint().expect("stats"),
            vec![("old".to_string(), 2), ("new".to_string(), 1)]
        );
        assert_eq!(b.prune_except("new"), Ok(vec![("old".to_string(), 2)]));
        assert_eq!(b.len(), 1);
        assert_eq!(b.get("old", b"a"), Ok(None));
        assert_eq!(b.get("new", b"a"), Ok(Some(b"3".to_vec())));
        assert_eq!(
            b.scan("new", b"").expect("scan"),
            vec![(b"a".to_vec(), b"3".to_vec())]
        );
        drop((b, s));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
