//! Move notation as GNU Backgammon writes it: `24/18 13/10`, `bar/22*`, `6/off(2)`,
//! `13/7*/1`, in the mover's numbering.
//!
//! Formatting joins the steps of one checker into a path and shows an intermediate
//! point only where that checker hit on it (`13/7*/1`; `24/15` when it passed freely),
//! lists paths from the highest start point down, and writes identical paths once with
//! a count (`8/5(2)`).
//!
//! Parsing accepts that form and common variants (`25/22`, `b/22`, `6/0`, `6/o`, upper
//! case, any order of paths). A move string is resolved against the legal moves of the
//! position: it names the checkers that travel and where they land, the hits on
//! landing points follow from the board, and intermediate hits must be written only
//! when the path could have passed a blot without landing on it.

use crate::dice::Dice;
use crate::error::ParseError;
use crate::movegen::{Move, MoveGenerator, Step};
use crate::position::{Position, BAR, OPP_BAR};

/// One checker's journey within a move.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Path {
    from: u8,
    /// Landing points after `from`, each with its hit flag; the last is the destination.
    stops: Vec<(u8, bool)>,
}

impl Path {
    fn to(&self) -> u8 {
        self.stops.last().map_or(self.from, |s| s.0)
    }

    fn text(&self) -> String {
        let mut s = point_name(self.from, true);
        let last = self.stops.len().saturating_sub(1);
        for (k, &(pt, hit)) in self.stops.iter().enumerate() {
            if k < last && !hit {
                continue;
            }
            s.push('/');
            s.push_str(&point_name(pt, false));
            if hit {
                s.push('*');
            }
        }
        s
    }
}

fn point_name(p: u8, from: bool) -> String {
    match p {
        25 if from => "bar".into(),
        0 if !from => "off".into(),
        n => n.to_string(),
    }
}

/// Joins steps (in playing order) into checker paths.
fn paths_of(steps: &[Step]) -> Vec<Path> {
    let mut paths: Vec<Path> = Vec::with_capacity(4);
    for s in steps {
        // Continue the path of a checker that landed on this step's start point.
        if let Some(p) = paths
            .iter_mut()
            .rev()
            .find(|p| p.to() == s.from && p.to() != 0)
        {
            p.stops.push((s.to, s.hit));
        } else {
            paths.push(Path {
                from: s.from,
                stops: vec![(s.to, s.hit)],
            });
        }
    }
    paths
}

/// GNU Backgammon-style notation of `m`, or `"cannot move"` for an empty move.
pub fn format_move(m: &Move) -> String {
    format_steps(m.steps())
}

/// Notation of a sequence of steps.
pub fn format_steps(steps: &[Step]) -> String {
    if steps.is_empty() {
        return "cannot move".into();
    }
    let mut paths = paths_of(steps);
    // Paths that differ only in their hit marks are written once, with the marks
    // (two checkers 9/6/3 where the first hit on 3: `9/3*(2)`).
    let key = |p: &Path| p.text().replace('*', "");
    paths.sort_by(|a, b| {
        b.from
            .cmp(&a.from)
            .then(b.to().cmp(&a.to()))
            .then_with(|| key(a).cmp(&key(b)))
    });
    let mut out = String::new();
    let mut i = 0;
    while i < paths.len() {
        let k = key(&paths[i]);
        let mut j = i + 1;
        while j < paths.len() && key(&paths[j]) == k {
            j += 1;
        }
        let text = paths[i..j]
            .iter()
            .map(Path::text)
            .max_by_key(|t| t.matches('*').count())
            .unwrap_or_default();
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&text);
        if j - i > 1 {
            out.push_str(&format!("({})", j - i));
        }
        i = j;
    }
    out
}

/// A parsed path before it is checked against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
struct WrittenPath {
    from: u8,
    /// Points written after `from`, with their `*` marks.
    stops: Vec<(u8, bool)>,
    count: u8,
}

fn parse_point(tok: &str, is_from: bool, whole: &str) -> Result<u8, ParseError> {
    let t = tok.to_ascii_lowercase();
    let bad = || ParseError::new(format!("bad move {whole:?}: {tok:?} is not a point"));
    match t.as_str() {
        "bar" | "b" if is_from => Ok(25),
        "off" | "o" if !is_from => Ok(0),
        _ => {
            let n: u8 = t.parse().map_err(|_| bad())?;
            match n {
                1..=24 => Ok(n),
                25 if is_from => Ok(25),
                0 if !is_from => Ok(0),
                _ => Err(bad()),
            }
        }
    }
}

