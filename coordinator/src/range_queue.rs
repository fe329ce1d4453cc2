//! A queue of batch indices kept as runs: a job's 10^6 pending batches are one
//! range of 16 bytes, not 8 MB of indices. Batches go in mostly in runs (a
//! released wave, the misses of a memo lookup) and come back one at a time (an
//! expired or released lease, at the front), so runs stay few.

use std::collections::VecDeque;
use std::ops::Range;

/// Batch indices in the order they will be handed out. May hold an index twice
/// (a batch released again while a stale entry waits); its users skip indices
/// that are no longer pending when they pop them.
#[derive(Clone, Debug, Default)]
pub struct RangeQueue {
    runs: VecDeque<Range<u64>>,
}

impl RangeQueue {
    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Indices queued (stale ones included).
    #[cfg(test)]
    pub fn len(&self) -> u64 {
        self.runs.iter().map(|r| r.end - r.start).sum()
    }

    /// Queues `b` last.
    pub fn push_back(&mut self, b: u64) {
        self.push_back_range(b..b + 1);
    }

    /// Queues the run `r` last, in order.
    pub fn push_back_range(&mut self, r: Range<u64>) {
        if r.is_empty() {
            return;
        }
        match self.runs.back_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => self.runs.push_back(r),
        }
    }

    /// Queues `b` first.
    pub fn push_front(&mut self, b: u64) {
        match self.runs.front_mut() {
            Some(first) if first.start == b + 1 => first.start = b,
            _ => self.runs.push_front(b..b + 1),
        }
    }

    /// The first index, taken.
    pub fn pop_front(&mut self) -> Option<u64> {
        let first = self.runs.front_mut()?;
        let b = first.start;
        first.start += 1;
        if first.is_empty() {
            self.runs.pop_front();
        }
        Some(b)
    }

    /// Every queued index in order, taken (the queue is left empty).
    #[cfg(test)]
    pub fn drain(&mut self) -> impl Iterator<Item = u64> {
        std::mem::take(&mut self.runs).into_iter().flatten()
    }

    /// Forgets everything queued.
    pub fn clear(&mut self) {
        self.runs.clear();
    }

    /// Runs held: what the queue costs in memory (16 bytes each).
    #[cfg(test)]
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_and_pop_in_order() {
        let mut q = RangeQueue::default();
        q.push_back_range(0..1_000_000);
        assert_eq!(q.runs(), 1);
        q.push_back(1_000_000);
        assert_eq!(q.runs(), 1);
        assert_eq!(q.len(), 1_000_001);
        assert_eq!(q.pop_front(), Some(0));
        assert_eq!(q.pop_front(), Some(1));
        // Leases 1 and 0 come back (the reaper pushes in reverse order).
        q.push_front(1);
        q.push_front(0);
        assert_eq!(q.runs(), 1);
        assert_eq!(q.pop_front(), Some(0));
        q.push_front(7);
        assert_eq!(q.runs(), 2);
        let first: Vec<u64> = std::iter::from_fn(|| q.pop_front()).take(3).collect();
        assert_eq!(first, vec![7, 1, 2]);
        q.clear();
        assert!(q.is_empty());
        assert_eq!(q.pop_front(), None);
    }

    #[test]
    fn drain_yields_every_index_once_in_order() {
        let mut q = RangeQueue::default();
        q.push_back_range(5..8);
        q.push_back(10);
        q.push_front(2);
        q.push_back_range(3..3);
        assert_eq!(q.drain().collect::<Vec<_>>(), vec![2, 5, 6, 7, 10]);
        assert!(q.is_empty());
    }
}
