//! The page at `/`: every job (newest first) with its kind, state, progress, rate,
//! ETA and submission time, and every worker with its threads and throughput. It
//! reloads itself every 5 s.

use crate::html::{count, duration, frame, table, utc, Cell};
use crate::view::{JobView, Overview, WorkerView};
use bgfarm_storage::JobState;

/// The state's name in lower case, as `bgfarm jobs list` prints it.
pub fn state_name(s: JobState) -> &'static str {
    match s {
        JobState::Queued => "queued",
        JobState::Running => "running",
        JobState::Done => "done",
        JobState::Cancelled => "cancelled",
        JobState::Failed => "failed",
    }
}

/// "1234/5000 trials (24.7%)" and a progress bar.
pub fn progress(j: &JobView) -> String {
    format!(
        "<progress max=\"{}\" value=\"{}\"></progress> {}/{} {} ({:.1}%)",
        j.units_total,
        j.units_done,
        j.units_done,
        j.units_total,
        j.unit,
        j.percent()
    )
}

/// A job's units per second while it runs; a dash once it ended or when nothing
/// was accepted in the last minute.
pub fn rate(j: &JobView, unit: &str) -> String {
    if j.state.is_final() {
        "–".into()
    } else {
        per_second(j.rate, unit)
    }
}

/// Units per second, or a dash when nothing was accepted in the last minute.
fn per_second(r: f64, unit: &str) -> String {
    if r > 0.0 {
        format!("{r:.1} {unit}/s")
    } else {
        "–".into()
    }
}

/// The jobs' table row of `j`.
fn job_row(j: &JobView) -> Vec<Cell> {
    let eta = j.eta().map_or_else(|| "–".to_string(), duration);
    vec![
        Cell::html(format!("<a href=\"/job/{0}\">{0}</a>", j.id)),
        Cell::text(&j.kind),
        Cell::text(state_name(j.state)),
        Cell::html(progress(j)),
        Cell::num(&rate(j, j.unit)),
        Cell::num(&eta),
        Cell::text(&j.submitted.map_or_else(|| "before a restart".into(), utc)),
        Cell::text(&j.message),
    ]
}

fn worker_row(w: &WorkerView) -> Vec<Cell> {
    vec![
        Cell::text(&w.id),
        Cell::num(&w.threads.to_string()),
        Cell::num(&per_second(w.rate, "units")),
        Cell::num(&w.units.to_string()),
        Cell::num(&format!("{} ago", duration(w.since_seen))),
        Cell::num(&duration(w.since_registered)),
    ]
}

/// The overview page.
pub fn render(o: &Overview) -> String {
    let mut body = String::new();
    let running = o.jobs.iter().filter(|j| !j.state.is_final()).count();
    let threads: u32 = o.workers.iter().map(|w| w.threads).sum();
    body.push_str(&format!(
        "<p class=\"note\">{} ({running} queued or running); {} with {}. Reloads \
         every 5 s.</p>\n<p><a href=\"/submit\">Submit a rollout</a> · <a href=\"/analyse\">Analyse a match</a></p>\n<h2>Jobs</h2>\n",
        count(o.jobs.len(), "job"),
        count(o.workers.len(), "worker"),
        count(threads as usize, "thread")
    ));
    if o.jobs.is_empty() {
        body.push_str("<p>No jobs yet: submit one with the form or <code>bgfarm rollout ... --coordinator URL</code>.</p>\n");
    } else {
        let rows: Vec<Vec<Cell>> = o.jobs.iter().map(job_row).collect();
        body.push_str(&table(
            &[
                ("job", true),
                ("kind", true),
                ("state", true),
                ("progress", true),
                ("rate", false),
                ("ETA", false),
                ("submitted", true),
                ("message", true),
            ],
            &rows,
        ));
    }
    body.push_str("<h2>Workers</h2>\n");
    if o.workers.is_empty() {
        body.push_str("<p>No workers registered: start one with <code>bgfarm work --coordinator URL</code>.</p>\n");
    } else {
        let rows: Vec<Vec<Cell>> = o.workers.iter().map(worker_row).collect();
        body.push_str(&table(
            &[
                ("worker", true),
                ("threads", false),
                ("throughput (last minute)", false),
                ("units done", false),
                ("last seen", false),
                ("registered for", false),
            ],
            &rows,
        ));
    }
    frame("bgfarm coordinator", &body, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn job(state: JobState, done: u64, rate: f64) -> JobView {
        JobView {
            id: 7,
            kind: "rollout".into(),
            unit: "trials",
            state,
            message: "<img src=x onerror=alert(1)>".into(),
            units_done: done,
            units_total: 1000,
            rate,
            submitted: None,
        }
    }

    #[test]
    fn jobs_and_workers_are_listed() {
        let o = Overview {
            jobs: vec![job(JobState::Running, 250, 50.0)],
            workers: vec![WorkerView {
                id: "w-<1>".into(),
                threads: 4,
                units: 250,
                rate: 50.0,
                since_seen: Duration::from_secs(2),
                since_registered: Duration::from_secs(90),
            }],
        };
        let html = render(&o);
        assert!(html.contains("<a href=\"/job/7\">7</a>"));
        assert!(html.contains("250/1000 trials (25.0%)"));
        // 750 trials left at 50 per second.
        assert!(html.contains("<td>15 s</td>"), "{html}");
        assert!(html.contains("50.0 trials/s"));
        assert!(html.contains("w-&lt;1&gt;"));
        assert!(html.contains("1 min 30 s"));
        assert!(!html.contains("<img"));
        assert!(html.contains("http-equiv=\"refresh\""));
    }

    #[test]
    fn a_finished_job_has_no_eta() {
        let j = job(JobState::Done, 1000, 50.0);
        assert!(j.eta().is_none());
        let empty = render(&Overview {
            jobs: vec![],
            workers: vec![],
        });
        assert!(empty.contains("No jobs yet"));
        assert!(empty.contains("No workers registered"));
    }
}
