//! Verification of a sample of batches by other workers (`serve
//! --verify-fraction F`), as volunteer-computing projects check untrusted
//! machines: a result can pass every range and consistency check and still be
//! wrong (a worker with a valid token that lies, or bad memory).
//!
//! A batch is sampled by a hash of (job, batch), so the sample is fixed across
//! restarts and cannot be aimed at by a worker. Its first result is accepted as
//! usual; the batch is then leased once more, to another worker. Results are
//! exact (the determinism contract), so two honest workers hand in the same bytes:
//! agreement settles the check. On disagreement a third worker decides, and so on
//! until two answers agree (at most [`MAX_ANSWERS`]); every worker outvoted is a
//! liar, quarantined by [`crate::quarantine`], and every batch it computed is
//! computed again. Checks live in memory: a restart forgets the unsettled ones.

use crate::ledger::Lease;
use std::collections::BTreeMap;
use std::time::Instant;

/// Answers gathered for one batch before a check gives up (no two agree: more
/// liars than honest workers among those asked).
pub const MAX_ANSWERS: usize = 5;

/// Whether batch `batch` of job `job` is verified at `fraction` (0 to 1).
pub fn sampled(fraction: f64, job: u64, batch: u64) -> bool {
    if fraction <= 0.0 {
        return false;
    }
    // splitmix64 of the pair: uniform, and independent of batch order.
    let mut z = job.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ batch.wrapping_add(0x632b_e59b_d9b4_e019);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((z >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

/// One batch under verification.
#[derive(Debug)]
struct Check {
    /// Who answered and what: the first is the accepted result's worker, whose
    /// bytes are the stored ones (`None`); later ones differed from them.
    answers: Vec<(String, Option<Vec<u8>>)>,
    lease: Option<Lease>,
}

/// What a verification result settled.
#[derive(Debug, PartialEq, Eq)]
pub enum Settled {
    /// It agrees with the accepted result, and so does everyone asked.
    Verified,
    /// Two answers agree: these workers answered otherwise.
    Liars(Vec<String>),
    /// It differs from every answer so far: another worker is asked.
    Disputed,
    /// [`MAX_ANSWERS`] answers and no two agree: the check is dropped.
    Inconclusive,
}

/// A job's batches under verification.
#[derive(Debug, Default)]
pub struct Checks {
    open: BTreeMap<u64, Check>,
}

impl Checks {
    /// Whether no check is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// Opens a check of batch `b`, whose accepted result `origin` computed.
    pub fn open(&mut self, b: u64, origin: &str) {
        self.open.entry(b).or_insert_with(|| Check {
            answers: vec![(origin.to_string(), None)],
            lease: None,
        });
    }

    /// Leases to `worker` a batch it has not answered for, until `deadline`.
    pub fn lease_for(&mut self, worker: &str, deadline: Instant) -> Option<u64> {
        let (&b, check) = self
            .open
            .iter_mut()
            .find(|(_, c)| c.lease.is_none() && c.answers.iter().all(|(w, _)| w != worker))?;
        check.lease = Some(Lease {
            worker: worker.to_string(),
            deadline,
        });
        Some(b)
    }

    /// Whether `worker` holds the verification lease of batch `b`.
    pub fn holds(&self, b: u64, worker: &str) -> bool {
        self.open
            .get(&b)
            .and_then(|c| c.lease.as_ref())
            .is_some_and(|l| l.worker == worker)
    }

    /// Extends `worker`'s verification lease of `b`; false when it holds none.
    pub fn extend(&mut self, b: u64, worker: &str, deadline: Instant) -> bool {
        match self.open.get_mut(&b).and_then(|c| c.lease.as_mut()) {
            Some(l) if l.worker == worker => {
                l.deadline = deadline;
                true
            }
            _ => false,
        }
    }

    /// Takes back `worker`'s verification lease of `b`; false when it holds none.
    pub fn give_back(&mut self, b: u64, worker: &str) -> bool {
        let Some(c) = self.open.get_mut(&b) else {
            return false;
        };
        if c.lease.as_ref().is_some_and(|l| l.worker == worker) {
            c.lease = None;
            return true;
        }
        false
    }

    /// Takes back the verification leases past their deadline (or held by
    /// `gone`, a quarantined worker); returns how many.
    pub fn expire(&mut self, now: Instant, gone: Option<&str>) -> u64 {
        let mut n = 0;
        for c in self.open.values_mut() {
            if c.lease
                .as_ref()
                .is_some_and(|l| l.deadline <= now || Some(l.worker.as_str()) == gone)
            {
                c.lease = None;
                n += 1;
            }
        }
        n
    }

    /// Drops the checks whose accepted result `worker` computed (it is computed
    /// again) and forgets its answers to the others.
    pub fn forget_worker(&mut self, worker: &str) {
        self.open.retain(|_, c| c.answers[0].0 != worker);
        for c in self.open.values_mut() {
            c.answers.retain(|(w, _)| w != worker);
        }
    }

    /// Drops every check (the job ended).
    pub fn clear(&mut self) {
        self.open.clear();
    }

    /// Settles `worker`'s verification result of batch `b`: `same` when it equals
    /// the accepted result, else its `bytes`.
    pub fn settle(&mut self, b: u64, worker: &str, same: bool, bytes: &[u8]) -> Settled {
        let Some(c) = self.open.get_mut(&b) else {
            return Settled::Inconclusive;
        };
        c.lease = None;
        let agreed = if same {
            Some(0)
        } else {
            c.answers
                .iter()
                .position(|(_, a)| a.as_deref() == Some(bytes))
        };
        let settled = match agreed {
            Some(i) => {
                let liars: Vec<String> = c
                    .answers
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, (w, _))| w.clone())
                    .collect();
                if liars.is_empty() {
                    Settled::Verified
                } else {
                    Settled::Liars(liars)
                }
            }
            None if c.answers.len() + 1 >= MAX_ANSWERS => Settled::Inconclusive,
            None => {
                c.answers.push((worker.to_string(), Some(bytes.to_vec())));
                return Settled::Disputed;
            }
        };
        self.open.remove(&b);
        settled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_about_the_fraction_and_fixed() {
        let n = (0..100_000).filter(|&b| sampled(0.02, 7, b)).count();
        assert!(
            (1_800..2_200).contains(&n),
            "{n} of 100,000 sampled at 0.02"
        );
        assert!((0..1000).all(|b| !sampled(0.0, 7, b)));
        assert!((0..1000).all(|b| sampled(1.0, 7, b)));
        assert_eq!(sampled(0.5, 3, 11), sampled(0.5, 3, 11));
    }

    #[test]
    fn agreement_verifies_and_a_lease_goes_to_another_worker() {
        let now = Instant::now();
        let mut c = Checks::default();
        c.open(4, "a");
        assert_eq!(c.lease_for("a", now), None);
        assert_eq!(c.lease_for("b", now), Some(4));
        assert_eq!(c.lease_for("c", now), None, "leased once at a time");
        assert!(c.holds(4, "b"));
        assert_eq!(c.settle(4, "b", true, b""), Settled::Verified);
        assert!(c.is_empty());
    }

    #[test]
    fn a_third_worker_outvotes_the_liar() {
        let now = Instant::now();
        // The accepted result was wrong: b and c agree against a.
        let mut c = Checks::default();
        c.open(1, "a");
        assert_eq!(c.lease_for("b", now), Some(1));
        assert_eq!(c.settle(1, "b", false, b"right"), Settled::Disputed);
        assert_eq!(c.lease_for("b", now), None, "b answered already");
        assert_eq!(c.lease_for("c", now), Some(1));
        assert_eq!(
            c.settle(1, "c", false, b"right"),
            Settled::Liars(vec!["a".into()])
        );
        // The verifier lied: c agrees with the accepted result.
        c.open(2, "a");
        c.lease_for("b", now);
        assert_eq!(c.settle(2, "b", false, b"wrong"), Settled::Disputed);
        c.lease_for("c", now);
        assert_eq!(
            c.settle(2, "c", true, b""),
            Settled::Liars(vec!["b".into()])
        );
        assert!(c.is_empty());
    }

    #[test]
    fn leases_expire_and_no_agreement_gives_up() {
        let now = Instant::now();
        let mut c = Checks::default();
        c.open(0, "w0");
        c.lease_for("w1", now);
        assert_eq!(c.expire(now, None), 1);
        for (i, w) in ["w1", "w2", "w3"].iter().enumerate() {
            assert_eq!(c.lease_for(w, now), Some(0));
            assert_eq!(c.settle(0, w, false, &[i as u8]), Settled::Disputed);
        }
        c.lease_for("w4", now);
        assert_eq!(c.settle(0, "w4", false, b"x"), Settled::Inconclusive);
        assert!(c.is_empty());
    }

    #[test]
    fn a_quarantined_origin_drops_its_checks() {
        let mut c = Checks::default();
        c.open(0, "liar");
        c.open(1, "honest");
        c.forget_worker("liar");
        assert_eq!(c.lease_for("x", Instant::now()), Some(1));
    }
}
