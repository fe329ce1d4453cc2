//! HTML pieces: escaping (job names, moves and messages are user input), the page
//! frame with its small style sheet, tables, and times and durations in words.

use std::fmt::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Escaping of user text: the report crate's, which the boards and tables
/// drawn there use too.
pub use bgfarm_report::markup::escape;

/// Plain CSS: readable tables, numbers right-aligned in a monospace font.
const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}\
table{border-collapse:collapse;margin:.5em 0}\
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}\
th{background:#f0f0f0}td.l,th.l{text-align:left}\
td{font-family:monospace}tr:nth-child(even) td{background:#fafafa}\
.note{color:#666}.err{color:#a00;font-weight:bold}\
progress{width:8em;vertical-align:middle}\
.diagram svg{max-width:100%;height:auto}ol.candidates{margin:0;padding-left:1.6em}\
form.submit label{display:block;margin:.35em 0}form.submit input,form.submit select{font-family:monospace}";

/// A whole page titled `title` holding `body` (already HTML); `refresh`: reload
/// every 5 s (the overview and a running job's page follow the cluster so).
pub fn frame(title: &str, body: &str, refresh: bool) -> String {
    let meta = if refresh {
        "<meta http-equiv=\"refresh\" content=\"5\">"
    } else {
        ""
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{meta}\
         <title>{t}</title><style>{STYLE}</style></head>\n<body><h1>{t}</h1>\n{body}</body></html>\n",
        t = escape(title)
    )
}

/// A table cell: its text (escaped here) and whether it is left-aligned.
pub struct Cell {
    pub html: String,
    pub left: bool,
}

impl Cell {
    /// A right-aligned cell of `text`.
    pub fn num(text: &str) -> Cell {
        Cell {
            html: escape(text),
            left: false,
        }
    }

    /// A left-aligned cell of `text`.
    pub fn text(text: &str) -> Cell {
        Cell {
            html: escape(text),
            left: true,
        }
    }

    /// A left-aligned cell of HTML built from escaped parts.
    pub fn html(html: String) -> Cell {
        Cell { html, left: true }
    }
}

/// A table with `headers` (left-aligned when their flag is set) and `rows`.
pub fn table(headers: &[(&str, bool)], rows: &[Vec<Cell>]) -> String {
    let class = |left: bool| if left { " class=\"l\"" } else { "" };
    let mut s = String::from("<table>\n<tr>");
    for (h, left) in headers {
        let _ = write!(s, "<th{}>{}</th>", class(*left), escape(h));
    }
    s.push_str("</tr>\n");
    for row in rows {
        s.push_str("<tr>");
        for c in row {
            let _ = write!(s, "<td{}>{}</td>", class(c.left), c.html);
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    s
}

/// A two-column table without headings: one (name, HTML value) per row, the
/// names as row headings.
pub fn facts(rows: &[(&str, String)]) -> String {
    let mut s = String::from("<table>\n");
    for (name, html) in rows {
        let _ = writeln!(
            s,
            "<tr><th class=\"l\">{}</th><td class=\"l\">{html}</td></tr>",
            escape(name)
        );
    }
    s.push_str("</table>\n");
    s
}

/// "1 worker", "2 workers".
pub fn count(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// A duration in words: "42 s", "3 min 5 s", "2 h 7 min".
pub fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// A time as "2026-12-04 16:01:32 UTC" (the proleptic Gregorian calendar of
/// `days_from_civil`, inverted).
pub fn utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days, for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_is_escaped() {
        assert_eq!(
            escape("<b>\"a\" & 'b'</b>"),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;"
        );
        let t = table(&[("x", true)], &[vec![Cell::text("<script>")]]);
        assert!(t.contains("<td class=\"l\">&lt;script&gt;</td>"));
        assert!(!frame("<i>", "", false).contains("<title><i>"));
    }

    #[test]
    fn times_and_durations_read_well() {
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        // 2024-02-29 12:34:56 UTC, a leap day.
        let t = UNIX_EPOCH + Duration::from_secs(1_709_210_096);
        assert_eq!(utc(t), "2024-02-29 12:34:56 UTC");
        assert_eq!(duration(Duration::from_secs(42)), "42 s");
        assert_eq!(duration(Duration::from_secs(185)), "3 min 5 s");
        assert_eq!(duration(Duration::from_secs(7620)), "2 h 7 min");
    }
}
