//! Reading GNU Backgammon's match equity table XML files (`met/*.xml`, `met.dtd`).
//!
//! The format: `<met>` holds `<info>` (`<name>`, `<description>`, `<length>`), a
//! `<pre-crawford-table type="explicit">` of `<row>`s of `<me>` numbers (row `a - 1`,
//! column `b - 1`: MWC of a player needing `a` against one needing `b`), and a
//! `<post-crawford-table type="explicit" player="both">` with one `<row>` (entry
//! `n - 1`: the trailer needing `n` against a 1-away leader). Tables shorter than 64
//! are extended as GNU Backgammon does ([`super::extend`]).
//!
//! This is a small dedicated reader, not a general XML parser: it skips the prolog,
//! `<!DOCTYPE>` and comments, reads elements, attributes and text, and is lenient
//! about nesting (GNU Backgammon's own `Kazaross-XG2.xml` closes `</met>` right after
//! `<info>`). Formula tables (`type="zadeh"` with `<parameters>`) are rejected with a
//! message: only explicit tables are supported. When a file gives separate
//! post-Crawford rows for player 0 and player 1, player 0's is used (the engine's
//! tables are player-symmetric).

use super::{MatchEquityTable, MetError};

/// One piece of the document.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Open { name: &'a str, attrs: &'a str },
    Close(&'a str),
    Text(&'a str),
}

/// Splits `text` into tags and text, skipping the prolog, declarations and
/// comments. Self-closing tags give an `Open` and a `Close`.
fn tokens(text: &str) -> Result<Vec<Token<'_>>, MetError> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            out.push(Token::Text(rest));
            break;
        };
        if lt > 0 {
            out.push(Token::Text(&rest[..lt]));
        }
        rest = &rest[lt..];
        let skip_to = |rest: &str, end: &str, what: &str| -> Result<usize, MetError> {
            rest.find(end)
                .map(|i| i + end.len())
                .ok_or_else(|| MetError::new(format!("unterminated {what} in the MET file")))
        };
        if rest.starts_with("<!--") {
            rest = &rest[skip_to(rest, "-->", "comment")?..];
        } else if rest.starts_with("<?") {
            rest = &rest[skip_to(rest, "?>", "declaration")?..];
        } else if rest.starts_with("<!") {
            rest = &rest[skip_to(rest, ">", "declaration")?..];
        } else {
            let end = skip_to(rest, ">", "tag")?;
            let inner = rest[1..end - 1].trim();
            rest = &rest[end..];
            if let Some(name) = inner.strip_prefix('/') {
                out.push(Token::Close(name.trim()));
            } else {
                let (body, closed) = match inner.strip_suffix('/') {
                    Some(b) => (b.trim_end(), true),
                    None => (inner, false),
                };
                let split = body.find(char::is_whitespace).unwrap_or(body.len());
                let (name, attrs) = body.split_at(split);
                if name.is_empty() {
                    return Err(MetError::new("empty tag name in the MET file"));
                }
                out.push(Token::Open { name, attrs });
                if closed {
                    out.push(Token::Close(name));
                }
            }
        }
    }
    Ok(out)
}

/// The value of attribute `key` in a tag's attribute text (`key="v"` or `key='v'`).
fn attr<'a>(attrs: &'a str, key: &str) -> Option<&'a str> {
    let mut rest = attrs;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim();
        let after = rest[eq + 1..].trim_start();
        let quote = after.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let close = after[1..].find(quote)? + 1;
        if name == key {
            return Some(&after[1..close]);
        }
        rest = &after[close + 1..];
    }
    None
}

/// Decodes the five predefined XML entities.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Pre,
    /// A post-Crawford table; `use_it` is false for a second player-specific one.
    Post {
        use_it: bool,
    },
}

