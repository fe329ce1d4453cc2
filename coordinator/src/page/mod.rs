//! The cluster's web page on the operators' HTTP port (`serve --metrics-listen`):
//! plain server-rendered HTML, no scripts; its one form that changes anything
//! submits a rollout.
//!
//! - `GET /`: jobs and workers ([`overview`]);
//! - `GET /job/ID`: one job, what it computes and its result ([`job`]);
//! - `GET /submit`, `POST /submit`: the rollout form ([`submit`]);
//! - `GET /login`, `POST /login`: the token form ([`login`]), when the coordinator
//!   has a client token; without the token every page answers 401 with the form.

mod analyse;
mod job;
mod login;
mod overview;
mod submit;

use crate::core::Core;
use crate::reply::{html, redirect, text, Reply, PLAIN};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::COOKIE;
use hyper::{Method, Request, StatusCode};
use login::{check, cookie_token, field, form, set_cookie, Access};

/// The longest login form accepted: a token and its field name, with room.
const MAX_FORM_BYTES: usize = 4096;

/// What a page request asks for.
enum Page {
    Overview,
    Job(u64),
    Submit,
    Analyse,
}

/// The page at `path`, or the 404 text.
fn page_of(path: &str) -> Result<Page, String> {
    match path {
        "/" => return Ok(Page::Overview),
        "/submit" => return Ok(Page::Submit),
        "/analyse" => return Ok(Page::Analyse),
        _ => {}
    }
    match path.strip_prefix("/job/").map(str::parse::<u64>) {
        Some(Ok(id)) => Ok(Page::Job(id)),
        Some(Err(_)) => Err(format!(
            "not found: {path} (a job page is /job/ID, ID a number)\n"
        )),
        None => Err(format!(
            "not found: {path}; try /, /job/ID, /submit, /analyse, /metrics or /healthz\n"
        )),
    }
}

/// The page itself, for a request that may see it.
async fn render(core: &Core, page: Page) -> Reply {
    match page {
        Page::Overview => html(StatusCode::OK, overview::render(&core.overview())),
        Page::Job(id) => match core.detail(id).await {
            Some(d) => html(StatusCode::OK, job::render(&d)),
            None => text(StatusCode::NOT_FOUND, PLAIN, format!("no job {id}\n")),
        },
        Page::Analyse => html(
            StatusCode::OK,
            analyse::page("", None, core.config().analysis_planner.is_some()),
        ),
        Page::Submit => html(
            StatusCode::OK,
            submit::page(
                &crate::rollout_form::RolloutForm::defaults(),
                None,
                core.config().rollout_planner.is_some(),
            ),
        ),
    }
}

/// A posted body of at most `max` bytes, or the 413 answer saying so in
/// `too_large` ("the login form is at most 4096 bytes").
pub(super) async fn limited_body(
    body: Incoming,
    max: usize,
    too_large: &str,
) -> Result<hyper::body::Bytes, Reply> {
    match Limited::new(body, max).collect().await {
        Ok(b) => Ok(b.to_bytes()),
        Err(_) => Err(text(
            StatusCode::PAYLOAD_TOO_LARGE,
            PLAIN,
            format!("{too_large}\n"),
        )),
    }
}

/// The 401 answer: the form, with `message` when a token was wrong.
pub(super) fn refused(message: Option<&str>) -> Reply {
    html(StatusCode::UNAUTHORIZED, form(message))
}

/// `POST /login`: a right token sets the cookie and goes to `/`.
async fn login(core: &Core, req: Request<Incoming>) -> Reply {
    let Some(expected) = core.config().client_token.as_deref() else {
        return redirect("/", None);
    };
    let too_large = format!("the login form is at most {MAX_FORM_BYTES} bytes");
    let body = match limited_body(req.into_body(), MAX_FORM_BYTES, &too_large).await {
        Ok(b) => b,
        Err(reply) => return reply,
    };
    let given = field(&String::from_utf8_lossy(&body), "token");
    match check(Some(expected), given.as_deref(), false) {
        Access::Granted => redirect("/", given.as_deref().map(set_cookie)),
        Access::Missing => refused(Some("Enter the client token.")),
        Access::Wrong(m) => refused(Some(m)),
    }
}

/// The answer to a request for the page (anything but `/metrics` and `/healthz`).
pub async fn handle(core: &Core, req: Request<Incoming>) -> Reply {
    let path = req.uri().path().to_string();
    if path == "/login" {
        return match *req.method() {
            Method::POST => login(core, req).await,
            Method::GET if core.config().client_token.is_none() => redirect("/", None),
            Method::GET => html(StatusCode::OK, form(None)),
            _ => text(
                StatusCode::METHOD_NOT_ALLOWED,
                PLAIN,
                "use GET or POST\n".into(),
            ),
        };
    }
    let page = match page_of(&path) {
        Ok(p) => p,
        Err(e) => return text(StatusCode::NOT_FOUND, PLAIN, e),
    };
    if req.method() == Method::POST {
        match page {
            Page::Submit => return submit::post(core, req).await,
            Page::Analyse => return analyse::post(core, req).await,
            _ => {}
        }
    }
    if req.method() != Method::GET {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            PLAIN,
            "use GET (only /submit and /analyse take a POST)\n".into(),
        );
    }
    let expected = core.config().client_token.as_deref();
    let query = req.uri().query().and_then(|q| field(q, "token"));
    if let Some(t) = query {
        // A token in the address: keep it in the cookie and take it out of sight.
        return match check(expected, Some(&t), false) {
            Access::Granted => redirect(&path, expected.map(|_| set_cookie(&t))),
            Access::Missing => refused(None),
            Access::Wrong(m) => refused(Some(m)),
        };
    }
    let cookie = req
        .headers()
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(cookie_token);
    match check(expected, cookie.as_deref(), true) {
        Access::Granted => render(core, page).await,
        Access::Missing => refused(None),
        Access::Wrong(m) => refused(Some(m)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_pages() {
        assert!(matches!(page_of("/"), Ok(Page::Overview)));
        assert!(matches!(page_of("/job/12"), Ok(Page::Job(12))));
        assert!(matches!(page_of("/submit"), Ok(Page::Submit)));
        assert!(page_of("/job/x").is_err_and(|e| e.contains("/job/ID")));
        assert!(page_of("/etc/passwd").is_err_and(|e| e.contains("not found")));
    }
}
