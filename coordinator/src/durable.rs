//! Group commit: every accepted result is on disk before it is acknowledged, yet
//! concurrent exchanges share one fsync.
//!
//! An fsync costs 1 to 10 ms on common disks, so one per exchange would cap the
//! coordinator near 100 to 1,000 exchanges a second. Instead each caller takes a
//! ticket after its writes and waits; one flusher thread flushes everything written
//! so far and releases every ticket up to the one it read before flushing. Under
//! load a single fsync covers hundreds of results (DESIGN.md: >= 20k results/s).

use bgfarm_storage::Store;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use tokio::sync::watch;
use tracing::error;

/// How far the flusher got.
#[derive(Clone, Debug, Default)]
struct Flushed {
    /// Every ticket up to this one is durable.
    upto: u64,
    /// A failed flush: the store can no longer promise durability.
    error: Option<String>,
    /// Flushes done (for the metrics).
    flushes: u64,
}

struct Tickets {
    issued: u64,
    stop: bool,
}

struct Inner {
    tickets: Mutex<Tickets>,
    wake: Condvar,
    done: watch::Sender<Flushed>,
}

fn lock(m: &Mutex<Tickets>) -> MutexGuard<'_, Tickets> {
    // Two integer fields: consistent even after a panic elsewhere.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The group-commit handle of one store; stops and joins its thread when dropped
/// (the thread holds the store, and sled keeps its directory locked until every
/// handle is gone: a coordinator reopened in the same process must find it free).
pub struct Durable {
    inner: Arc<Inner>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Durable {
    /// Starts the flusher thread of `store`.
    pub fn start(store: Store) -> Result<Durable, std::io::Error> {
        let inner = Arc::new(Inner {
            tickets: Mutex::new(Tickets {
                issued: 0,
                stop: false,
            }),
            wake: Condvar::new(),
            done: watch::channel(Flushed::default()).0,
        });
        let thread_inner = inner.clone();
        let thread = std::thread::Builder::new()
            .name("bgfarm-flush".into())
            .spawn(move || flusher(&thread_inner, &store))?;
        Ok(Durable {
            inner,
            thread: Some(thread),
        })
    }

    /// Waits until every store write made before this call is on disk.
    pub async fn sync(&self) -> Result<(), String> {
        let ticket = {
            let mut t = lock(&self.inner.tickets);
            t.issued += 1;
            t.issued
        };
        self.inner.wake.notify_one();
        let mut rx = self.inner.done.subscribe();
        let f = rx
            .wait_for(|f| f.upto >= ticket || f.error.is_some())
            .await
            .map_err(|_| "the store flusher stopped".to_string())?;
        match &f.error {
            Some(e) if f.upto < ticket => Err(e.clone()),
            _ => Ok(()),
        }
    }

    /// Whether every flush so far succeeded.
    pub fn healthy(&self) -> bool {
        self.inner.done.borrow().error.is_none()
    }

    /// Flushes done since start.
    pub fn flushes(&self) -> u64 {
        self.inner.done.borrow().flushes
    }
}

impl Drop for Durable {
    fn drop(&mut self) {
        lock(&self.inner.tickets).stop = true;
        self.inner.wake.notify_one();
        if let Some(t) = self.thread.take() {
            // A panicked flusher has already reported its error.
            let _ = t.join();
        }
    }
}

fn flusher(inner: &Inner, store: &Store) {
    let mut flushed = 0u64;
    loop {
        let target = {
            let mut t = lock(&inner.tickets);
            while t.issued <= flushed && !t.stop {
                t = inner.wake.wait(t).unwrap_or_else(|p| p.into_inner());
            }
            if t.stop {
                return;
            }
            t.issued
        };
        // Every writer holding a ticket <= target wrote before taking it, so this
        // flush covers its writes.
        match store.flush() {
            Ok(()) => {
                flushed = target;
                inner.done.send_modify(|f| {
                    f.upto = target;
                    f.flushes += 1;
                });
            }
            Err(e) => {
                error!("store flush failed, results can no longer be acknowledged: {e}");
                inner.done.send_modify(|f| f.error = Some(e.to_string()));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_syncs_share_flushes() {
        let dir = std::env::temp_dir().join(format!("bgfarm-durable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&dir).expect("store");
        let d = Arc::new(Durable::start(store.clone()).expect("flusher"));
        let tasks: Vec<_> = (0..64u64)
            .map(|i| {
                let (d, store) = (d.clone(), store.clone());
                tokio::spawn(async move {
                    store.put_result(1, i, b"x").expect("put");
                    d.sync().await
                })
            })
            .collect();
        for t in tasks {
            assert_eq!(t.await.expect("task"), Ok(()));
        }
        assert!(d.healthy());
        assert!(d.flushes() >= 1 && d.flushes() <= 64, "{}", d.flushes());
        drop(d);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
