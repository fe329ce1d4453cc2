//! Which worker computed each accepted result, kept while the coordinator
//! verifies a sample of batches (`serve --verify-fraction`): when a worker is
//! found handing in wrong results, every result it computed is taken back and
//! computed again, including those another job took from the memory of computed
//! batches. Two trees: `origins` (worker, job, batch) and `memo_origins` (memo
//! key -> worker). Writes land with the result they describe and are flushed
//! with it.

use crate::{Store, StoreError};

/// Key of an origin: the worker ID's length, the ID, then job and batch
/// big-endian, so one worker's results are one prefix.
fn origin_key(worker: &str, job: u64, batch: u64) -> Vec<u8> {
    let mut k = worker_prefix(worker);
    k.extend_from_slice(&job.to_be_bytes());
    k.extend_from_slice(&batch.to_be_bytes());
    k
}

fn worker_prefix(worker: &str) -> Vec<u8> {
    let id = &worker.as_bytes()[..worker.len().min(255)];
    let mut k = Vec::with_capacity(1 + id.len() + 16);
    k.push(id.len() as u8);
    k.extend_from_slice(id);
    k
}

impl Store {
    /// Records that `worker` computed batch `batch` of job `job`.
    pub fn put_origin(&self, worker: &str, job: u64, batch: u64) -> Result<(), StoreError> {
        self.origins.insert(origin_key(worker, job, batch), &[])?;
        Ok(())
    }

    /// Records that `worker` computed the remembered result under `memo_key`.
    pub fn put_memo_origin(&self, memo_key: &[u8], worker: &str) -> Result<(), StoreError> {
        self.memo_origins.insert(memo_key, worker.as_bytes())?;
        Ok(())
    }

    /// The worker that computed the remembered result under `memo_key`, if known.
    pub fn memo_origin(&self, memo_key: &[u8]) -> Result<Option<String>, StoreError> {
        Ok(self
            .memo_origins
            .get(memo_key)?
            .map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    /// Forgets that the remembered result under `memo_key` was computed by anyone.
    pub fn forget_memo_origin(&self, memo_key: &[u8]) -> Result<(), StoreError> {
        self.memo_origins.remove(memo_key)?;
        Ok(())
    }

    /// Every (job, batch) `worker` computed, in job and batch order.
    pub fn origins_of(&self, worker: &str) -> Result<Vec<(u64, u64)>, StoreError> {
        let prefix = worker_prefix(worker);
        self.origins
            .scan_prefix(&prefix)
            .keys()
            .map(|k| {
                let k = k?;
                let tail = &k[prefix.len()..];
                let word = |r: std::ops::Range<usize>| {
                    tail.get(r)
                        .and_then(|b| <[u8; 8]>::try_from(b).ok())
                        .map(u64::from_be_bytes)
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!("origin key of {} bytes", k.len()))
                        })
                };
                Ok((word(0..8)?, word(8..16)?))
            })
            .collect()
    }

    /// Forgets every origin of `worker`.
    pub fn forget_origins(&self, worker: &str) -> Result<(), StoreError> {
        for k in self.origins.scan_prefix(worker_prefix(worker)).keys() {
            self.origins.remove(k?)?;
        }
        Ok(())
    }

    /// Deletes the stored result of batch `batch` of job `job` (one found wrong);
    /// true when there was one.
    pub fn delete_result(&self, job: u64, batch: u64) -> Result<bool, StoreError> {
        Ok(self
            .results
            .remove(crate::result_key(job, batch))?
            .is_some())
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;

    #[test]
    fn origins_are_per_worker_and_forgotten() {
        let dir = std::env::temp_dir().join(format!("bgfarm-origins-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let s = Store::open(&dir).expect("open");
        s.put_origin("a-1", 3, 7).expect("put");
        s.put_origin("a-1", 2, 9).expect("put");
        // "a-1" is not a prefix of "a-10"'s records: IDs are length-prefixed.
        s.put_origin("a-10", 3, 8).expect("put");
        assert_eq!(s.origins_of("a-1").expect("scan"), vec![(2, 9), (3, 7)]);
        assert_eq!(s.origins_of("a-10").expect("scan"), vec![(3, 8)]);
        s.forget_origins("a-1").expect("forget");
        assert!(s.origins_of("a-1").expect("scan").is_empty());
        s.put_memo_origin(b"key", "a-10").expect("put");
        assert_eq!(s.memo_origin(b"key").expect("get").as_deref(), Some("a-10"));
        s.forget_memo_origin(b"key").expect("forget");
        assert_eq!(s.memo_origin(b"key").expect("get"), None);
        assert_eq!(
            s.put_result(3, 8, b"x").expect("put"),
            crate::PutOutcome::Inserted
        );
        assert!(s.delete_result(3, 8).expect("delete"));
        assert!(!s.delete_result(3, 8).expect("delete"));
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
