//! What the web page shows, copied out of the coordinator's state under its lock
//! (so the HTML is rendered without holding it): every job's progress and rate,
//! every worker's threads and throughput, and one job's result.

use crate::core::Core;
use crate::job::Job;
use crate::kind::Work;
use bgfarm_engine::matchsim::{SimStats, StudyCell};
use bgfarm_engine::rollout::{RolloutJob, RolloutStats};
use bgfarm_proto::convert::stats_from_wire;
use bgfarm_proto::label::labels_from_wire;
use bgfarm_proto::matchsim::totals_from_wire;
use bgfarm_storage::JobState;
use std::time::{Duration, Instant, SystemTime};

/// One job's line on the page.
#[derive(Clone, Debug)]
pub struct JobView {
    pub id: u64,
    /// "rollout", "match-sim", "study NAME" or "label METHOD" (see `Work::label`).
    pub kind: String,
    /// What its units are: "trials" (per candidate), "pairs" (of matches) or
    /// "positions" (labels).
    pub unit: &'static str,
    pub state: JobState,
    pub message: String,
    pub units_done: u64,
    pub units_total: u64,
    /// Units per second over the last minute, in this coordinator process.
    pub rate: f64,
    /// `None` for a job resumed from the store.
    pub submitted: Option<SystemTime>,
}

impl JobView {
    /// Time left at the current rate, for a job still running with a rate.
    pub fn eta(&self) -> Option<Duration> {
        let left = self.units_total.saturating_sub(self.units_done);
        (!self.state.is_final() && self.rate > 0.0)
            .then(|| Duration::from_secs_f64(left as f64 / self.rate))
    }

    /// Done units in percent of the total.
    pub fn percent(&self) -> f64 {
        100.0 * self.units_done as f64 / self.units_total.max(1) as f64
    }
}

/// One worker's line on the page.
#[derive(Clone, Debug)]
pub struct WorkerView {
    pub id: String,
    pub threads: u32,
    /// Units of its accepted results, and per second over the last minute.
    pub units: u64,
    pub rate: f64,
    pub since_seen: Duration,
    pub since_registered: Duration,
}

/// The page's overview: jobs newest first, workers by id.
#[derive(Clone, Debug)]
pub struct Overview {
    pub jobs: Vec<JobView>,
    pub workers: Vec<WorkerView>,
}

/// What a finished job computed, by kind. A new kind of job adds its variant here
/// and its rendering in `page::result::render_result`.
pub enum JobResult {
    /// The job is not done (yet): nothing to show.
    Pending,
    Rollout {
        job: RolloutJob,
        total: RolloutStats,
    },
    MatchSim {
        /// A and B's cube strategies, as written on the command line.
        a: String,
        b: String,
        length: u32,
        luck: bool,
        seed: u64,
        stats: SimStats,
    },
    Study {
        name: String,
        cells: Vec<StudyCell>,
        /// Each cell's totals, in cell order.
        totals: Vec<SimStats>,
    },
    /// Labels of positions: how they were labelled and the mean label.
    Label {
        method: String,
        positions: u64,
        /// The mean of each output over the positions.
        mean: [f64; 5],
    },
    /// The stored aggregate could not be decoded (a bug, reported as such).
    Unreadable(String),
}

/// One job in full: its line and its result.
pub struct JobDetail {
    pub view: JobView,
    pub result: JobResult,
}

fn job_view(job: &Job, now: Instant) -> JobView {
    JobView {
        id: job.id,
        kind: job.work.label(),
        unit: match job.work {
            Work::Rollout { .. } => "trials",
            Work::MatchSim { .. } | Work::Study { .. } => "pairs",
            Work::Label { .. } => "positions",
        },
        state: job.state,
        message: job.message.clone(),
        units_done: job.units_done,
        units_total: job.work.units(),
        rate: job.rate.per_second(now),
        submitted: job.submitted,
    }
}

/// The result of `job` when it is done.
fn job_result(job: &Job) -> JobResult {
    if job.state != JobState::Done {
        return JobResult::Pending;
    }
    let agg = job.aggregate();
    match (&job.work, agg.rollout, agg.match_sim) {
        (Work::Study { plan, .. }, _, _) if agg.study_cells.len() == plan.cells.len() => {
            JobResult::Study {
                name: plan.name.clone(),
                cells: plan.cells.clone(),
                totals: agg.study_cells.iter().map(totals_from_wire).collect(),
            }
        }
        (Work::Rollout { plan, .. }, Some(agg), _) => match stats_from_wire(&agg) {
            Ok(total) => JobResult::Rollout {
                job: plan.job.clone(),
                total,
            },
            Err(e) => JobResult::Unreadable(e.0),
        },
        (Work::MatchSim { plan, .. }, _, Some(agg)) => JobResult::MatchSim {
            a: plan.a.to_string(),
            b: plan.b.to_string(),
            length: plan.length,
            luck: plan.luck,
            seed: plan.seed,
            stats: totals_from_wire(&agg),
        },
        (Work::Label { plan, .. }, _, _) => match agg.labels.as_ref().map(labels_from_wire) {
            Some(Ok(labels)) if labels.len() == plan.positions.len() => JobResult::Label {
                method: plan.method.describe(),
                positions: labels.len() as u64,
                mean: std::array::from_fn(|k| {
                    labels.iter().map(|l| f64::from(l[k])).sum::<f64>() / labels.len() as f64
                }),
            },
            Some(Err(e)) => JobResult::Unreadable(e.0),
            _ => JobResult::Unreadable("labels missing from a finished label job".into()),
        },
        _ => JobResult::Unreadable("no aggregate of the job's kind".into()),
    }
}

impl Core {
    /// Every job (newest first) and worker (by id) now.
    pub fn overview(&self) -> Overview {
        let now = Instant::now();
        let st = self.lock();
        let jobs = st.jobs.values().rev().map(|j| job_view(j, now)).collect();
        let mut workers: Vec<WorkerView> = st
            .workers
            .iter()
            .map(|(id, w)| WorkerView {
                id: id.clone(),
                threads: w.threads,
                units: w.units,
                rate: w.rate(now),
                since_seen: now.duration_since(w.last_seen),
                since_registered: now.duration_since(w.registered),
            })
            .collect();
        workers.sort_by(|a, b| a.id.cmp(&b.id));
        Overview { jobs, workers }
    }

    /// Job `id` with its result when it is done; `None` when there is no such job.
    pub fn detail(&self, id: u64) -> Option<JobDetail> {
        let now = Instant::now();
        let st = self.lock();
        let job = st.jobs.get(&id)?;
        Some(JobDetail {
            view: job_view(job, now),
            result: job_result(job),
        })
    }
}
