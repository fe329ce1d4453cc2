//! `GET /submit`: the rollout form; `POST /submit`: a filled-in form, planned by
//! the command line's rules ([`crate::rollout_form`]), submitted to this
//! coordinator as `SubmitJob` would, and answered with a redirect to the job's
//! page. Bad input shows the form again with its values and the error, and
//! submits nothing.
//!
//! The post needs the client token, from the page's cookie or a `token` field.
//! The cookie is `SameSite=Strict`, so a post from another site arrives without
//! it; a post whose `Origin` is another host, or that the browser marks as
//! cross-site (`Sec-Fetch-Site`), is refused outright, which also covers a
//! coordinator without a token. The body is at most [`MAX_SUBMIT_BYTES`].

use super::limited_body;
use super::login::{check, cookie_token, field, Access};
use crate::core::Core;
use crate::html::{escape, frame};
use crate::reply::{html, redirect, text, Reply, PLAIN};
use crate::rollout_form::RolloutForm;
use hyper::body::Incoming;
use hyper::header::{COOKIE, HOST, ORIGIN};
use hyper::{HeaderMap, Request, StatusCode};
use std::fmt::Write;

/// The longest form post accepted: a list of 30 moves in notation is under 1 KB,
/// an XGID about 60 bytes; 8 KiB leaves room and bounds what a request holds.
pub const MAX_SUBMIT_BYTES: usize = 8192;

/// The presets of `bgfarm rollout --preset`, for the form's choice.
const PRESETS: [(&str, &str); 5] = [
    ("", "none: the fields below"),
    ("xg-roller", "XG Roller (approximation)"),
    ("xg-roller+", "XG Roller+ (approximation)"),
    ("xg-roller++", "XG Roller++ (approximation)"),
    ("gnubg", "GNU Backgammon's default rollout (approximation)"),
];

fn input(o: &mut String, label: &str, name: &str, value: &str, hint: &str) {
    let _ = writeln!(
        o,
        "<label>{label}: <input name=\"{name}\" value=\"{}\" size=\"40\"> \
         <span class=\"note\">{hint}</span></label>",
        escape(value)
    );
}

/// The form page with `form`'s values and `error` above it; `can_plan`: this
/// coordinator has a planner (otherwise the page says so and has no button).
pub fn page(form: &RolloutForm, error: Option<&str>, can_plan: bool) -> String {
    let mut o = form_head(error, can_plan, "rollouts", "bgfarm rollout");
    o.push_str(
        "<p class=\"note\">The same settings as <code>bgfarm rollout</code>, checked \
         by the same rules; empty fields keep the command line's defaults.</p>\n\
         <form class=\"submit\" method=\"post\" action=\"/submit\">\n",
    );
    input(
        &mut o,
        "Position",
        "position",
        &form.position,
        "GNU Backgammon ID (ID or ID:MATCHID) or XGID",
    );
    input(
        &mut o,
        "Dice",
        "dice",
        &form.dice,
        "e.g. 31; empty: the position before the roll",
    );
    input(
        &mut o,
        "Moves",
        "moves",
        &form.moves,
        "all, top:N or moves separated by commas",
    );
    input(
        &mut o,
        "Trials",
        "trials",
        &form.trials,
        "per candidate; default 1296",
    );
    input(&mut o, "Seed", "seed", &form.seed, "");
    input(
        &mut o,
        "Ply",
        "ply",
        &form.ply,
        "chequer play, 0 to 2; default 0",
    );
    input(
        &mut o,
        "Truncate after",
        "truncate",
        &form.truncate,
        "plies; empty: play to the end",
    );
    o.push_str("<label>Preset: <select name=\"preset\">");
    for (value, name) in PRESETS {
        let selected = if form.preset == value {
            " selected"
        } else {
            ""
        };
        let _ = write!(o, "<option value=\"{value}\"{selected}>{name}</option>");
    }
    o.push_str("</select></label>\n");
    let checked = if form.cubeful { " checked" } else { "" };
    let _ = writeln!(
        o,
        "<label><input type=\"checkbox\" name=\"cubeful\" value=\"on\"{checked}> Cubeful \
         <span class=\"note\">(money, or the match score of the ID)</span></label>"
    );
    if can_plan {
        o.push_str("<button type=\"submit\">Roll out</button>\n");
    }
    o.push_str("</form>\n");
    frame("bgfarm: submit a rollout", &o, false)
}

/// The top of a form page: the way back, `error` if any, and, when this
/// coordinator has no planner (`can_plan` false), that it cannot plan `what` and
/// which `command` to use instead.
pub(super) fn form_head(error: Option<&str>, can_plan: bool, what: &str, command: &str) -> String {
    let mut o = String::from("<p><a href=\"/\">all jobs</a></p>\n");
    if let Some(e) = error {
        let _ = writeln!(o, "<p class=\"err\">{}</p>", escape(e));
    }
    if !can_plan {
        let _ = writeln!(
            o,
            "<p class=\"err\">This coordinator cannot plan {what}: it was started \
             without the command line's planner. Use <code>{command} \
             --coordinator</code>.</p>"
        );
    }
    o
}

