//! `multipart/form-data` bodies (RFC 7578), as a browser posts a form with a file
//! input: the parts between the boundary lines, each with its field name, the
//! file name if any, and its bytes. Only what the analysis form needs: no nested
//! multiparts, no transfer encodings (browsers send neither for a form).

/// One part of a form post.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub data: Vec<u8>,
}

/// The boundary of a `multipart/form-data` content type.
pub fn boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_string())
            .filter(|b| !b.is_empty() && b.len() <= 70)
    })
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// A `name="value"` parameter of a `Content-Disposition` header.
fn param(header: &str, name: &str) -> Option<String> {
    let key = format!("{name}=\"");
    let start = header.find(&key)? + key.len();
    let end = header[start..].find('"')? + start;
    Some(header[start..end].to_string())
}

/// The parts of `body`, posted with `boundary`; an error says what is malformed.
pub fn parts(boundary: &str, body: &[u8]) -> Result<Vec<Part>, String> {
    let delim = format!("--{boundary}");
    let mut at = find(body, delim.as_bytes(), 0).ok_or("no multipart boundary in the body")?;
    let mut out = Vec::new();
    loop {
        at += delim.len();
        if body.get(at..at + 2) == Some(b"--") {
            return Ok(out);
        }
        let head_start = at + 2;
        let head_end = find(body, b"\r\n\r\n", head_start).ok_or("a part without headers")?;
        let head = String::from_utf8_lossy(&body[head_start..head_end]).into_owned();
        let next = find(body, format!("\r\n{delim}").as_bytes(), head_end + 4)
            .ok_or("a part without its closing boundary")?;
        let disposition = head
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))
            .ok_or("a part without Content-Disposition")?;
        out.push(Part {
            name: param(disposition, "name").ok_or("a part without a field name")?,
            filename: param(disposition, "filename"),
            data: body[head_end + 4..next].to_vec(),
        });
        at = next + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_post_is_read() {
        let ct = "multipart/form-data; boundary=----WebKitFormBoundaryX1";
        let b = boundary(ct).expect("boundary");
        let body = "------WebKitFormBoundaryX1\r\n\
            Content-Disposition: form-data; name=\"ply\"\r\n\r\n2\r\n\
            ------WebKitFormBoundaryX1\r\n\
            Content-Disposition: form-data; name=\"match\"; filename=\"m.mat\"\r\n\
            Content-Type: application/octet-stream\r\n\r\n\
            line 1\r\nline 2\r\n\r\n\
            ------WebKitFormBoundaryX1--\r\n";
        let p = parts(&b, body.as_bytes()).expect("parts");
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].name.as_str(), p[0].data.as_slice()),
            ("ply", &b"2"[..])
        );
        assert_eq!(p[1].filename.as_deref(), Some("m.mat"));
        assert_eq!(p[1].data, b"line 1\r\nline 2\r\n");
    }

    #[test]
    fn malformed_bodies_are_errors() {
        assert_eq!(boundary("application/x-www-form-urlencoded"), None);
        assert_eq!(boundary("multipart/form-data"), None);
        assert!(parts("b", b"nothing").is_err());
        assert!(parts(
            "b",
            b"--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nno end"
        )
        .is_err());
        assert!(parts("b", b"--b\r\nX: y\r\n\r\nv\r\n--b--").is_err());
        assert_eq!(parts("b", b"--b--").map(|p| p.len()), Ok(0));
    }

    proptest::proptest! {
        /// Any body, and any boundary, is read or refused without a panic; the
        /// parts read back the bytes written.
        #[test]
        fn hostile_bodies_never_panic(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
                                      b in "[a-z0-9-]{1,20}") {
            let _ = parts(&b, &body);
            let mut framed = format!("--{b}\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n").into_bytes();
            framed.extend_from_slice(&body);
            framed.extend_from_slice(format!("\r\n--{b}--\r\n").as_bytes());
            if let Ok(p) = parts(&b, &framed) {
                proptest::prop_assert!(!p.is_empty());
            }
        }
    }
}
