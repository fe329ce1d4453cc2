//! Counters of the coordinator and their Prometheus text exposition (format 0.0.4),
//! served by [`crate::http`] on `--metrics-listen`.
//!
//! Counters live in the coordinator's state (under its mutex, so they need no
//! atomics) and restart from 0 with the process, as Prometheus counters may.

use std::fmt::Write;

/// Process-wide counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub jobs_submitted: u64,
    pub leases_granted: u64,
    /// Leases of a batch that had been leased before (after an expiry).
    pub retries: u64,
    pub leases_released: u64,
    pub leases_expired: u64,
    pub results_accepted: u64,
    pub results_duplicate: u64,
    pub results_conflict: u64,
    pub results_rejected: u64,
    /// Accepted results found in the store at start.
    pub batches_resumed: u64,
    /// Batches accepted from the memory of computed batches, never leased.
    pub batches_reused: u64,
    /// First-move tables handed in by workers, sent with leases, and handed in
    /// differing from the stored table of their key.
    pub first_ply_computed: u64,
    pub first_ply_served: u64,
    pub first_ply_conflicts: u64,
    /// Verification ([`crate::verify`]): leases of accepted batches to a second
    /// worker, checks settled by agreement, disagreements, workers quarantined and
    /// the accepted batches of theirs taken back to be computed again.
    pub verify_leases: u64,
    pub verified: u64,
    pub verify_disputes: u64,
    pub quarantined: u64,
    pub batches_revoked: u64,
}

/// The store's first-move cache: entries now, and since the store was opened the
/// entries evicted over the cap and those found corrupt (deleted, recomputed).
#[derive(Clone, Copy, Debug, Default)]
pub struct TableLine {
    pub entries: u64,
    pub evicted: u64,
    pub corrupt: u64,
}

impl TableLine {
    /// The line of `blobs`.
    pub fn of(blobs: &bgfarm_storage::Blobs) -> TableLine {
        use std::sync::atomic::Ordering::Relaxed;
        let c = blobs.counters();
        TableLine {
            entries: blobs.len(),
            evicted: c.evicted.load(Relaxed),
            corrupt: c.corrupt.load(Relaxed),
        }
    }
}

/// One worker's line of metrics.
pub struct WorkerLine {
    pub id: String,
    pub threads: u32,
    pub units: u64,
    pub rate: f64,
    pub conflicts: u32,
}

