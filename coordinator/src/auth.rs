//! Bearer-token authentication: a tonic interceptor per service, with separate
//! client and worker tokens so a leaked worker token cannot submit or cancel jobs.

use tonic::{Request, Status};

/// The interceptor of one service: accepts a request whose `authorization` header is
/// `Bearer <token>` (any request when `token` is `None`).
#[derive(Clone)]
pub struct BearerAuth {
    token: Option<String>,
    role: &'static str,
}

impl BearerAuth {
    /// Checks `token` for requests of `role` ("client" or "worker", for messages).
    pub fn new(token: Option<String>, role: &'static str) -> BearerAuth {
        BearerAuth { token, role }
    }
}

/// Constant-time equality, so the time to refuse does not leak the matching prefix.
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl tonic::service::Interceptor for BearerAuth {
    fn call(&mut self, req: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.token else {
            return Ok(req);
        };
        let given = req
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        match given {
            Some(t) if same(t.as_bytes(), expected.as_bytes()) => Ok(req),
            Some(_) => Err(Status::unauthenticated(format!(
                "wrong {} token",
                self.role
            ))),
            None => Err(Status::unauthenticated(format!(
                "missing {} token (authorization: Bearer ...)",
                self.role
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::service::Interceptor;

    fn with(h: Option<&str>) -> Request<()> {
        let mut r = Request::new(());
        if let Some(h) = h {
            r.metadata_mut()
                .insert("authorization", h.parse().expect("ascii"));
        }
        r
    }

    #[test]
    fn tokens_are_checked() {
        let mut a = BearerAuth::new(Some("s3cret".into()), "worker");
        assert!(a.call(with(Some("Bearer s3cret"))).is_ok());
        let e = a
            .call(with(Some("Bearer s3cres")))
            .err()
            .map(|s| s.message().to_string());
        assert_eq!(e.as_deref(), Some("wrong worker token"));
        assert!(a.call(with(None)).is_err());
        assert!(a.call(with(Some("s3cret"))).is_err());
        assert!(BearerAuth::new(None, "client").call(with(None)).is_ok());
    }
}