fn parse_written(text: &str) -> Result<Vec<WrittenPath>, ParseError> {
    let mut out = Vec::new();
    for token in text.split_whitespace() {
        let (body, count) = match token.find('(') {
            Some(open) => {
                let close = token.strip_suffix(')').ok_or_else(|| {
                    ParseError::new(format!("bad move {text:?}: unclosed count in {token:?}"))
                })?;
                let n: u8 = close[open + 1..].parse().map_err(|_| {
                    ParseError::new(format!("bad move {text:?}: bad count in {token:?}"))
                })?;
                if !(1..=4).contains(&n) {
                    return Err(ParseError::new(format!(
                        "bad move {text:?}: count {n} in {token:?} is not 1-4"
                    )));
                }
                (&token[..open], n)
            }
            None => (token, 1),
        };
        let mut parts = body.split('/');
        let first = parts.next().unwrap_or_default();
        let from = parse_point(first.trim_end_matches('*'), true, text)?;
        let mut stops = Vec::new();
        let mut prev = from;
        for part in parts {
            let hit = part.ends_with('*');
            let pt = parse_point(part.trim_end_matches('*'), false, text)?;
            if pt >= prev {
                return Err(ParseError::new(format!(
                    "bad move {text:?}: {token:?} does not move forward"
                )));
            }
            if pt == 0 && hit {
                return Err(ParseError::new(format!(
                    "bad move {text:?}: nothing can be hit off the board"
                )));
            }
            stops.push((pt, hit));
            prev = pt;
        }
        if stops.is_empty() {
            return Err(ParseError::new(format!(
                "bad move {text:?}: {token:?} has no destination (write from/to)"
            )));
        }
        out.push(WrittenPath { from, stops, count });
    }
    if out.is_empty() {
        return Err(ParseError::new("empty move: write it like 24/18 13/10"));
    }
    Ok(out)
}

/// Applies written paths to `pos` as literally as they read: a checker leaves `from`,
/// hits where marked and wherever it lands on a blot, and arrives at the destination.
/// Paths are applied in any order that has a checker to move.
fn apply_written(
    pos: &Position,
    paths: &[WrittenPath],
    text: &str,
) -> Result<Position, ParseError> {
    let mut board = *pos;
    // Points where this move has hit already: a `*` there is true of the move even
    // if a later path of it lands without hitting (`9/3*(2)`).
    let mut hit_on = [false; 25];
    let mut todo: Vec<&WrittenPath> = paths
        .iter()
        .flat_map(|p| std::iter::repeat_n(p, p.count as usize))
        .collect();
    while !todo.is_empty() {
        let Some(k) = todo.iter().position(|p| board.at(p.from as usize) > 0) else {
            let p = todo[0];
            return Err(ParseError::new(format!(
                "illegal move {text:?}: no checker of yours on {}",
                point_name(p.from, true)
            )));
        };
        let p = todo.remove(k);
        let b = board.pips_mut();
        b[p.from as usize] -= 1;
        let last = p.stops.len() - 1;
        for (i, &(pt, marked)) in p.stops.iter().enumerate() {
            if pt == 0 {
                continue;
            }
            let c = b[pt as usize];
            if c <= -2 {
                return Err(ParseError::new(format!(
                    "illegal move {text:?}: point {pt} is blocked"
                )));
            }
            if c == -1 && (marked || i == last) {
                b[pt as usize] = 0;
                b[OPP_BAR] -= 1;
                hit_on[pt as usize] = true;
            } else if marked && !hit_on[pt as usize] {
                return Err(ParseError::new(format!(
                    "illegal move {text:?}: there is no blot to hit on {pt}"
                )));
            }
        }
        let to = p.stops[last].0 as usize;
        if to > 0 {
            b[to] += 1;
        }
    }
    debug_assert!(board.at(BAR) >= 0);
    Ok(board)
}

