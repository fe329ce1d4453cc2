//! The planner of the web page's match form (`bgfarm serve` hands it to the
//! coordinator): an uploaded file read with `bgfarm analyse`'s rules and
//! messages, rated at the form's depth with the command line's defaults (filter
//! normal, Kazaross-XG2, luck at 0-ply), submitted as the cluster analysis that
//! `bgfarm analyse FILE --coordinator` submits.

use super::read_match;
use super::remote::BATCH;
use crate::cli::met::load_table;
use crate::cli::nets::load_evaluator;
use crate::cli::search_args::check_ply;
use bgfarm_coordinator::{AnalysisForm, AnalysisPlanner};
use bgfarm_engine::analysis::AnalysisPlan;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::search::{MoveFilter, Pruning};
use bgfarm_proto::analysis::{analysis_to_wire, MAX_MATCH_BYTES};
use bgfarm_proto::v1;
use std::sync::{Arc, OnceLock};

/// The planner; the workers' fingerprint (of the built-in nets) is found at the
/// first submission.
pub fn planner() -> AnalysisPlanner {
    let fp: Arc<OnceLock<Result<String, String>>> = Arc::new(OnceLock::new());
    AnalysisPlanner(Arc::new(move |form: &AnalysisForm| {
        let fp = fp
            .get_or_init(|| {
                load_evaluator("default")
                    .map(|e| fingerprint(&e).to_string())
                    .map_err(|e| format!("the nets: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)?;
        plan(form, fp)
    }))
}

/// The spec of `form` for workers of engine `fp`.
fn plan(form: &AnalysisForm, fp: &str) -> Result<v1::JobSpec, String> {
    let name = &form.file_name;
    if form.text.len() > MAX_MATCH_BYTES {
        return Err(format!(
            "{name}: {} bytes; a match file is at most {MAX_MATCH_BYTES}",
            form.text.len()
        ));
    }
    let ply = match form.ply.as_str() {
        "" => 2,
        p => p
            .parse::<u8>()
            .map_err(|_| format!("depth {p}: use 0 to 3"))
            .and_then(|p| check_ply(p).map_err(|e| e.to_string()))?,
    };
    let (_, m) = read_match(name, &form.text).map_err(|e| e.to_string())?;
    let met = if m.length > 0 {
        Some(load_table("kazaross-xg2").map_err(|e| e.to_string())?)
    } else {
        None
    };
    let filter = MoveFilter::parse("normal").map_err(|e| e.to_string())?;
    let plan = AnalysisPlan::new(
        &m,
        (ply, filter.ladder(ply)),
        (0, filter.ladder(0)),
        met.as_ref(),
    )
    .map_err(|e| format!("{name}: {e}"))?;
    if plan.units() == 0 {
        return Err(format!("{name}: no decision to analyse"));
    }
    Ok(analysis_to_wire(
        &form.text,
        (ply, &filter, 0, Pruning::DEFAULT),
        met.as_ref(),
        BATCH,
        fp,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(text: &str, ply: &str) -> AnalysisForm {
        AnalysisForm {
            file_name: "up.mat".into(),
            text: text.into(),
            ply: ply.into(),
        }
    }

    #[test]
    fn a_match_becomes_the_command_lines_job_and_bad_input_is_named() {
        let text = include_str!("../../../tests/data/matches/three-point.mat");
        let spec = plan(&form(text, ""), "fp").expect("plan");
        let Some(v1::job_spec::Kind::Analysis(a)) = spec.kind else {
            panic!("not an analysis: {spec:?}");
        };
        assert_eq!((a.ply, a.luck_ply, a.filter.as_str()), (2, 0, "normal"));
        assert!(a.met.is_some() && a.fingerprint == "fp");
        assert!(plan(&form(text, "4"), "fp").is_err_and(|e| e.contains("--ply 4")));
        assert!(plan(&form(text, "x"), "fp").is_err_and(|e| e.contains("depth x")));
        let e = plan(&form("not a match", "1"), "fp").expect_err("bad file");
        assert!(e.starts_with("up.mat:"), "{e}");
    }
}
