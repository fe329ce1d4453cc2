//! The match form of the web page (`/analyse`) as data: a match file uploaded
//! with its analysis depth, and the planner that turns it into a job spec.
//!
//! As for rollouts ([`crate::rollout_form`]), the coordinator does not build the
//! spec itself: `bgfarm serve` hands it the command line's planner, which reads
//! the file with `bgfarm analyse`'s rules and messages (a bad move names its line)
//! and names the workers' engine.

use crate::multipart::Part;
use bgfarm_proto::v1;
use std::fmt;
use std::sync::Arc;

/// A filled-in match form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisForm {
    /// The uploaded file's name (shown in errors), and its text.
    pub file_name: String,
    pub text: String,
    /// Search depth, as typed (empty: the command line's default, 2).
    pub ply: String,
}

impl AnalysisForm {
    /// The form of a multipart post's parts; a file that is not UTF-8 is an error.
    pub fn from_parts(parts: &[Part]) -> Result<AnalysisForm, String> {
        let mut form = AnalysisForm::default();
        for p in parts {
            match p.name.as_str() {
                "match" => {
                    form.file_name = p.filename.clone().unwrap_or_else(|| "match".into());
                    form.text = String::from_utf8(p.data.clone())
                        .map_err(|_| format!("{}: not a text file", form.file_name))?;
                }
                "ply" => form.ply = String::from_utf8_lossy(&p.data).trim().to_string(),
                _ => {}
            }
        }
        if form.text.trim().is_empty() {
            return Err("choose a match file (.sgf or .mat) to analyse".into());
        }
        Ok(form)
    }
}

/// Builds the job spec of a filled-in match form, or says in one line why not.
type PlanFn = dyn Fn(&AnalysisForm) -> Result<v1::JobSpec, String> + Send + Sync;

/// The planner of the match form ([`PlanFn`]), shared.
#[derive(Clone)]
pub struct AnalysisPlanner(pub Arc<PlanFn>);

impl fmt::Debug for AnalysisPlanner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AnalysisPlanner")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_and_the_depth_are_read() {
        let part = |name: &str, filename: Option<&str>, data: &[u8]| Part {
            name: name.into(),
            filename: filename.map(String::from),
            data: data.to_vec(),
        };
        let f = AnalysisForm::from_parts(&[
            part("ply", None, b" 1 "),
            part("match", Some("m.mat"), b" 5 point match"),
        ])
        .expect("form");
        assert_eq!((f.file_name.as_str(), f.ply.as_str()), ("m.mat", "1"));
        assert!(AnalysisForm::from_parts(&[part("ply", None, b"1")]).is_err());
        let e = AnalysisForm::from_parts(&[part("match", Some("x.sgf"), &[0xff, 0xfe])]);
        assert!(e.is_err_and(|e| e.contains("x.sgf")));
    }
}
