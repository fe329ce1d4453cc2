//! The page of one job at `/job/ID`: its line of the overview, then its result
//! by kind ([`render_result`]). A job still running reloads every 5 s.

use super::html::{duration, escape, facts, frame, table, utc, Cell};
use super::overview::{progress, rate, state_name};
use crate::view::{JobDetail, JobResult};
use bgfarm_engine::matchsim::SimStats;
use bgfarm_engine::rollout::{RolloutJob, RolloutStats};
use bgfarm_report::rollout_rows::{cube_decision, ranked};
use bgfarm_report::rollout_table::{cells, columns, decision_text};
use bgfarm_report::sim_summary;

/// The page of job `d`.
pub fn render(d: &JobDetail) -> String {
    let j = &d.view;
    let eta = j.eta().map_or_else(|| "–".to_string(), duration);
    let submitted = j.submitted.map_or_else(|| "before a restart".into(), utc);
    let rows = [
        ("kind", escape(&j.kind)),
        ("state", escape(state_name(j.state))),
        ("progress", progress(j)),
        ("rate", escape(&rate(j, j.unit))),
        ("ETA", escape(&eta)),
        ("submitted", escape(&submitted)),
        ("message", escape(&j.message)),
    ];
    let mut body = String::from("<p><a href=\"/\">all jobs</a></p>\n");
    body.push_str(&facts(&rows));
    body.push_str(&render_result(&d.result));
    frame(&format!("bgfarm job {}", j.id), &body, !j.state.is_final())
}

/// A finished job's result by kind: the hook where each kind of job shows what
/// it computed. A new kind adds its `JobResult` variant in `crate::view` and
/// its arm here.
pub fn render_result(r: &JobResult) -> String {
    match r {
        JobResult::Pending => {
            "<p class=\"note\">The result is shown here when the job is done.</p>\n".into()
        }
        JobResult::Rollout { job, total } => rollout(job, total),
        JobResult::MatchSim {
            a,
            b,
            length,
            luck,
            seed,
            stats,
        } => match_sim(a, b, *length, *luck, *seed, stats),
        JobResult::Study {
            name,
            cells,
            totals,
        } => super::study::study(name, cells, totals),
        JobResult::Label {
            method,
            positions,
            mean,
        } => labels(method, *positions, mean),
        JobResult::Unreadable(e) => format!(
            "<p class=\"err\">The result cannot be read: {}</p>\n",
            escape(e)
        ),
    }
}

/// A rollout's table, best first, with the CLI's columns and numbers.
fn rollout(job: &RolloutJob, total: &RolloutStats) -> String {
    let rows = ranked(job, total);
    let cubeful = job.settings.cube.is_some();
    let cols = columns(cubeful);
    let mut headers: Vec<(&str, bool)> = cols.iter().map(|c| (c.name, c.left)).collect();
    headers.push(("vs best", false));
    let table_rows: Vec<Vec<Cell>> = cells(&rows)
        .into_iter()
        .map(|c| {
            let mut out: Vec<Cell> = c
                .cells
                .iter()
                .zip(&cols)
                .map(|(t, col)| {
                    if col.left {
                        Cell::text(t)
                    } else {
                        Cell::num(t)
                    }
                })
                .collect();
            out.push(Cell::num(c.vs_best.as_deref().unwrap_or("")));
            out
        })
        .collect();
    let trials = rows.first().map_or(0, |r| r.trials);
    let mut s = format!(
        "<h2>Rollout</h2>\n<p>{trials} trials per candidate, seed {}, {}-ply chequer play, {}.</p>\n",
        job.seed,
        job.settings.chequer_ply,
        if cubeful { "cubeful" } else { "cubeless" }
    );
    s.push_str(&table(&headers, &table_rows));
    if let Some(d) = cube_decision(job, &rows, None) {
        s.push_str(&format!("<p>cube: {}</p>\n", escape(&decision_text(&d))));
    }
    s
}

