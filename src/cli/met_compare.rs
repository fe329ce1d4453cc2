//! `bgfarm met --table T --compare T1,T2`: one table side by side with others, the
//! differences beside each, and the largest and root-mean-square difference per
//! table. Scores are listed once, `a`-away vs `b`-away with `a < b` (the other half
//! is one minus them, the diagonal 0.5), then the post-Crawford row.
//!
//! Why a list rather than squares: the point of the view is how far a computed
//! table (Keith's, the Janowski-consistent one) sits from a rolled-out one at each
//! score, and a difference is easiest read next to both values.

use super::CliError;
use bgfarm_engine::met::{MatchEquity, MatchEquityTable};
use serde::Serialize;

/// The tables of `--compare`: names split at `;` when there is one, else at `,`,
/// where a piece of the form `key=value` without a `:` continues the name before it
/// (`kazaross-xg2,janowski:x=0.5,G=0.2` is two tables), each loaded by `load` (the
/// command's table loader).
pub fn load_list(
    names: &str,
    load: impl Fn(&str) -> Result<MatchEquityTable, CliError>,
) -> Result<Vec<MatchEquityTable>, CliError> {
    let mut list: Vec<String> = Vec::new();
    if names.contains(';') {
        list = names.split(';').map(str::to_string).collect();
    } else {
        for piece in names.split(',') {
            match list.last_mut() {
                Some(last) if piece.contains('=') && !piece.contains(':') => {
                    last.push(',');
                    last.push_str(piece);
                }
                _ => list.push(piece.to_string()),
            }
        }
    }
    let list: Vec<&str> = list
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    if list.is_empty() {
        return Err(CliError::msg("--compare names no table"));
    }
    list.into_iter().map(load).collect()
}

#[derive(Serialize)]
struct Compared {
    name: String,
    pre_crawford: Vec<Vec<f64>>,
    post_crawford: Vec<f64>,
    /// Largest |table - this| over the pre-Crawford scores `a < b` and the
    /// post-Crawford row shown.
    max_abs_diff: f64,
    rms_diff: f64,
}

#[derive(Serialize)]
struct JsonOut {
    name: String,
    pre_crawford: Vec<Vec<f64>>,
    post_crawford: Vec<f64>,
    compare: Vec<Compared>,
}

/// The scores compared, `(a, b)` with `a < b` up to `length`, in row order.
fn scores(length: u32) -> Vec<(u32, u32)> {
    (1..=length)
        .flat_map(|a| (a + 1..=length).map(move |b| (a, b)))
        .collect()
}

/// `(max |d|, rms d)` of `table - other` over the compared scores.
fn summary(table: &MatchEquityTable, other: &MatchEquityTable, length: u32) -> (f64, f64) {
    let mut diffs: Vec<f64> = scores(length)
        .into_iter()
        .map(|(a, b)| table.pre_crawford(a, b) - other.pre_crawford(a, b))
        .collect();
    diffs.extend((2..=length).map(|n| table.post_crawford(n) - other.post_crawford(n)));
    let max = diffs.iter().fold(0.0f64, |m, d| m.max(d.abs()));
    let rms = if diffs.is_empty() {
        0.0
    } else {
        (diffs.iter().map(|d| d * d).sum::<f64>() / diffs.len() as f64).sqrt()
    };
    (max, rms)
}

/// Prints `table` against `others` for scores 1- to `length`-away.
pub fn print(
    table: &MatchEquityTable,
    others: &[MatchEquityTable],
    length: u32,
    json: bool,
) -> Result<(), CliError> {
    if json {
        let out = JsonOut {
            name: table.name().to_string(),
            pre_crawford: table.pre_crawford_square(length),
            post_crawford: table.post_crawford_row(length),
            compare: others
                .iter()
                .map(|o| {
                    let (max_abs_diff, rms_diff) = summary(table, o, length);
                    Compared {
                        name: o.name().to_string(),
                        pre_crawford: o.pre_crawford_square(length),
                        post_crawford: o.post_crawford_row(length),
                        max_abs_diff,
                        rms_diff,
                    }
                })
                .collect(),
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    println!("T0: {}", table.name());
    for (i, o) in others.iter().enumerate() {
        println!("T{}: {}", i + 1, o.name());
    }
    println!(
        "Pre-Crawford MWC of the player a-away against one b-away (a < b; the other \
         half is 1 minus them; 1-away is the Crawford game); dK = T0 - TK."
    );
    let header = |first: &str| {
        print!("{first:>6} {:>7}", "T0");
        for i in 1..=others.len() {
            print!(" {:>7} {:>7}", format!("T{i}"), format!("d{i}"));
        }
        println!();
    };
    let row = |label: String, v: f64, vs: Vec<f64>| {
        print!("{label:>6} {v:>7.4}");
        for w in vs {
            print!(" {w:>7.4} {:>+7.4}", v - w);
        }
        println!();
    };
    header("score");
    for (a, b) in scores(length) {
        row(
            format!("{a}a{b}a"),
            table.pre_crawford(a, b),
            others.iter().map(|o| o.pre_crawford(a, b)).collect(),
        );
    }
    println!("Post-Crawford MWC of the trailer n-away against a 1-away leader.");
    header("n");
    for n in 2..=length {
        row(
            format!("{n}a"),
            table.post_crawford(n),
            others.iter().map(|o| o.post_crawford(n)).collect(),
        );
    }
    for (i, o) in others.iter().enumerate() {
        let (max, rms) = summary(table, o, length);
        println!(
            "T0 - T{}: largest |difference| {max:.4}, root mean square {rms:.4}",
            i + 1
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loader that knows two names and echoes the rest in an error.
    fn load(name: &str) -> Result<MatchEquityTable, CliError> {
        match name {
            "kazaross-xg2" => Ok(MatchEquityTable::kazaross_xg2()),
            "janowski:x=0.5,G=0.2" => Ok(MatchEquityTable::janowski(0.5, 0.2)?),
            other => Err(CliError::msg(format!("unknown {other:?}"))),
        }
    }

    #[test]
    fn names_with_commas() {
        let l = load_list("kazaross-xg2,janowski:x=0.5,G=0.2", load).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[1].name(), "Janowski x=0.5 G=0.2");
        let l = load_list("janowski:x=0.5,G=0.2; kazaross-xg2", load).unwrap();
        assert_eq!(l.len(), 2);
        assert!(load_list(" , ", load).is_err());
        assert!(load_list("kazaross-xg2,nope", load).is_err());
        let t = MatchEquityTable::kazaross_xg2();
        assert_eq!(summary(&t, &t, 7), (0.0, 0.0));
        assert_eq!(scores(3), vec![(1, 2), (1, 3), (2, 3)]);
    }
}
