//! The page's guard: with a client token set (`serve --client-token-file`), the
//! page needs it, given once in the form at `/login` or as `?token=` on any page;
//! the answer is a redirect that sets an HttpOnly cookie holding the token, so it
//! leaves the address bar and no script can read it. Tokens are compared in
//! constant time ([`crate::auth`]).

use crate::auth::same;
use crate::html::{escape, frame};
pub use crate::urlencoded::field;

/// The cookie's name.
pub const COOKIE: &str = "bgfarm_token";

/// Whether a request may see the page.
#[derive(Debug, PartialEq, Eq)]
pub enum Access {
    /// No token is set, or the request carries the right one.
    Granted,
    /// No token given: the form.
    Missing,
    /// A wrong token: the form and this message.
    Wrong(&'static str),
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 == 1 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The token in the `Cookie` header `header`, if any (hex, so that any token fits
/// a cookie).
pub fn cookie_token(header: &str) -> Option<Vec<u8>> {
    header
        .split(';')
        .find_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
        .map(|v| unhex(v).unwrap_or_default())
}

/// The `Set-Cookie` value that keeps `token` for this browser session.
pub fn set_cookie(token: &[u8]) -> String {
    format!("{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/", hex(token))
}

/// The access of a request that gives `given` (from the form, the query or the
/// cookie, `from_cookie` telling which) when the page's token is `expected`.
pub fn check(expected: Option<&str>, given: Option<&[u8]>, from_cookie: bool) -> Access {
    let Some(expected) = expected else {
        return Access::Granted;
    };
    match given {
        None => Access::Missing,
        Some(t) if same(t, expected.as_bytes()) => Access::Granted,
        Some(_) if from_cookie => Access::Wrong(
            "The token saved in this browser is no longer the coordinator's: enter the current one.",
        ),
        Some(_) => Access::Wrong("Wrong token: nothing is shown without the client token."),
    }
}

/// The login page: the form, and `message` (escaped) above it.
pub fn form(message: Option<&str>) -> String {
    let msg = message.map_or_else(String::new, |m| {
        format!("<p class=\"err\">{}</p>\n", escape(m))
    });
    let body = format!(
        "{msg}<p>This coordinator needs its client token (the file given to \
         <code>bgfarm serve --client-token-file</code>) to show its jobs.</p>\n\
         <form method=\"post\" action=\"/login\">\
         <label>Client token: <input type=\"password\" name=\"token\" autofocus></label> \
         <button type=\"submit\">Show the jobs</button></form>\n"
    );
    frame("bgfarm coordinator: token needed", &body, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_carry_any_token() {
        let c = set_cookie(b"s3; cret");
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Strict"));
        let value = c.split(';').next().unwrap_or_default();
        assert_eq!(
            cookie_token(&format!("other=1; {value}")),
            Some(b"s3; cret".to_vec())
        );
        assert_eq!(cookie_token("bgfarm_token=zz"), Some(Vec::new()));
        assert_eq!(cookie_token("other=1"), None);
    }

    #[test]
    fn tokens_are_checked() {
        assert_eq!(check(None, None, false), Access::Granted);
        assert_eq!(check(Some("s3"), Some(b"s3"), true), Access::Granted);
        assert_eq!(check(Some("s3"), None, false), Access::Missing);
        assert!(matches!(
            check(Some("s3"), Some(b"s4"), false),
            Access::Wrong(m) if m.starts_with("Wrong token")
        ));
        assert!(matches!(
            check(Some("s3"), Some(b"s4"), true),
            Access::Wrong(m) if m.contains("saved in this browser")
        ));
        assert!(form(Some("<b>")).contains("&lt;b&gt;"));
    }
}
