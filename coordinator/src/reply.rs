//! HTTP responses of the operators' port: a body with its status and content type,
//! and the headers every answer carries.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE, LOCATION, SET_COOKIE};
use hyper::{Response, StatusCode};

/// An HTTP response with a complete body.
pub type Reply = Response<Full<Bytes>>;

/// Plain text.
pub const PLAIN: &str = "text/plain; charset=utf-8";
/// An HTML page.
pub const HTML: &str = "text/html; charset=utf-8";

/// `body` with `status` and `content_type`, never cached (it is a live view).
pub fn text(status: StatusCode, content_type: &'static str, body: String) -> Reply {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// An HTML page: no scripts may run, no other site may frame it, forms post only
/// to this server (the rollout form posts to `/submit`).
pub fn html(status: StatusCode, body: String) -> Reply {
    let mut r = text(status, HTML, body);
    let h = r.headers_mut();
    h.insert(
        "content-security-policy",
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        ),
    );
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    r
}

/// A 303 redirect to `location` (a path of this server), setting `cookie` when
/// given.
pub fn redirect(location: &str, cookie: Option<String>) -> Reply {
    let mut r = text(StatusCode::SEE_OTHER, PLAIN, format!("see {location}\n"));
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(location) {
        h.insert(LOCATION, v);
    }
    if let Some(v) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        h.insert(SET_COOKIE, v);
    }
    r
}