/// A label job's summary: the labels themselves go to the client's file.
fn labels(method: &str, positions: u64, mean: &[f64; 5]) -> String {
    let names = [
        "win",
        "win gammon",
        "win backgammon",
        "lose gammon",
        "lose backgammon",
    ];
    let rows: Vec<(&str, String)> = names
        .iter()
        .zip(mean)
        .map(|(n, m)| (*n, format!("{m:.4}")))
        .collect();
    format!(
        "<h2>Labels</h2>
<p>{positions} positions labelled {}; the mean of each output over them:</p>
{}",
        escape(method),
        facts(&rows)
    )
}

/// A match simulation's summary, as `bgfarm match-sim` prints it.
fn match_sim(a: &str, b: &str, length: u32, luck: bool, seed: u64, stats: &SimStats) -> String {
    let lines = sim_summary::lines(stats, length, luck);
    let what = if length == 0 {
        "money games".to_string()
    } else {
        format!("{length}-point matches")
    };
    let rows: Vec<(&str, String)> = lines.iter().map(|(k, v)| (k.as_str(), escape(v))).collect();
    format!(
        "<h2>Match simulation</h2>\n<p>{} (A) vs {} (B): {} {what} ({} duplicate pairs), seed {seed}</p>\n{}",
        escape(a),
        escape(b),
        stats.matches,
        stats.pairs,
        facts(&rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::JobView;
    use bgfarm_engine::rollout::{Candidate, TrialSettings};
    use bgfarm_engine::Position;
    use bgfarm_storage::JobState;

    fn view(state: JobState) -> JobView {
        JobView {
            id: 3,
            kind: "rollout".into(),
            unit: "trials",
            state,
            message: String::new(),
            units_done: 72,
            units_total: 72,
            rate: 0.0,
            submitted: None,
        }
    }

    #[test]
    fn a_rollout_shows_its_table() {
        let mut cand = Candidate::position(Position::STARTING);
        cand.label = Some("8/5 6/5 <x>".into());
        let job = RolloutJob {
            candidates: vec![cand],
            seed: 1,
            settings: TrialSettings::default(),
        };
        let total = RolloutStats::new(1);
        let html = render(&JobDetail {
            view: view(JobState::Done),
            result: JobResult::Rollout { job, total },
        });
        for h in ["move", "w.bg", "l.bg", "equity", "SE", "vs best"] {
            assert!(html.contains(&format!(">{h}</th>")), "{h}: {html}");
        }
        assert!(html.contains("8/5 6/5 &lt;x&gt;"));
        assert!(
            !html.contains("http-equiv"),
            "a finished job does not reload"
        );
    }

    #[test]
    fn a_running_job_waits_for_its_result() {
        let html = render(&JobDetail {
            view: view(JobState::Running),
            result: JobResult::Pending,
        });
        assert!(html.contains("shown here when the job is done"));
        assert!(html.contains("http-equiv"));
    }

    #[test]
    fn a_match_simulation_shows_its_summary() {
        let stats = SimStats {
            matches: 4,
            pairs: 2,
            points: 2,
            wins: 3,
            games: 8,
            ..SimStats::default()
        };
        let r = JobResult::MatchSim {
            a: "janowski-match:x=0.7".into(),
            b: "janowski-money:x=0.7".into(),
            length: 5,
            luck: false,
            seed: 9,
            stats,
        };
        let html = render_result(&r);
        assert!(html.contains("5-point matches (2 duplicate pairs)"));
        assert!(html.contains("A ppm:"));
        assert!(html.contains("+0.5000"));
        assert!(html.contains("75.00%"));
        assert!(html.contains("games/match:"));
    }

    #[test]
    fn labels_show_their_method_and_means() {
        let r = JobResult::Label {
            method: "2-ply".into(),
            positions: 300,
            mean: [0.5, 0.14, 0.006, 0.13, 0.005],
        };
        let html = render_result(&r);
        assert!(html.contains("300 positions labelled 2-ply"), "{html}");
        assert!(
            html.contains("win gammon") && html.contains("0.1400"),
            "{html}"
        );
    }
}
