//! bgfarm-storage: the coordinator's durable state in sled.
//!
//! Trees: `jobs` (id -> [`JobRecord`] as JSON), `results` ((job, batch) -> encoded
//! batch statistics), the default tree holding the schema version, who computed
//! each result while a sample is verified ([`origins`]), and the memory
//! of computed work any job may reuse ([`blobs`]: first-move tables and batch
//! results keyed by what they computed, scoped by engine fingerprint, checksummed
//! and capped). A result is
//! written with compare-and-swap (the first accepted result of a batch wins, so a
//! replay cannot overwrite it) and [`Store::flush`]ed before the coordinator
//! acknowledges it; leases and worker liveness are memory-only and rebuilt on
//! restart from what is here (unfinished batches are simply pending again).
//!
//! The store knows nothing of backgammon or protobuf: specs and results are opaque
//! bytes the coordinator encodes.

pub mod blobs;
mod error;
pub mod memo;
mod origins;
mod record;

pub use blobs::{BlobKind, BlobPut, Blobs};
pub use error::StoreError;
pub use record::{JobRecord, JobState};

use std::path::Path;
use std::time::{Duration, Instant};

/// How long [`Store::open`] waits for the directory's file lock. sled releases it
/// only when its background flusher thread lets go of the database, a few
/// milliseconds after the last handle is dropped, so a store reopened at once in
/// the same process (a restart, a test) can find it still held; a second
/// coordinator on the same directory still fails, after this long.
const LOCK_WAIT: Duration = Duration::from_secs(3);
/// sled's page cache (its default is 1 GiB). A coordinator writes each accepted
/// result once and reads it back only to fold the job, in key order, so a large
/// cache buys little: with it at the default, pushing 10^6 no-op results through
/// `bgfarm bench cluster` peaked at 765 MB resident.
const CACHE_BYTES: u64 = 64 << 20;

/// Version of the on-disk layout; a store with another version is refused.
pub const SCHEMA_VERSION: u32 = 1;

const SCHEMA_KEY: &[u8] = b"schema_version";

/// What [`Store::put_result`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PutOutcome {
    /// The result was new and is now stored (not yet flushed).
    Inserted,
    /// The same bytes were already stored: a harmless replay.
    Same,
    /// Other bytes were already stored (returned); the stored ones stay.
    Different(Vec<u8>),
}

/// The sled database of one coordinator.
#[derive(Clone)]
pub struct Store {
    db: sled::Db,
    jobs: sled::Tree,
    results: sled::Tree,
    origins: sled::Tree,
    memo_origins: sled::Tree,
    first_ply: Blobs,
    batches: Blobs,
}

/// Key of a batch result: job then batch, big-endian so a prefix scan of one job
/// returns its batches in batch order.
fn result_key(job: u64, batch: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&job.to_be_bytes());
    k[8..].copy_from_slice(&batch.to_be_bytes());
    k
}

