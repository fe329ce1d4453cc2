//! What a job knows of its batches, in memory proportional to the leases in
//! flight plus one bit per batch: done or not ([`DoneBits`]), the queues as runs
//! ([`RangeQueue`]), and leases, attempts and pruned candidate sets only for the
//! batches that have them. A batch's unit range is computed from the job's kind
//! when needed, and its result lives in the store. It replaces a record of about
//! 170 bytes per batch, which made a 10^8-trial rollout (694,445 batches) hold
//! 128 MB before a single lease was granted.

use crate::done_bits::DoneBits;
use crate::range_queue::RangeQueue;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

/// A batch handed to a worker until `deadline` (extended by its heartbeats).
#[derive(Clone, Debug)]
pub struct Lease {
    pub worker: String,
    pub deadline: Instant,
}

/// Leases a batch has had, kept until it is done.
#[derive(Clone, Debug, Default)]
struct Tries {
    /// Leases handed out so far (capped by `Config::max_attempts`).
    attempts: u32,
    /// The worker of the last expired lease: a re-lease prefers another one.
    last_failed: Option<String>,
}

/// A lease that ran out, as the reaper reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expired {
    pub batch: u64,
    pub worker: String,
    pub attempts: u32,
}

/// The batches of one job.
#[derive(Debug)]
pub struct Ledger {
    done: DoneBits,
    /// Batches leased now, by index (ordered: the reaper re-queues in batch order).
    leases: BTreeMap<u64, Lease>,
    tries: HashMap<u64, Tries>,
    /// Rollout candidates the batches from each key on run (a stop rule prunes
    /// them wave by wave; absent or empty: all).
    active: BTreeMap<u64, Vec<bool>>,
    /// Batches waiting for a lease, in the order they will be handed out; may hold
    /// stale entries (batches since leased or done), skipped when popped.
    pub pending: RangeQueue,
    /// Batches released but not yet looked up in the memory of computed batches
    /// ([`crate::reuse`]), which queues the ones it does not find in `pending`.
    pub unchecked: RangeQueue,
}

impl Ledger {
    /// `count` batches, none done, leased or queued.
    pub fn new(count: u64) -> Ledger {
        Ledger {
            done: DoneBits::new(count),
            leases: BTreeMap::new(),
            tries: HashMap::new(),
            active: BTreeMap::new(),
            pending: RangeQueue::default(),
            unchecked: RangeQueue::default(),
        }
    }

    /// Batches of the job.
    pub fn count(&self) -> u64 {
        self.done.len()
    }

    /// Whether batch `b` has an accepted result.
    pub fn is_done(&self, b: u64) -> bool {
        self.done.contains(b)
    }

    /// The done set, copied (a fold reads the store without the lock).
    pub fn done_set(&self) -> DoneBits {
        self.done.clone()
    }

    /// Marks batch `b` done and forgets its lease and attempts; false when it was
    /// done already or is not a batch of the job.
    pub fn mark_done(&mut self, b: u64) -> bool {
        if !self.done.insert(b) {
            return false;
        }
        self.leases.remove(&b);
        self.tries.remove(&b);
        true
    }

    /// Whether batch `b` may be leased now: a batch of the job, neither done nor
    /// leased.
    pub fn is_free(&self, b: u64) -> bool {
        b < self.count() && !self.done.contains(b) && !self.leases.contains_key(&b)
    }

    /// Extends batch `b`'s lease to `deadline` when `worker` holds it.
    pub fn extend(&mut self, b: u64, worker: &str, deadline: Instant) -> bool {
        match self.leases.get_mut(&b) {
            Some(l) if l.worker == worker => {
                l.deadline = deadline;
                true
            }
            _ => false,
        }
    }

    /// Whether any batch is leased.
    pub fn any_leased(&self) -> bool {
        !self.leases.is_empty()
    }

    /// Batches leased now.
    pub fn leased(&self) -> u64 {
        self.leases.len() as u64
    }

    /// Leases batch `b` to `worker` until `deadline`; returns its attempt number
    /// (1 for a first lease).
    pub fn grant(&mut self, b: u64, worker: &str, deadline: Instant) -> u32 {
        let t = self.tries.entry(b).or_default();
        t.attempts += 1;
        self.leases.insert(
            b,
            Lease {
                worker: worker.to_string(),
                deadline,
            },
        );
        t.attempts
    }

    /// Takes back batch `b`'s lease when `worker` holds it, not counting it as an
    /// attempt (the worker gave it back unstarted); true when it did.
    pub fn give_back(&mut self, b: u64, worker: &str) -> bool {
        if self.leases.get(&b).is_none_or(|l| l.worker != worker) {
            return false;
        }
        self.leases.remove(&b);
        if let Some(t) = self.tries.get_mut(&b) {
            t.attempts = t.attempts.saturating_sub(1);
        }
        true
    }

    /// Whether batch `b`'s last lease expired on `worker`.
    pub fn failed_on(&self, b: u64, worker: &str) -> bool {
        self.tries
            .get(&b)
            .and_then(|t| t.last_failed.as_deref())
            .is_some_and(|w| w == worker)
    }

