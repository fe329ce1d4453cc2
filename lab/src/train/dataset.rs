//! Labelled positions on disk: one text line per position,
//! `<position ID> <win> <win gammon> <win backgammon> <lose gammon> <lose backgammon>`.
//!
//! Text rather than a binary format because labelling is slow (~3 ms a position at
//! 2-ply) and worth keeping for years: a line is 14 + 5 x 9 bytes, so a million
//! labelled positions take ~60 MB, readable with any tool, mergeable with `cat`,
//! and a truncated last line (a killed labelling run) is detected and reported.

use bgfarm_engine::error::ParseError;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::position::Position;
use std::fmt::Write as _;

/// A position (player on roll, before the roll) with its target probabilities.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub pos: Position,
    pub probs: [f32; OUTPUTS],
}

/// One line, without the newline. Seven decimals keep the labels' f32 precision
/// where it matters (a 1e-7 difference in a probability is far below any net's error).
pub fn format_sample(s: &Sample) -> String {
    let mut line = position_id::encode(&s.pos);
    for p in s.probs {
        let _ = write!(line, " {p:.7}");
    }
    line
}

/// The position and five values of one line, each value within `range`. Errors
/// name a value `what.0` (plural `what.1`) and the range `range.1`.
fn parse_values(
    line: &str,
    lineno: usize,
    what: (&str, &str),
    range: (std::ops::RangeInclusive<f32>, &str),
) -> Result<(Position, [f32; OUTPUTS]), ParseError> {
    let err = |m: String| ParseError::new(format!("line {lineno}: {m}"));
    let mut fields = line.split_ascii_whitespace();
    let id = fields.next().ok_or_else(|| err("empty line".into()))?;
    let pos = position_id::decode(id).map_err(|e| err(e.message().to_string()))?;
    let mut values = [0f32; OUTPUTS];
    for (k, p) in values.iter_mut().enumerate() {
        let f = fields
            .next()
            .ok_or_else(|| err(format!("{k} {}, expected {OUTPUTS}", what.1)))?;
        let v: f32 = f
            .parse()
            .map_err(|_| err(format!("{f:?} is not a number")))?;
        if !range.0.contains(&v) {
            return Err(err(format!("{} {v} outside {}", what.0, range.1)));
        }
        *p = v;
    }
    if fields.next().is_some() {
        return Err(err(format!("more than {OUTPUTS} {}", what.1)));
    }
    Ok((pos, values))
}

/// Parses one line; `lineno` (1-based) goes into the error message.
pub fn parse_sample(line: &str, lineno: usize) -> Result<Sample, ParseError> {
    let nouns = ("probability", "probabilities");
    let (pos, probs) = parse_values(line, lineno, nouns, (0.0..=1.0, "0..1"))?;
    // Cumulative convention: gammons are part of wins, backgammons of gammons.
    let [w, wg, wbg, lg, lbg] = probs;
    let slack = 1e-4;
    if wg > w + slack || wbg > wg + slack || lg > 1.0 - w + slack || lbg > lg + slack {
        return Err(ParseError::new(format!(
            "line {lineno}: probabilities break the cumulative convention (gammons within wins)"
        )));
    }
    Ok(Sample { pos, probs })
}

/// Parses one line of trial-outcome targets (`bgfarm-lab train outcomes`): the format of
/// [`format_sample`], but each value only has to be within -4..5 (a luck-adjusted
/// result is a probability plus zero-mean noise, so it may leave 0..1 and break the
/// cumulative order; clipping it would bias the fit). The range only refuses
/// garbage: the noise reaches ~1.1 in a million targets.
pub fn parse_target(line: &str, lineno: usize) -> Result<Sample, ParseError> {
    let (pos, probs) = parse_values(line, lineno, ("target", "targets"), (-4.0..=5.0, "-4..5"))?;
    Ok(Sample { pos, probs })
}

/// Parses a whole file of outcome targets (see [`parse_target`]).
pub fn parse_targets(text: &str) -> Result<Vec<Sample>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| parse_target(l, i + 1))
        .collect()
}

/// Parses a whole file's text; blank lines and lines starting with `#` are skipped.
pub fn parse_samples(text: &str) -> Result<Vec<Sample>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| parse_sample(l, i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_lines_are_named() {
        let s = Sample {
            pos: Position::STARTING,
            probs: [0.5234567, 0.15, 0.01, 0.12, 0.005],
        };
        let line = format_sample(&s);
        assert_eq!(
            line,
            "4HPwATDgc/ABMA 0.5234567 0.1500000 0.0100000 0.1200000 0.0050000"
        );
        assert_eq!(parse_sample(&line, 1).unwrap(), s);
        let text = format!("# header\n{line}\n\n{line}\n");
        assert_eq!(parse_samples(&text).unwrap().len(), 2);
        for (bad, why) in [
            ("4HPwATDgc/ABMA 0.5 0.1 0.0 0.1", "4 probabilities"),
            ("4HPwATDgc/ABMA 0.5 0.1 0.0 0.1 0.0 0.3", "more than 5"),
            ("4HPwATDgc/ABMA 0.5 0.1 0.0 0.1 x", "not a number"),
            ("4HPwATDgc/ABMA 1.5 0.1 0.0 0.1 0.0", "outside 0..1"),
            ("4HPwATDgc/ABMA 0.5 0.6 0.0 0.1 0.0", "cumulative"),
            ("notanid 0.5 0.1 0.0 0.1 0.0", "position ID"),
        ] {
            let e = parse_samples(&format!("{line}\n{bad}\n")).unwrap_err();
            assert!(e.message().starts_with("line 2: "), "{e}");
            assert!(e.message().contains(why), "{bad}: {e}");
        }
    }
}