impl Store {
    /// Opens (or creates) the store in `dir`, checking its schema version; each kind
    /// of [`Blobs`] holds at most [`blobs::DEFAULT_CAP`] entries.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        Store::open_with_cap(dir, blobs::DEFAULT_CAP)
    }

    /// [`Store::open`] with another entry cap for each kind of [`Blobs`]. Stores
    /// written before the blob trees existed open unchanged (the trees start empty).
    pub fn open_with_cap(dir: &Path, cap: u64) -> Result<Store, StoreError> {
        let db = open_locked(dir)?;
        match db.get(SCHEMA_KEY)? {
            None => {
                db.insert(SCHEMA_KEY, &SCHEMA_VERSION.to_be_bytes())?;
                db.flush()?;
            }
            Some(v) => {
                let found = <[u8; 4]>::try_from(v.as_ref()).map(u32::from_be_bytes).ok();
                if found != Some(SCHEMA_VERSION) {
                    return Err(StoreError::Schema {
                        found,
                        expected: SCHEMA_VERSION,
                    });
                }
            }
        }
        let jobs = db.open_tree("jobs")?;
        let results = db.open_tree("results")?;
        let first_ply = Blobs::open(&db, BlobKind::FirstPly, cap)?;
        let batches = Blobs::open(&db, BlobKind::Batches, cap)?;
        Ok(Store {
            origins: db.open_tree("origins")?,
            memo_origins: db.open_tree("memo_origins")?,
            db,
            jobs,
            results,
            first_ply,
            batches,
        })
    }

    /// The store's memory of one kind of computed work.
    pub fn blobs(&self, kind: BlobKind) -> Blobs {
        match kind {
            BlobKind::FirstPly => self.first_ply.clone(),
            BlobKind::Batches => self.batches.clone(),
        }
    }

    /// A fresh job id (1, 2, ...), unique across restarts.
    pub fn next_job_id(&self) -> Result<u64, StoreError> {
        Ok(self.db.generate_id()? + 1)
    }

    /// Writes a job record and flushes it.
    pub fn put_job(&self, job: &JobRecord) -> Result<(), StoreError> {
        self.jobs
            .insert(job.id.to_be_bytes(), serde_json::to_vec(job)?)?;
        self.flush()
    }

    /// Every job, in id order.
    pub fn jobs(&self) -> Result<Vec<JobRecord>, StoreError> {
        self.jobs
            .iter()
            .values()
            .map(|v| Ok(serde_json::from_slice(&v?)?))
            .collect()
    }

    /// Stores the result of batch `batch` of job `job` unless one is there already.
    /// Call [`Store::flush`] before acknowledging an [`PutOutcome::Inserted`].
    pub fn put_result(&self, job: u64, batch: u64, bytes: &[u8]) -> Result<PutOutcome, StoreError> {
        let key = result_key(job, batch);
        match self
            .results
            .compare_and_swap(key, None as Option<&[u8]>, Some(bytes))?
        {
            Ok(()) => Ok(PutOutcome::Inserted),
            Err(e) => match e.current {
                Some(cur) if cur.as_ref() == bytes => Ok(PutOutcome::Same),
                Some(cur) => Ok(PutOutcome::Different(cur.to_vec())),
                // Cannot happen (the expected value was None), but retrying is right.
                None => self.put_result(job, batch, bytes),
            },
        }
    }

    /// The stored results of job `job`, in batch order.
    pub fn results(&self, job: u64) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        self.results_iter(job).collect()
    }

    /// The stored results of job `job`, in batch order, read as they are used: a
    /// job of 10^6 batches is folded without holding its results at once.
    pub fn results_iter(
        &self,
        job: u64,
    ) -> impl Iterator<Item = Result<(u64, Vec<u8>), StoreError>> {
        self.results.scan_prefix(job.to_be_bytes()).map(|kv| {
            let (k, v) = kv?;
            let batch = <[u8; 8]>::try_from(&k[8..])
                .map(u64::from_be_bytes)
                .map_err(|_| StoreError::Corrupt(format!("result key of {} bytes", k.len())))?;
            Ok((batch, v.to_vec()))
        })
    }

    /// Makes every write so far durable (fsync).
    pub fn flush(&self) -> Result<(), StoreError> {
        self.db.flush()?;
        Ok(())
    }
}

/// `sled::open`, retried while the directory's lock is held (see [`LOCK_WAIT`]).
fn open_locked(dir: &Path) -> Result<sled::Db, StoreError> {
    let start = Instant::now();
    loop {
        match sled::Config::new()
            .path(dir)
            .cache_capacity(CACHE_BYTES)
            .open()
        {
            // sled reports the lock as an `Other` I/O error with this text.
            Err(sled::Error::Io(e)) if e.to_string().contains("could not acquire lock") => {
                if start.elapsed() >= LOCK_WAIT {
                    return Err(StoreError::Locked(dir.display().to_string()));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            r => return Ok(r?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tempdir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("bgfarm-storage-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn results_are_first_wins_and_survive_reopen() {
        let dir = tempdir("reopen");
        {
            let s = Store::open(&dir).expect("open");
            let id = s.next_job_id().expect("id");
            let rec = JobRecord {
                id,
                state: JobState::Running,
                message: String::new(),
                spec: vec![1, 2],
                batches: 3,
            };
            s.put_job(&rec).expect("job");
            assert_eq!(s.put_result(id, 1, b"b1"), Ok(PutOutcome::Inserted));
            assert_eq!(s.put_result(id, 0, b"b0"), Ok(PutOutcome::Inserted));
            assert_eq!(s.put_result(id, 1, b"b1"), Ok(PutOutcome::Same));
            assert_eq!(
                s.put_result(id, 1, b"xx"),
                Ok(PutOutcome::Different(b"b1".to_vec()))
            );
            s.put_result(id + 1, 0, b"other").expect("other job");
            s.flush().expect("flush");
        }
        let s = Store::open(&dir).expect("reopen");
        let jobs = s.jobs().expect("jobs");
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].batches, 3);
        let r = s.results(jobs[0].id).expect("results");
        assert_eq!(r, vec![(0, b"b0".to_vec()), (1, b"b1".to_vec())]);
        assert!(s.next_job_id().expect("id") > jobs[0].id);
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn another_schema_version_is_refused() {
        let dir = tempdir("schema");
        {
            let db = sled::open(&dir).expect("sled");
            db.insert(SCHEMA_KEY, &99u32.to_be_bytes()).expect("insert");
            db.flush().expect("flush");
        }
        let err = Store::open(&dir)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("schema version 99"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_directory_in_use_is_refused_with_a_clear_error() {
        let dir = tempdir("locked");
        let first = Store::open(&dir).expect("open");
        let err = Store::open(&dir)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("in use"), "{err}");
        drop(first);
        // Once the holder is gone the directory opens again, at once or after the
        // flusher lets go.
        Store::open(&dir).expect("reopen after drop");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
