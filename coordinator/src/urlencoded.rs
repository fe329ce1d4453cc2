//! `application/x-www-form-urlencoded` text, as browsers post forms and write
//! queries: the page's token form and rollout form read their fields with it.

/// Decodes `application/x-www-form-urlencoded` text (`+` is a space, `%XX` a
/// byte); a malformed escape is kept as it is.
pub fn form_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |k: usize| {
            b.get(k..k + 2)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        };
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if hex(i + 1).is_some() => {
                out.extend(hex(i + 1));
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// The value of field `name` in form or query text `s`, decoded.
pub fn field(s: &str, name: &str) -> Option<Vec<u8>> {
    s.split('&')
        .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
        .map(form_decode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_fields_are_decoded() {
        assert_eq!(form_decode("a+b%2Fc%3d%zz"), b"a b/c=%zz");
        assert_eq!(field("x=1&token=s3%2Bc", "token"), Some(b"s3+c".to_vec()));
        assert_eq!(field("tokens=1", "token"), None);
        assert_eq!(field("", "token"), None);
    }
}