    /// Takes back every lease whose deadline is past, in batch order, noting the
    /// worker each expired on.
    pub fn expire(&mut self, now: Instant) -> Vec<Expired> {
        let gone: Vec<u64> = self
            .leases
            .iter()
            .filter(|(_, l)| l.deadline <= now)
            .map(|(&b, _)| b)
            .collect();
        gone.into_iter()
            .filter_map(|b| {
                let lease = self.leases.remove(&b)?;
                let t = self.tries.entry(b).or_default();
                t.last_failed = Some(lease.worker.clone());
                Some(Expired {
                    batch: b,
                    worker: lease.worker,
                    attempts: t.attempts,
                })
            })
            .collect()
    }

    /// Takes over `old`'s leases and attempts of the batches not done here (a
    /// ledger rebuilt from the store while workers hold leases).
    pub fn adopt_leases(&mut self, old: Ledger) {
        for (b, l) in old.leases {
            if !self.done.contains(b) {
                self.leases.insert(b, l);
            }
        }
        for (b, t) in old.tries {
            if !self.done.contains(b) {
                self.tries.insert(b, t);
            }
        }
    }

    /// Takes back every lease `worker` holds (a quarantined worker); returns the
    /// batches, to be queued again.
    pub fn revoke(&mut self, worker: &str) -> Vec<u64> {
        let held: Vec<u64> = self
            .leases
            .iter()
            .filter(|(_, l)| l.worker == worker)
            .map(|(&b, _)| b)
            .collect();
        for b in &held {
            self.leases.remove(b);
        }
        held
    }

    /// Drops every lease and queued batch (a job that ended).
    pub fn close(&mut self) {
        self.leases.clear();
        self.tries.clear();
        self.pending.clear();
        self.unchecked.clear();
    }

    /// Which candidates batch `b` runs (empty: all).
    pub fn active(&self, b: u64) -> &[bool] {
        self.active
            .range(..=b)
            .next_back()
            .map_or(&[], |(_, a)| a.as_slice())
    }

    /// Batches from `from` on run the candidates `active` (empty: all).
    pub fn set_active_from(&mut self, from: u64, active: Vec<bool>) {
        self.active.split_off(&from);
        if self.active(from) != active.as_slice() {
            self.active.insert(from, active);
        }
    }

    /// Bytes held, roughly.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.done.bytes()
            + 16 * (self.pending.runs() + self.unchecked.runs())
            + 80 * (self.leases.len() + self.tries.len())
            + self.active.values().map(|a| 32 + a.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_lease_is_granted_extended_expired_and_forgotten_when_done() {
        let now = Instant::now();
        let mut l = Ledger::new(10);
        assert!(l.is_free(3));
        assert_eq!(l.grant(3, "w1", now), 1);
        assert!(!l.is_free(3));
        assert!(!l.extend(3, "w2", now + Duration::from_secs(5)));
        assert!(l.extend(3, "w1", now + Duration::from_secs(5)));
        assert!(l.expire(now + Duration::from_secs(1)).is_empty());
        let e = l.expire(now + Duration::from_secs(5));
        assert_eq!(
            e,
            vec![Expired {
                batch: 3,
                worker: "w1".into(),
                attempts: 1
            }]
        );
        assert!(l.failed_on(3, "w1"));
        assert!(!l.failed_on(3, "w2"));
        assert_eq!(l.grant(3, "w2", now), 2);
        assert!(l.mark_done(3));
        assert!(!l.mark_done(3));
        assert!(!l.any_leased());
        assert!(!l.failed_on(3, "w1"));
        assert!(!l.is_free(3));
        assert!(!l.mark_done(10));
        assert!(!l.is_free(10));
    }

    #[test]
    fn giving_back_does_not_count_as_an_attempt() {
        let now = Instant::now();
        let mut l = Ledger::new(4);
        assert_eq!(l.grant(0, "w", now), 1);
        assert!(!l.give_back(0, "other"));
        assert!(l.give_back(0, "w"));
        assert!(l.is_free(0));
        assert_eq!(l.grant(0, "w", now), 1);
    }

    #[test]
    fn active_sets_hold_from_their_wave_on() {
        let mut l = Ledger::new(100);
        assert!(l.active(50).is_empty());
        l.set_active_from(20, vec![true, false]);
        l.set_active_from(40, vec![false, false]);
        assert!(l.active(19).is_empty());
        assert_eq!(l.active(20), [true, false]);
        assert_eq!(l.active(39), [true, false]);
        assert_eq!(l.active(99), [false, false]);
        // The same set again adds nothing.
        l.set_active_from(60, vec![false, false]);
        assert_eq!(l.active.len(), 2);
    }

    #[test]
    fn a_million_batches_cost_about_a_bit_each() {
        let mut l = Ledger::new(1_000_000);
        l.unchecked.push_back_range(0..1_000_000);
        for b in l.unchecked.drain() {
            l.pending.push_back(b);
        }
        assert!(l.bytes() < 130_000, "{} bytes", l.bytes());
    }
}