/// Finds the legal move of `dice` in `pos` that `text` describes.
pub fn parse_move(pos: &Position, dice: Dice, text: &str) -> Result<Move, ParseError> {
    let mut gen = MoveGenerator::new();
    let legal = gen.generate(pos, dice);
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    if legal.is_empty() {
        if lower.is_empty() || lower == "cannot move" || lower == "-" {
            return Err(ParseError::new(format!(
                "no legal move with {dice}: the roll is forfeited"
            )));
        }
        return Err(ParseError::new(format!(
            "illegal move {trimmed:?}: {dice} cannot be played here at all"
        )));
    }
    let written = parse_written(trimmed)?;
    let target = apply_written(pos, &written, trimmed)?;
    if let Some(m) = legal.iter().find(|m| *m.result() == target) {
        return Ok(*m);
    }
    // The path may have crossed a blot it had to land on (24/18 with 3-3 over a blot
    // on 21): accept the single legal move that puts the mover's checkers where the
    // text says, whatever it hit on the way.
    let same_checkers =
        |a: &Position, b: &Position| (1..=25).all(|i| a.at(i).max(0) == b.at(i).max(0));
    let matches: Vec<&Move> = legal
        .iter()
        .filter(|m| same_checkers(m.result(), &target))
        .collect();
    match matches.as_slice() {
        [one] => Ok(**one),
        [] => Err(ParseError::new(format!(
            "illegal move {trimmed:?} with {dice}: not one of the {} legal moves",
            legal.len()
        ))),
        many => Err(ParseError::new(format!(
            "ambiguous move {trimmed:?}: mark the hits, e.g. {}",
            many.iter()
                .map(|m| format_move(m))
                .collect::<Vec<_>>()
                .join(" or ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::position_id;

    fn step(from: u8, to: u8, die: u8, hit: bool) -> Step {
        Step { from, to, die, hit }
    }

    #[test]
    fn formats_like_gnubg() {
        assert_eq!(
            format_steps(&[step(8, 5, 3, false), step(6, 5, 1, false)]),
            "8/5 6/5"
        );
        assert_eq!(
            format_steps(&[step(6, 5, 1, false), step(8, 5, 3, false)]),
            "8/5 6/5"
        );
        assert_eq!(format_steps(&[step(25, 22, 3, true)]), "bar/22*");
        assert_eq!(
            format_steps(&[step(6, 0, 6, false), step(6, 0, 6, false)]),
            "6/off(2)"
        );
        assert_eq!(
            format_steps(&[step(13, 7, 6, true), step(7, 1, 6, false)]),
            "13/7*/1"
        );
        assert_eq!(
            format_steps(&[step(24, 20, 4, false), step(20, 15, 5, false)]),
            "24/15"
        );
        assert_eq!(
            format_steps(&[
                step(24, 18, 6, false),
                step(24, 18, 6, false),
                step(13, 7, 6, false),
                step(13, 7, 6, false)
            ]),
            "24/18(2) 13/7(2)"
        );
        assert_eq!(
            format_steps(&[
                step(9, 6, 3, false),
                step(6, 3, 3, true),
                step(9, 6, 3, false),
                step(6, 3, 3, false)
            ]),
            "9/3*(2)"
        );
        assert_eq!(format_steps(&[]), "cannot move");
    }

    #[test]
    fn parses_opening_moves() {
        let pos = Position::STARTING;
        let d = Dice::new(3, 1).unwrap();
        let m = parse_move(&pos, d, "8/5 6/5").unwrap();
        assert_eq!(position_id::encode(&m.next_position()), "sGfwATDgc/ABMA");
        assert_eq!(format_move(&m), "8/5 6/5");
        // Any order, variants of point names.
        assert_eq!(parse_move(&pos, d, "6/5 8/5").unwrap().result(), m.result());
        let run = parse_move(&pos, Dice::new(6, 5).unwrap(), "24/13").unwrap();
        assert_eq!(format_move(&run), "24/13");
        let dbl = parse_move(&pos, Dice::new(6, 6).unwrap(), "24/18(2) 13/7(2)").unwrap();
        assert_eq!(format_move(&dbl), "24/18(2) 13/7(2)");
    }

    #[test]
    fn rejects_illegal_and_malformed_moves() {
        let pos = Position::STARTING;
        let d = Dice::new(3, 1).unwrap();
        for bad in [
            "",
            "8/5",
            "24/20 6/5",
            "8/5 6/5 13/12",
            "5/2 8/7",
            "8/9 6/5",
            "x/5",
            "8/5(7)",
            "8/5*",
        ] {
            assert!(parse_move(&pos, d, bad).is_err(), "{bad:?} accepted");
        }
    }
}