/// Everything one scrape shows, taken under the lock and rendered outside it.
pub struct Snapshot {
    pub counters: Counters,
    /// Jobs per state name (`queued`, `running`, ...), every state present.
    pub jobs: Vec<(&'static str, u64)>,
    pub batches_pending: u64,
    pub batches_leased: u64,
    pub workers: Vec<WorkerLine>,
    pub first_ply: TableLine,
    pub flushes: u64,
    pub store_healthy: bool,
    pub uptime_s: f64,
}

/// A label value with `\`, `"` and newlines escaped.
fn label(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

struct Out(String);

impl Out {
    fn head(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.0, "# HELP {name} {help}");
        let _ = writeln!(self.0, "# TYPE {name} {kind}");
    }

    fn one(&mut self, name: &str, kind: &str, help: &str, v: impl std::fmt::Display) {
        self.head(name, kind, help);
        let _ = writeln!(self.0, "{name} {v}");
    }
}

/// The exposition text of `s`.
pub fn render(s: &Snapshot) -> String {
    let c = &s.counters;
    let mut o = Out(String::with_capacity(4096));
    o.head("bgfarm_jobs", "gauge", "Jobs by state.");
    for (state, n) in &s.jobs {
        let _ = writeln!(o.0, "bgfarm_jobs{{state=\"{state}\"}} {n}");
    }
    let counters: [(&str, &str, u64); 21] = [
        (
            "bgfarm_jobs_submitted_total",
            "Jobs submitted.",
            c.jobs_submitted,
        ),
        (
            "bgfarm_batches_leased_total",
            "Leases handed out.",
            c.leases_granted,
        ),
        (
            "bgfarm_batch_retries_total",
            "Leases of a batch leased before (its earlier lease expired).",
            c.retries,
        ),
        (
            "bgfarm_batches_released_total",
            "Leases given back unfinished by workers.",
            c.leases_released,
        ),
        (
            "bgfarm_batches_expired_total",
            "Leases that expired without a result.",
            c.leases_expired,
        ),
        (
            "bgfarm_batches_accepted_total",
            "Batch results stored durably.",
            c.results_accepted,
        ),
        (
            "bgfarm_results_duplicate_total",
            "Results equal to the already accepted result of their batch.",
            c.results_duplicate,
        ),
        (
            "bgfarm_results_conflict_total",
            "Results differing from the accepted result of their batch.",
            c.results_conflict,
        ),
        (
            "bgfarm_results_rejected_total",
            "Results refused (malformed, job gone or finished).",
            c.results_rejected,
        ),
        (
            "bgfarm_batches_resumed_total",
            "Accepted results found in the store at start.",
            c.batches_resumed,
        ),
        (
            "bgfarm_batches_reused_total",
            "Batches found computed in the store's memory and accepted without a lease.",
            c.batches_reused,
        ),
        (
            "bgfarm_first_ply_tables_computed_total",
            "First-move tables of rollouts computed by workers and handed in.",
            c.first_ply_computed,
        ),
        (
            "bgfarm_first_ply_tables_served_total",
            "Stored first-move tables sent to workers with leases (searches saved).",
            c.first_ply_served,
        ),
        (
            "bgfarm_first_ply_conflicts_total",
            "First-move tables handed in differing from the stored table of their key.",
            c.first_ply_conflicts,
        ),
        (
            "bgfarm_verify_leases_total",
            "Leases of accepted batches to a second worker (serve --verify-fraction).",
            c.verify_leases,
        ),
        (
            "bgfarm_verified_total",
            "Verified batches: a second worker handed in the same result.",
            c.verified,
        ),
        (
            "bgfarm_verify_disputes_total",
            "Verification results that differed from every answer before them.",
            c.verify_disputes,
        ),
        (
            "bgfarm_workers_quarantined_total",
            "Workers outvoted on a verified batch: refused from then on.",
            c.quarantined,
        ),
        (
            "bgfarm_batches_revoked_total",
            "Accepted batches of quarantined workers taken back and computed again.",
            c.batches_revoked,
        ),
        (
            "bgfarm_first_ply_evictions_total",
            "First-move tables evicted from the store over its cap.",
            s.first_ply.evicted,
        ),
        (
            "bgfarm_first_ply_corrupt_total",
            "Stored first-move tables whose checksum failed (deleted, recomputed).",
            s.first_ply.corrupt,
        ),
    ];
    for (name, help, v) in counters {
        o.one(name, "counter", help, v);
    }
    o.one(
        "bgfarm_first_ply_cache_entries",
        "gauge",
        "First-move tables in the store.",
        s.first_ply.entries,
    );
    o.one(
        "bgfarm_batches_pending",
        "gauge",
        "Batches of unfinished jobs waiting for a lease.",
        s.batches_pending,
    );
    o.one(
        "bgfarm_batches_leased",
        "gauge",
        "Batches leased now.",
        s.batches_leased,
    );
    o.one(
        "bgfarm_workers",
        "gauge",
        "Registered workers.",
        s.workers.len(),
    );
    o.head(
        "bgfarm_worker_threads",
        "gauge",
        "Trial threads per worker.",
    );
    for w in &s.workers {
        let _ = writeln!(
            o.0,
            "bgfarm_worker_threads{{worker=\"{}\"}} {}",
            label(&w.id),
            w.threads
        );
    }
    o.head(
        "bgfarm_worker_trials_total",
        "counter",
        "Accepted trials per worker (duplicate pairs for match simulations).",
    );
    for w in &s.workers {
        let _ = writeln!(
            o.0,
            "bgfarm_worker_trials_total{{worker=\"{}\"}} {}",
            label(&w.id),
            w.units
        );
    }
    o.head(
        "bgfarm_worker_trials_per_second",
        "gauge",
        "Accepted trials (or pairs) per second per worker over the last minute.",
    );
    for w in &s.workers {
        let _ = writeln!(
            o.0,
            "bgfarm_worker_trials_per_second{{worker=\"{}\"}} {:.3}",
            label(&w.id),
            w.rate
        );
    }
    o.head(
        "bgfarm_worker_conflicts",
        "gauge",
        "Results per worker that contradicted an accepted result.",
    );
    for w in &s.workers {
        let _ = writeln!(
            o.0,
            "bgfarm_worker_conflicts{{worker=\"{}\"}} {}",
            label(&w.id),
            w.conflicts
        );
    }
    o.one(
        "bgfarm_store_flushes_total",
        "counter",
        "Store fsyncs (one covers every result accepted since the previous one).",
        s.flushes,
    );
    o.one(
        "bgfarm_store_healthy",
        "gauge",
        "1 while every store flush has succeeded.",
        u8::from(s.store_healthy),
    );
    o.one(
        "bgfarm_uptime_seconds",
        "gauge",
        "Seconds since the coordinator started.",
        format!("{:.3}", s.uptime_s),
    );
    o.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposition_has_help_type_and_samples() {
        let s = Snapshot {
            counters: Counters {
                results_accepted: 7,
                ..Counters::default()
            },
            jobs: vec![("running", 1), ("done", 2)],
            batches_pending: 3,
            batches_leased: 1,
            workers: vec![WorkerLine {
                id: "w\"1".into(),
                threads: 4,
                units: 144,
                rate: 12.5,
                conflicts: 0,
            }],
            first_ply: TableLine::default(),
            flushes: 5,
            store_healthy: true,
            uptime_s: 1.5,
        };
        let t = render(&s);
        assert!(t.contains("# TYPE bgfarm_jobs gauge\n"));
        assert!(t.contains("bgfarm_jobs{state=\"done\"} 2\n"));
        assert!(t.contains("bgfarm_batches_accepted_total 7\n"));
        assert!(t.contains("bgfarm_worker_trials_per_second{worker=\"w\\\"1\"} 12.500\n"));
        assert!(t.contains("bgfarm_store_healthy 1\n"));
        // Every sample line belongs to a declared metric.
        for line in t.lines().filter(|l| !l.starts_with('#')) {
            let name = line.split(['{', ' ']).next().unwrap_or("");
            assert!(t.contains(&format!("# TYPE {name} ")), "{line}");
        }
    }
}
