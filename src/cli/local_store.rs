//! `--data DIR` on an embedded `rollout` or `match-sim`: a local store used as a
//! coordinator uses its own. Each batch is looked up in the memory of computed
//! batches before it runs and remembered after (the coordinator's identities, keys
//! and payloads: `bgfarm_coordinator::memo_identity`, `bgfarm_storage::memo`), so
//! the same run again computes nothing and one with
//! more trials or matches computes only the new batches; the finished run is
//! recorded as a done job, so `bgfarm results --data DIR` lists it. A rollout also
//! starts from the first-move tables the store holds and keeps the ones it computes
//! (as a coordinator shares them between workers and jobs). The results are
//! bit-identical with or without the store (the batch results fold exactly, and a
//! table is a pure function of its key).

use super::CliError;
use bgfarm_coordinator::memo_identity;
use bgfarm_engine::rollout::{stored_tables, FirstPlyCache, RolloutPlan};
use bgfarm_proto::v1;
use bgfarm_storage::memo::{self, Identity};
use bgfarm_storage::{BlobKind, Blobs, JobRecord, JobState, Store};
use std::ops::Range;
use std::path::Path;

/// The local store of one embedded run, and the batch results of the run so far.
pub struct LocalStore {
    store: Store,
    blobs: Blobs,
    first_ply: Blobs,
    spec: v1::JobSpec,
    fingerprint: String,
    identity: Identity,
    /// (batch index, wire result) of every batch of the run, reused or computed.
    results: Vec<(u64, Vec<u8>)>,
    batches: u64,
    /// Batches found in the store.
    pub reused: u64,
}

/// Opens the store in `dir` (created when missing; a file there is an error).
pub fn open_store(dir: &Path) -> Result<Store, CliError> {
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::msg(format!(
            "--data {}: not a directory",
            dir.display()
        )));
    }
    Store::open(dir).map_err(|e| CliError::msg(format!("cannot open store {}: {e}", dir.display())))
}

impl LocalStore {
    /// The store in `dir` for the run of `spec` (a rollout or match-simulation spec
    /// computed with engine `fingerprint`) cut into `batches` batches.
    pub fn open(
        dir: &Path,
        spec: v1::JobSpec,
        fingerprint: &str,
        batches: u64,
    ) -> Result<LocalStore, CliError> {
        let identity = memo_identity(&spec).map_err(|e| CliError::msg(format!("--data: {e}")))?;
        let store = open_store(dir)?;
        Ok(LocalStore {
            blobs: store.blobs(BlobKind::Batches),
            first_ply: store.blobs(BlobKind::FirstPly),
            identity,
            store,
            spec,
            fingerprint: fingerprint.to_string(),
            results: Vec::new(),
            batches,
            reused: 0,
        })
    }

    /// The remembered result of batch `b` over `units` with candidates `active`
    /// (empty: all), decoded by `decode`; `None` when absent, corrupt or unreadable.
    pub fn lookup<T>(
        &mut self,
        b: u64,
        units: &Range<u64>,
        active: &[bool],
        decode: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<Option<T>, CliError> {
        let key = memo::key(&self.identity, units, active);
        let bytes = self
            .blobs
            .get(&self.fingerprint, &key)
            .map_err(store_error)?;
        let Some((bytes, value)) = bytes.and_then(|b| decode(&b).map(|v| (b, v))) else {
            return Ok(None);
        };
        self.results.push((b, bytes));
        self.reused += 1;
        Ok(Some(value))
    }

    /// Remembers the computed result `bytes` (a wire `BatchStats` or
    /// `MatchSimStats`) of batch `b`.
    pub fn remember(
        &mut self,
        b: u64,
        units: &Range<u64>,
        active: &[bool],
        bytes: Vec<u8>,
    ) -> Result<(), CliError> {
        let key = memo::key(&self.identity, units, active);
        memo::remember(&self.blobs, &self.fingerprint, &key, &bytes).map_err(store_error)?;
        self.results.push((b, bytes));
        Ok(())
    }

    /// Loads the stored first-move tables of rollout `plan` into `cache`.
    pub fn load_first_ply(&self, plan: &RolloutPlan, cache: &FirstPlyCache) -> usize {
        let get = |k: &[u8]| self.first_ply.get(&self.fingerprint, k).ok().flatten();
        cache.import_all(&stored_tables(&plan.job, get).entries)
    }

    /// Stores the first-move tables `cache` computed since the last call.
    pub fn keep_first_ply(&self, cache: &FirstPlyCache) -> Result<usize, CliError> {
        memo::keep_all(&self.first_ply, &self.fingerprint, &cache.take_computed())
            .map_err(store_error)
    }

    /// Records the finished run as a done job with its batch results, flushed
    /// (unless the same run is recorded already), and says on stderr how many
    /// batches were reused.
    pub fn finish(self) -> Result<(), CliError> {
        let spec = prost::Message::encode_to_vec(&self.spec);
        let jobs = self.store.jobs().map_err(store_error)?;
        if !jobs
            .iter()
            .any(|j| j.state == JobState::Done && j.spec == spec)
        {
            // One process holds the store: the next of its own IDs (sled's
            // generator jumps by a million after a reopen).
            let rec = JobRecord {
                id: jobs.iter().map(|j| j.id).max().unwrap_or(0) + 1,
                state: JobState::Done,
                message: String::new(),
                spec,
                batches: self.batches,
            };
            for (b, bytes) in &self.results {
                self.store
                    .put_result(rec.id, *b, bytes)
                    .map_err(store_error)?;
            }
            self.store.put_job(&rec).map_err(store_error)?;
        }
        if self.reused > 0 {
            eprintln!(
                "{} of {} batches found in the store, not computed again",
                self.reused,
                self.results.len()
            );
        }
        Ok(())
    }
}

fn store_error(e: bgfarm_storage::StoreError) -> CliError {
    CliError::msg(format!("local store: {e}"))
}
