//! The page of one job at `/job/ID`: its line of the overview, then its result
//! as its kind renders it ([`render_result`]). A job still running reloads every
//! 5 s.

use super::overview::{progress, rate, state_name};
use crate::html::{duration, escape, facts, frame, utc};
use crate::view::{JobDetail, JobResult};

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
    if let Some(about) = &d.about {
        body.push_str(about);
    }
    frame(&format!("bgfarm job {}", j.id), &body, !j.state.is_final())
}

/// A job's result: what its kind rendered (`JobKind::render`), or why there is
/// none.
pub fn render_result(r: &JobResult) -> String {
    match r {
        JobResult::Pending => {
            "<p class=\"note\">The result is shown here when the job is done.</p>\n".into()
        }
        JobResult::Shown(html) => html.clone(),
        JobResult::Unreadable(e) => format!(
            "<p class=\"err\">The result cannot be read: {}</p>\n",
            escape(e)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::JobView;
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
    fn a_finished_job_shows_its_result() {
        let html = render(&JobDetail {
            view: view(JobState::Done),
            about: None,
            result: JobResult::Shown("<h2>Rollout</h2>\n".into()),
        });
        assert!(html.contains("<h2>Rollout</h2>"));
        assert!(
            !html.contains("http-equiv"),
            "a finished job does not reload"
        );
        let html = render_result(&JobResult::Unreadable("<bad>".into()));
        assert!(html.contains("cannot be read: &lt;bad&gt;"));
    }

    #[test]
    fn a_running_job_waits_for_its_result() {
        let html = render(&JobDetail {
            view: view(JobState::Running),
            about: Some("<h2>What is rolled out</h2>".into()),
            result: JobResult::Pending,
        });
        assert!(html.contains("shown here when the job is done"));
        assert!(html.contains("What is rolled out"));
        assert!(html.contains("http-equiv"));
    }
}