/// Parses a GNU Backgammon MET XML document.
pub fn parse(text: &str) -> Result<MatchEquityTable, MetError> {
    let mut name = String::new();
    let mut length: Option<i64> = None;
    let mut pre: Vec<Vec<f64>> = Vec::new();
    let mut post: Option<Vec<f64>> = None;
    let mut section = Section::None;
    let mut row: Option<Vec<f64>> = None;
    let mut field: Option<&str> = None;
    let mut buf = String::new();
    for tok in tokens(text)? {
        match tok {
            Token::Open { name: tag, attrs } => match tag {
                "pre-crawford-table" | "post-crawford-table" => {
                    let kind = attr(attrs, "type").unwrap_or("explicit");
                    if kind != "explicit" {
                        return Err(MetError::new(format!(
                            "{tag} type=\"{kind}\" is a formula table; only explicit \
                             tables (rows of <me> values) are supported"
                        )));
                    }
                    section = if tag == "pre-crawford-table" {
                        Section::Pre
                    } else {
                        Section::Post {
                            use_it: post.is_none(),
                        }
                    };
                }
                "parameters" if section != Section::None => {
                    return Err(MetError::new(
                        "formula tables (<parameters>) are not supported; give an explicit table",
                    ));
                }
                "row" if section != Section::None => row = Some(Vec::new()),
                "me" | "name" | "length" => {
                    field = Some(tag);
                    buf.clear();
                }
                _ => {}
            },
            Token::Text(t) => {
                if field.is_some() {
                    buf.push_str(t);
                }
            }
            Token::Close(tag) => match tag {
                "me" => {
                    field = None;
                    let v = buf.trim();
                    let value: f64 = v.parse().map_err(|_| {
                        MetError::new(format!(
                            "{} row {}: {v:?} is not a number",
                            if section == Section::Pre {
                                "pre-Crawford"
                            } else {
                                "post-Crawford"
                            },
                            pre.len() + 1
                        ))
                    })?;
                    match row.as_mut() {
                        Some(r) => r.push(value),
                        None => return Err(MetError::new("<me> outside a <row> in the MET file")),
                    }
                }
                "name" => {
                    field = None;
                    if name.is_empty() {
                        name = unescape(buf.trim());
                    }
                }
                "length" => {
                    field = None;
                    let v = buf.trim();
                    length = Some(v.parse().map_err(|_| {
                        MetError::new(format!("<length> {v:?} is not a whole number"))
                    })?);
                }
                "row" => {
                    if let Some(r) = row.take() {
                        match section {
                            Section::Pre => pre.push(r),
                            Section::Post { use_it: true } if post.is_none() => post = Some(r),
                            _ => {}
                        }
                    }
                }
                "pre-crawford-table" | "post-crawford-table" => section = Section::None,
                _ => {}
            },
        }
    }
    if pre.is_empty() {
        return Err(MetError::new(
            "no <pre-crawford-table> rows found: not a GNU Backgammon MET file",
        ));
    }
    let Some(post) = post else {
        return Err(MetError::new(
            "no <post-crawford-table> row found in the MET file",
        ));
    };
    if let Some(len) = length {
        if len > 0 && len != pre.len() as i64 {
            return Err(MetError::new(format!(
                "<length> says {len} but the pre-Crawford table has {} rows",
                pre.len()
            )));
        }
    }
    let name = if name.is_empty() {
        "MET file".to_string()
    } else {
        name
    };
    MatchEquityTable::from_given(&name, &pre, &post)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::met::MatchEquity;

    /// A file in GNU Backgammon's layout, with its quirks: prolog, DOCTYPE, a
    /// comment, `</met>` closed early, a second player-specific post-Crawford row.
    const SAMPLE: &str = r#"<?xml version = "1.0"?>
<!DOCTYPE met PUBLIC "-//GNU Backgammon//DTD Match Equity Tables//EN" "met.dtd">
<!-- a comment with <tags> inside -->
<met>
  <info>
    <name>Test &amp; table</name>
    <description>three scores</description>
    <length>3</length>
  </info>
</met>
  <pre-crawford-table type="explicit">
    <row> <me>0.5</me> <me>0.7</me> <me>0.75</me> </row>
    <row> <me>0.3</me> <me>0.5</me> <me>0.6</me> </row>
    <row> <me>0.25</me> <me>0.4</me> <me>0.5</me> </row>
  </pre-crawford-table>
  <post-crawford-table type="explicit" player="0">
    <row> <me>0.5</me> <me>0.49</me> <me>0.32</me> </row>
  </post-crawford-table>
  <post-crawford-table type='explicit' player="1">
    <row> <me>0.5</me> <me>0.1</me> <me>0.1</me> </row>
  </post-crawford-table>
</met>
"#;

    #[test]
    fn reads_gnubg_layout() {
        let t = parse(SAMPLE).unwrap();
        assert_eq!(t.name(), "Test & table");
        assert_eq!(t.native_size(), 3);
        assert_eq!(t.pre_crawford(1, 2), 0.7);
        assert_eq!(t.pre_crawford(3, 2), 0.4);
        assert_eq!(t.post_crawford(2), 0.49);
        assert_eq!(t.post_crawford(3), 0.32);
        // Extended past the file.
        assert!(t.pre_crawford(10, 1) < 0.05);
    }

    #[test]
    fn round_trips_the_embedded_table() {
        let k = MatchEquityTable::kazaross_xg2();
        let mut xml = String::from("<met><info><name>k</name><length>15</length></info>");
        xml.push_str("<pre-crawford-table type=\"explicit\">");
        for row in k.pre_crawford_square(15) {
            xml.push_str("<row>");
            for v in row {
                xml.push_str(&format!("<me>{v}</me>"));
            }
            xml.push_str("</row>");
        }
        xml.push_str(
            "</pre-crawford-table><post-crawford-table type=\"explicit\" player=\"both\"><row>",
        );
        for v in k.post_crawford_row(15) {
            xml.push_str(&format!("<me>{v}</me>"));
        }
        xml.push_str("</row></post-crawford-table></met>");
        let t = parse(&xml).unwrap();
        for a in 1..=64 {
            for b in 1..=64 {
                assert_eq!(t.pre_crawford(a, b), k.pre_crawford(a, b));
            }
            assert_eq!(t.post_crawford(a), k.post_crawford(a));
        }
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        let err = |s: &str| parse(s).unwrap_err().to_string();
        assert!(err("hello").contains("not a GNU Backgammon MET file"));
        assert!(err("<met><!-- open").contains("unterminated comment"));
        let zadeh = r#"<met><pre-crawford-table type="zadeh"><parameters>
            <parameter name="delta">0.08</parameter></parameters></pre-crawford-table></met>"#;
        assert!(err(zadeh).contains("formula table"));
        let bad = "<met><pre-crawford-table><row><me>x</me></row></pre-crawford-table></met>";
        assert!(err(bad).contains("not a number"));
        let no_post = "<met><pre-crawford-table><row><me>0.5</me></row></pre-crawford-table></met>";
        assert!(err(no_post).contains("post-crawford"));
        let short = SAMPLE.replace("<length>3</length>", "<length>4</length>");
        assert!(err(&short).contains("<length> says 4"));
    }

    #[test]
    fn attributes() {
        assert_eq!(attr(r#" type="explicit" player='1'"#, "player"), Some("1"));
        assert_eq!(attr(r#" type="explicit""#, "player"), None);
        assert_eq!(attr(" type=explicit", "type"), None);
    }
}
