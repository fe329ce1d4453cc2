//! How far a bench line's 0-ply equities are from GNU Backgammon 2-ply's
//! ([`ValueErrors`]): one of `bench hint`'s measures, in a file of its own because
//! it reads only the oracle's lines, not the command's choices.

use super::oracle::{BenchMove, Line};

/// How far 0-ply equities are from GNU Backgammon 2-ply's on one decision, over
/// its [`VALUED`] best plays by 2-ply: the mean absolute error of the equities
/// (what a cube decision or an analysis reads) and of their differences to the
/// best play's (what a move choice reads). Why both: in races valued by the
/// two-sided race net the choices lost 0.39 x1000 per decision (GNU Backgammon 0-ply 0.13), but the
/// equities were off by 0.0095 per play (GNU Backgammon 0-ply 0.0018), most of it
/// in gammon chances, which no choice measure shows.
#[derive(Clone, Copy, Default)]
pub(super) struct ValueErrors {
    pub(super) equity: f64,
    pub(super) difference: f64,
}

/// Plays per decision whose values [`ValueErrors`] scores: GNU Backgammon 2-ply's
/// best five, the candidates a choice is made among (as in
/// `scripts/race-rollout-check.py`).
pub(super) const VALUED: usize = 5;

/// [`ValueErrors`] of `values` (0-ply equities by result position ID, for the
/// player making the play) against the file's 2-ply values; `None` when a play of
/// the best [`VALUED`] has no value.
pub(super) fn value_errors(
    line: &Line,
    value: impl Fn(&BenchMove) -> Option<f64>,
) -> Option<ValueErrors> {
    let mut top: Vec<&BenchMove> = line.moves.iter().collect();
    top.sort_by(|a, b| b.eq2.total_cmp(&a.eq2));
    top.truncate(VALUED);
    let best = *top.first()?;
    let best_value = value(best)?;
    let mut e = ValueErrors::default();
    for m in &top {
        let v = value(m)?;
        e.equity += (v - m.eq2).abs();
        e.difference += ((v - best_value) - (m.eq2 - best.eq2)).abs();
    }
    let n = top.len() as f64;
    e.equity /= n;
    // The best play's own difference is 0 by construction: it is not counted.
    e.difference /= (n - 1.0).max(1.0);
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: 2-ply values 0.5, 0.4, 0.1 against 0-ply ones 0.45, 0.42, 0.2.
    /// Equity errors 0.05, 0.02 and 0.1, mean 0.0567; differences to the best
    /// -0.03 and -0.25 against -0.1 and -0.4, errors 0.07 and 0.15, mean 0.11.
    #[test]
    fn value_errors_by_hand() {
        let mv = |result: &str, eq0: f64, eq2: f64| BenchMove {
            result: result.to_string(),
            eq0,
            eq2,
        };
        let line = Line {
            pos: "x".to_string(),
            dice: [1, 2],
            class: "race".to_string(),
            gnubg_choice: "a".to_string(),
            // Not in 2-ply order: the errors sort them.
            moves: vec![mv("c", 0.2, 0.1), mv("a", 0.45, 0.5), mv("b", 0.42, 0.4)],
        };
        let e = value_errors(&line, |m| Some(m.eq0)).expect("all valued");
        assert!((e.equity - 0.17 / 3.0).abs() < 1e-12, "{}", e.equity);
        assert!((e.difference - 0.11).abs() < 1e-12, "{}", e.difference);
        let exact = value_errors(&line, |m| Some(m.eq2)).expect("all valued");
        assert_eq!((exact.equity, exact.difference), (0.0, 0.0));
        assert!(value_errors(&line, |m| (m.result != "b").then_some(m.eq0)).is_none());
    }
}