/// The form again with `error`, answered with `status`.
fn again(status: StatusCode, form: &RolloutForm, error: &str, can_plan: bool) -> Reply {
    html(status, page(form, Some(error), can_plan))
}

/// Whether the request comes from another site: an `Origin` naming another host
/// than `Host`, or a browser's `Sec-Fetch-Site: cross-site`/`same-site`.
pub(super) fn cross_site(headers: &HeaderMap) -> bool {
    let value = |h| headers.get(h).and_then(|v| v.to_str().ok());
    if value("sec-fetch-site").is_some_and(|s| s != "same-origin" && s != "none") {
        return true;
    }
    match (value(ORIGIN.as_str()), value(HOST.as_str())) {
        (Some(origin), Some(host)) => {
            let origin_host = origin.split_once("://").map_or(origin, |(_, h)| h);
            origin_host != host
        }
        // A browser's post carries `Origin`; a program without one has no
        // cookie of another site's to abuse.
        _ => false,
    }
}

/// The token of the page's cookie in `headers`, if any.
pub(super) fn cookie_of(headers: &HeaderMap) -> Option<Vec<u8>> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(cookie_token)
}

/// The token guard of a form post: the token of a form field (`given`) or of
/// the cookie; `None` when access is granted, else the 401 answer.
pub(super) fn guard(core: &Core, given: Option<&[u8]>, cookie: Option<&[u8]>) -> Option<Reply> {
    let expected = core.config().client_token.as_deref();
    let access = match given {
        Some(t) => check(expected, Some(t), false),
        None => check(expected, cookie, true),
    };
    match access {
        Access::Granted => None,
        Access::Missing => Some(super::refused(None)),
        Access::Wrong(m) => Some(super::refused(Some(m))),
    }
}

/// `POST /submit`.
pub async fn post(core: &Core, req: Request<Incoming>) -> Reply {
    if cross_site(req.headers()) {
        return text(
            StatusCode::FORBIDDEN,
            PLAIN,
            "a rollout is submitted from this coordinator's own page only\n".into(),
        );
    }
    let cookie = cookie_of(req.headers());
    let too_large = format!("the rollout form is at most {MAX_SUBMIT_BYTES} bytes");
    let body = match limited_body(req.into_body(), MAX_SUBMIT_BYTES, &too_large).await {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(reply) => return reply,
    };
    if let Some(refused) = guard(core, field(&body, "token").as_deref(), cookie.as_deref()) {
        return refused;
    }
    let form = RolloutForm::from_body(&body);
    let Some(planner) = core.config().rollout_planner.clone() else {
        return again(
            StatusCode::SERVICE_UNAVAILABLE,
            &form,
            "nothing was submitted",
            false,
        );
    };
    let asked = form.clone();
    let planned = tokio::task::spawn_blocking(move || (planner.0)(&asked)).await;
    let spec = match planned {
        Ok(Ok(spec)) => spec,
        Ok(Err(e)) => return again(StatusCode::BAD_REQUEST, &form, &e, true),
        Err(e) => {
            return again(
                StatusCode::INTERNAL_SERVER_ERROR,
                &form,
                &format!("planning failed: {e}"),
                true,
            )
        }
    };
    match core.submit(spec).await {
        Ok(status) => redirect(&format!("/job/{}", status.job_id), None),
        Err(s) => again(StatusCode::BAD_REQUEST, &form, s.message(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_keeps_its_values_escaped() {
        let form = RolloutForm {
            position: "<x>\"".into(),
            preset: "gnubg".into(),
            cubeful: true,
            ..RolloutForm::defaults()
        };
        let p = page(&form, Some("--trials <bad>"), true);
        assert!(p.contains("value=\"&lt;x&gt;&quot;\""), "{p}");
        assert!(p.contains("class=\"err\">--trials &lt;bad&gt;"));
        assert!(p.contains("<option value=\"gnubg\" selected>"));
        assert!(p.contains("name=\"cubeful\" value=\"on\" checked"));
        assert!(p.contains("value=\"top:5\"") && p.contains("<button"));
        assert!(!page(&form, None, false).contains("<button"));
    }

    #[test]
    fn posts_from_other_sites_are_refused() {
        let h = |pairs: &[(&'static str, &'static str)]| {
            let mut m = HeaderMap::new();
            for (k, v) in pairs {
                m.insert(*k, v.parse().expect("header"));
            }
            m
        };
        assert!(!cross_site(&h(&[
            ("host", "a:1"),
            ("origin", "http://a:1")
        ])));
        assert!(cross_site(&h(&[
            ("host", "a:1"),
            ("origin", "http://evil")
        ])));
        assert!(cross_site(&h(&[("sec-fetch-site", "cross-site")])));
        assert!(!cross_site(&h(&[("sec-fetch-site", "same-origin")])));
        assert!(!cross_site(&h(&[])));
    }
}
