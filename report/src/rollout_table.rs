//! The columns of a rollout table and each row's cells, formatted once for the
//! CLI's text table and the coordinator's HTML table: rank, move, win, w.g, w.bg,
//! lose, l.g, l.bg, equity, SE (and cubeful, SE for a cubeful rollout), plus the
//! difference to the best row.

use crate::rollout_rows::{JsonCandidate, JsonCubeDecision};

/// One column: its heading and the width the text table pads it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub width: usize,
    /// Left-aligned (the move); every other column is right-aligned.
    pub left: bool,
}

const fn col(name: &'static str, width: usize) -> Column {
    Column {
        name,
        width,
        left: false,
    }
}

/// The columns of every rollout table.
const CUBELESS: [Column; 10] = [
    col("#", 3),
    Column {
        name: "move",
        width: 22,
        left: true,
    },
    col("win", 7),
    col("w.g", 7),
    col("w.bg", 7),
    col("lose", 7),
    col("l.g", 7),
    col("l.bg", 7),
    col("equity", 9),
    col("SE", 8),
];

/// The two more columns of a cubeful rollout.
const CUBEFUL: [Column; 2] = [col("cubeful", 9), col("SE", 8)];

/// The columns of a rollout table (without the difference to the best row, which
/// the text table prints unlabelled after each row but the first).
pub fn columns(cubeful: bool) -> Vec<Column> {
    let mut c = CUBELESS.to_vec();
    if cubeful {
        c.extend(CUBEFUL);
    }
    c
}

/// One row's cells, one per column of [`columns`], and its difference to the best
/// row (by the value the rows are ranked by; `None` for the best row).
#[derive(Clone, Debug, PartialEq)]
pub struct Cells {
    pub cells: Vec<String>,
    pub vs_best: Option<String>,
}

/// The cells of `rows`, which are ranked best first (see
/// [`crate::rollout_rows::ranked`]): probabilities with 4 decimals, equities signed.
pub fn cells(rows: &[JsonCandidate]) -> Vec<Cells> {
    let key = |r: &JsonCandidate| r.cubeful_equity.unwrap_or(r.equity);
    let best = rows.first().map_or(0.0, key);
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let p = r.probs;
            let mut cells = vec![
                (i + 1).to_string(),
                r.notation.clone().unwrap_or_else(|| "(position)".into()),
            ];
            cells.extend(
                [p[0], p[1], p[2], 1.0 - p[0], p[3], p[4]]
                    .iter()
                    .map(|x| format!("{x:.4}")),
            );
            cells.push(format!("{:+.4}", r.equity));
            cells.push(format!("{:.4}", r.equity_se));
            if let (Some(c), Some(cs)) = (r.cubeful_equity, r.cubeful_se) {
                cells.push(format!("{c:+.4}"));
                cells.push(format!("{cs:.4}"));
            }
            Cells {
                cells,
                vs_best: (i > 0).then(|| format!("{:+.4}", key(r) - best)),
            }
        })
        .collect()
}

/// `texts` padded to `columns`' widths and joined by spaces, after a two-space
/// indent: one line of the text table.
pub fn text_line<S: AsRef<str>>(columns: &[Column], texts: &[S]) -> String {
    let mut line = String::from(" ");
    for (c, t) in columns.iter().zip(texts) {
        let (t, w) = (t.as_ref(), c.width);
        if c.left {
            line.push_str(&format!(" {t:<w$}"));
        } else {
            line.push_str(&format!(" {t:>w$}"));
        }
    }
    line
}

/// The cube decision in words: "no double +0.1234 ± 0.0012, double/take ... ->
/// double take (+0.1234)".
pub fn decision_text(d: &JsonCubeDecision) -> String {
    format!(
        "no double {:+.4} ± {:.4}, double/take {:+.4} ± {:.4}, double/pass {:+.4} -> {} ({:+.4})",
        d.no_double,
        d.no_double_se,
        d.double_take,
        d.double_take_se,
        d.double_pass,
        d.action.replace('_', " "),
        d.equity
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lines_pad_as_the_table_did() {
        let cols = columns(false);
        let names: Vec<&str> = cols.iter().map(|c| c.name).collect();
        assert_eq!(
            text_line(&cols, &names),
            format!(
                "  {:>3} {:<22} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9} {:>8}",
                "#", "move", "win", "w.g", "w.bg", "lose", "l.g", "l.bg", "equity", "SE"
            )
        );
        assert_eq!(columns(true).len(), 12);
    }
}
