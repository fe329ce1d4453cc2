//! `GET /analyse`: the match form (a match file and the depth); `POST /analyse`:
//! the uploaded file planned by the command line's rules
//! ([`crate::analysis_form`]), submitted to this coordinator as `SubmitJob`
//! would, and answered with a redirect to the job's page, which shows each
//! player's figures and a board of every marked error once it is done. Bad input
//! shows the form again with the error and submits nothing. The same guards as
//! the rollout form ([`super::submit`]): the client token, same-origin posts
//! only, and a bounded body.

use super::limited_body;
use super::submit::{cookie_of, cross_site, form_head, guard};
use crate::analysis_form::AnalysisForm;
use crate::core::Core;
use crate::html::{escape, frame};
use crate::multipart::{boundary, parts};
use crate::reply::{html, redirect, text, Reply, PLAIN};
use bgfarm_proto::analysis::MAX_MATCH_BYTES;
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::{Request, StatusCode};
use std::fmt::Write;

/// The longest post: the largest match a job carries and the form around it.
const MAX_POST_BYTES: usize = MAX_MATCH_BYTES + 4096;

/// The form page with `error` above it; `can_plan`: this coordinator has a
/// planner.
pub fn page(ply: &str, error: Option<&str>, can_plan: bool) -> String {
    let mut o = form_head(error, can_plan, "analyses", "bgfarm analyse FILE");
    let ply = if ply.is_empty() { "2" } else { ply };
    let _ = write!(
        o,
        "<p class=\"note\">A match saved by GNU Backgammon (.sgf) or match text (.mat, as \
         GNU Backgammon, eXtreme Gammon and the servers export it), at most {} KB, rated \
         as <code>bgfarm analyse</code> rates it.</p>\n\
         <form class=\"submit\" method=\"post\" action=\"/analyse\" \
         enctype=\"multipart/form-data\">\n\
         <label>Match file: <input type=\"file\" name=\"match\" accept=\".sgf,.mat,.txt\"></label>\n\
         <label>Depth: <input name=\"ply\" value=\"{}\" size=\"4\"> \
         <span class=\"note\">plies, 0 to 3 (2: as GNU Backgammon's analysis)</span></label>\n",
        MAX_MATCH_BYTES >> 10,
        escape(ply)
    );
    if can_plan {
        o.push_str("<button type=\"submit\">Analyse</button>\n");
    }
    o.push_str("</form>\n");
    frame("bgfarm: analyse a match", &o, false)
}

fn again(status: StatusCode, ply: &str, error: &str, can_plan: bool) -> Reply {
    html(status, page(ply, Some(error), can_plan))
}

/// `POST /analyse`.
pub async fn post(core: &Core, req: Request<Incoming>) -> Reply {
    if cross_site(req.headers()) {
        return text(
            StatusCode::FORBIDDEN,
            PLAIN,
            "a match is submitted from this coordinator's own page only\n".into(),
        );
    }
    let cookie = cookie_of(req.headers());
    let Some(bound) = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(boundary)
    else {
        return text(
            StatusCode::BAD_REQUEST,
            PLAIN,
            "the match form is posted as multipart/form-data\n".into(),
        );
    };
    let too_large = format!("a match file is at most {MAX_MATCH_BYTES} bytes");
    let body = match limited_body(req.into_body(), MAX_POST_BYTES, &too_large).await {
        Ok(b) => b,
        Err(reply) => return reply,
    };
    let can_plan = core.config().analysis_planner.is_some();
    let parts = match parts(&bound, &body) {
        Ok(p) => p,
        Err(e) => return again(StatusCode::BAD_REQUEST, "", &e, can_plan),
    };
    let token = parts
        .iter()
        .find(|p| p.name == "token")
        .map(|p| p.data.clone());
    if let Some(refused) = guard(core, token.as_deref(), cookie.as_deref()) {
        return refused;
    }
    let form = match AnalysisForm::from_parts(&parts) {
        Ok(f) => f,
        Err(e) => return again(StatusCode::BAD_REQUEST, "", &e, can_plan),
    };
    let Some(planner) = core.config().analysis_planner.clone() else {
        return again(
            StatusCode::SERVICE_UNAVAILABLE,
            &form.ply,
            "nothing was submitted",
            false,
        );
    };
    let asked = form.clone();
    let planned = tokio::task::spawn_blocking(move || (planner.0)(&asked)).await;
    let spec = match planned {
        Ok(Ok(spec)) => spec,
        Ok(Err(e)) => return again(StatusCode::BAD_REQUEST, &form.ply, &e, true),
        Err(e) => {
            let e = format!("planning failed: {e}");
            return again(StatusCode::INTERNAL_SERVER_ERROR, &form.ply, &e, true);
        }
    };
    match core.submit(spec).await {
        Ok(status) => redirect(&format!("/job/{}", status.job_id), None),
        Err(s) => again(StatusCode::BAD_REQUEST, &form.ply, s.message(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_uploads_a_file_and_keeps_the_depth_escaped() {
        let p = page("<1>", Some("bad <file>"), true);
        assert!(p.contains("enctype=\"multipart/form-data\""), "{p}");
        assert!(p.contains("type=\"file\" name=\"match\""));
        assert!(p.contains("value=\"&lt;1&gt;\""));
        assert!(p.contains("class=\"err\">bad &lt;file&gt;"));
        assert!(!page("", None, false).contains("<button"));
    }
}
