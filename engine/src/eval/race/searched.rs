//! Race probabilities from the tables and searches alone, with no net anywhere, or
//! nothing: a referee for race move choices.
//!
//! Why: GNU Backgammon's bench scores every choice by its 2-ply search, which in races
//! rests on its race net, and in gammon saves with stragglers far back that net is
//! off by more than the differences between plays. `u3kDAMCZhcEOAA` 6-1: GNU 2-ply
//! puts 15/8 0.020 ahead of 16/10 15/14, where the one-sided first-off search puts
//! the two 0.001 apart (lose gammon 0.624 and 0.625). A choice judged there is judged
//! by the referee's error. [`searched_probs`] answers only where every one of the
//! five chances comes from a table or a search that decided it, so a loss scored
//! with it carries no net's error.
//!
//! What "searched" means, chance by chance (each side plays to finish, or to bear
//! its first checker off, in the fewest expected rolls: the one-sided approximation
//! the bear-off tables make too, see [`distribution`](super::distribution)):
//! - Both sides home: the tables ([`BearoffDb::probs`]), the two-sided one exact.
//! - Win: where one side is too far behind to finish first but with a chance under
//!   [`NEGLIGIBLE`], 0 or 1: it cannot finish before the roll on which the dice have
//!   given it its pip count, so its chance is at most that of the other side still
//!   being on the board then ([`trailing_bound`], from the other side's all-off
//!   distribution alone). This decides the gammon saves where the saver's own
//!   all-off search is the largest (`/zIAAHCvUFAUAA` after 3-5: 101 pips against
//!   18). Else both sides' all-off distributions
//!   ([`race_win`](super::distribution::race_win)).
//! - Gammons: none while the saver has a checker off. Else the exact gammon search
//!   ([`gammon_chances`]: the saver plays for the finisher's actual distribution)
//!   where it decides within its budget, else the one-sided first-off search
//!   ([`race_gammons`]). The two differ by 0.001-0.004 where both decide (module
//!   docs of [`exact`](super::exact)).
//! - Backgammons: none while the saver has a checker off or none in the finisher's
//!   home board (race checkers only move forward, so none can get there later). Else
//!   the escape tables ([`backgammon_chances`]), which need the finisher home.

use super::distribution::{
    dominated_count, race_gammons, race_sides, rolls_distribution, win_from,
};
use super::escape::backgammon_chances;
use super::gammon_save::{gammon_chances, Memo};
use super::side::{Side, RACE_ROLLS};
use crate::eval::bearoff::{BearoffDb, OneSidedDb};
use crate::eval::{terminal_probs, Probs};
use crate::position::Position;

/// The cubeless probabilities of the race `pos` for the player on roll from the
/// tables and searches (see the module docs), each side's search over at most `limit`
/// positions and each exact gammon search adding at most `budget` to `memo`; `None`
/// where any chance would need a net (contact, a checker on a bar, a side over the
/// limit, backgammon chances with the finisher not home).
///
/// `memo` is the exact gammon searches' (see [`Memo`]): shared by the plays of one
/// decision, which share most of their future positions, it makes a decision's
/// later plays cheap. The values never depend on it; whether a search fits its
/// budget may.
pub fn searched_probs(
    db: &BearoffDb,
    pos: &Position,
    limit: u64,
    budget: usize,
    memo: &mut Memo,
) -> Option<Probs> {
    if let Some(t) = terminal_probs(pos) {
        return Some(t);
    }
    let p = pos.pips();
    if pos.has_contact() || p[0] != 0 || p[25] != 0 {
        return None;
    }
    if let Some(probs) = db.probs(pos) {
        return Some(probs);
    }
    let one = db.one_sided();
    let win = win_chance(one, pos, limit)?;
    let (exact_wg, exact_lg) = gammon_chances(one, pos, budget, memo);
    // The one-sided first-off searches (up to `limit` positions) only where a saver
    // with none off is left undecided by the exact search.
    let undecided = (pos.opponent_off() == 0 && exact_wg.is_none())
        || (pos.mover_off() == 0 && exact_lg.is_none());
    let (one_sided_wg, one_sided_lg) = if undecided {
        race_gammons(one, pos, limit)
    } else {
        (None, None)
    };
    let (table_wbg, table_lbg) = backgammon_chances(one, pos);
    // The mover's gammon is the opponent's to save, and the other way round. A
    // saver's checkers in the finisher's home board: the mover's on its points 19
    // to 24 (indices 19..=24), the opponent's on the mover's 1 to 6.
    let opponent_stuck = (1..=6).any(|i| p[i] < 0);
    let mover_stuck = (19..=24).any(|i| p[i] > 0);
    let gammon = |saver_off: u8, exact: Option<f32>, one_sided: Option<f64>| -> Option<f64> {
        if saver_off > 0 {
            return Some(0.0);
        }
        exact.map(f64::from).or(one_sided)
    };
    let backgammon = |saver_off: u8, stuck: bool, table: Option<f32>| -> Option<f64> {
        if saver_off > 0 || !stuck {
            return Some(0.0);
        }
        table.map(f64::from)
    };
    let wg = gammon(pos.opponent_off(), exact_wg, one_sided_wg)?;
    let lg = gammon(pos.mover_off(), exact_lg, one_sided_lg)?;
    let wbg = backgammon(pos.opponent_off(), opponent_stuck, table_wbg)?;
    let lbg = backgammon(pos.mover_off(), mover_stuck, table_lbg)?;
    Some(super::cumulative(
        win as f32, wg as f32, wbg as f32, lg as f32, lbg as f32,
    ))
}

/// A bound on a trailing side's win chance below which the chance counts as none:
/// it moves an equity by at most twice this, a fifth of the bench's tie tolerance
/// (0.001). The bound is loose (pips only): in `/zIAAHCvUFAUAA` after 3-5, 93 pips
/// against a finisher needing 3 to 8 rolls, it is 3.3e-5.
pub const NEGLIGIBLE: f64 = 1e-4;

/// P(the player on roll of the race `pos` wins): 0 or 1 where one side is too far
/// behind to finish first but with chance under [`NEGLIGIBLE`] ([`trailing_bound`],
/// from the other side's all-off distribution); else from both sides' all-off
/// distributions ([`win_from`]) where both are within `limit`; else `None`.
///
/// The side with fewer positions to search goes first, and the bound against it
/// before the other side's search: in a gammon save the saver's all-off search is
/// the decision's largest (millions of positions for stragglers far back) and the
/// bound makes it needless. A win chance under the bound counts as 0 even where the
/// search would have given it (equity error at most twice [`NEGLIGIBLE`]).
fn win_chance(one: &OneSidedDb, pos: &Position, limit: u64) -> Option<f64> {
    let (mover, opponent) = race_sides(pos)?;
    // The mover's n-th roll comes before the opponent's n-th: the mover wins when it
    // finishes on roll n with the opponent needing n or more (lag 0 for the mover
    // trailing), and the opponent when it finishes on roll n with the mover needing
    // n + 1 or more (lag 1).
    let mover_first = dominated_count(&mover) <= dominated_count(&opponent);
    let (small, large, large_lag, if_large_wins) = if mover_first {
        (&mover, &opponent, 1, 0.0)
    } else {
        (&opponent, &mover, 0, 1.0)
    };
    let s = rolls_distribution(one, small, limit)?;
    if trailing_bound(large, &s, large_lag) < NEGLIGIBLE {
        return Some(1.0 - if_large_wins);
    }
    // The smaller side may trail too: it is the one with fewer positions to search,
    // not always the one ahead.
    let l = rolls_distribution(one, large, limit)?;
    if trailing_bound(small, &l, 1 - large_lag) < NEGLIGIBLE {
        return Some(if_large_wins);
    }
    let (m, o) = if mover_first { (s, l) } else { (l, s) };
    Some(win_from(&m, &o))
}

/// An upper bound on P(`trailer` bears off before the leader), from the leader's
/// all-off distribution `leader` (entry `n` = P(exactly `n` rolls)): the trailer
/// finishing on its roll `n` wins when the leader needs `n + lag` rolls or more.
///
/// Why it bounds: the trailer cannot be off before the roll `tau` on which its dice
/// have added up to its pip count (each roll moves at most its pips), so with the
/// same dice its rolls `T >= tau`, and P(leader needs `T + lag` or more) is at most
/// P(it needs `tau + lag` or more). So the bound is the sum over `n` of
/// P(`tau` = n) P(leader >= n + lag), with `tau`'s distribution from the 36 rolls'
/// pip totals (3 to 24).
pub fn trailing_bound(trailer: &Side, leader: &[f64; RACE_ROLLS], lag: usize) -> f64 {
    let pips: usize = trailer
        .iter()
        .enumerate()
        .map(|(i, &c)| (i + 1) * usize::from(c))
        .sum();
    // at_least[n] = P(leader >= n).
    let mut at_least = [0f64; RACE_ROLLS + 2];
    for n in (0..RACE_ROLLS).rev() {
        at_least[n] = at_least[n + 1] + leader[n];
    }
    // The 36 rolls' pip totals: a + b, or 4a for doubles.
    let mut totals = Vec::with_capacity(36);
    for a in 1..=6usize {
        for b in 1..=6usize {
            totals.push(if a == b { 4 * a } else { a + b });
        }
    }
    // short[s] = P(the dice have moved s pips so far, s < pips).
    let mut short = vec![0f64; pips.max(1)];
    short[0] = 1.0;
    let mut bound = 0f64;
    for n in 1..RACE_ROLLS {
        let mut next = vec![0f64; short.len()];
        let mut reached = 0f64;
        for (s, &p) in short.iter().enumerate().filter(|(_, &p)| p > 0.0) {
            for &t in &totals {
                if s + t < pips {
                    next[s + t] += p / 36.0;
                } else {
                    reached += p / 36.0;
                }
            }
        }
        bound += reached * at_least[(n + lag).min(RACE_ROLLS)];
        short = next;
    }
    // Whatever has not reached the pip count within RACE_ROLLS rolls cannot win
    // against a leader done by then.
    bound.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Dice;
    use crate::eval::race::distribution::race_win;
    use crate::ids::position_id;
    use crate::movegen::legal_moves;

    fn searched(id: &str, limit: u64) -> Option<Probs> {
        let pos = position_id::decode(id).unwrap();
        searched_probs(
            BearoffDb::global(),
            &pos,
            limit,
            100_000,
            &mut Memo::default(),
        )
    }

    /// Contact, and sides over the limit, get no answer: the referee never guesses.
    #[test]
    fn no_answer_without_a_search() {
        assert!(
            searched("4HPwATDgc/ABMA", u64::MAX).is_none(),
            "the opening"
        );
        // A race with checkers outside both home boards: the sides reach more
        // positions than a limit of 10.
        let race = "L58AAPDsExMAAA";
        assert!(!position_id::decode(race).unwrap().has_contact());
        assert!(searched(race, 10).is_none());
        assert!(searched(race, 2_000_000).is_some());
    }

    /// The bound by hand: a trailer with 25 pips needs at least two rolls (no roll
    /// moves more than 24), so against a leader sure to finish on its first roll
    /// it never wins; going first against a leader that needs exactly two rolls,
    /// it wins at most when two rolls carry 25 pips, which the bound counts exactly.
    #[test]
    fn the_trailing_bound_by_hand() {
        let mut trailer = [0u8; 24];
        trailer[24 - 1] = 1;
        trailer[0] = 1;
        let mut one_roll = [0f64; RACE_ROLLS];
        one_roll[1] = 1.0;
        assert_eq!(trailing_bound(&trailer, &one_roll, 0), 0.0);
        let mut two_rolls = [0f64; RACE_ROLLS];
        two_rolls[2] = 1.0;
        // P(two rolls total >= 25) by enumeration.
        let totals: Vec<usize> = (1..=6)
            .flat_map(|a| (1..=6).map(move |b| if a == b { 4 * a } else { a + b }))
            .collect();
        let hits = totals
            .iter()
            .flat_map(|a| totals.iter().map(move |b| a + b))
            .filter(|&t| t >= 25)
            .count();
        let want = hits as f64 / 1296.0;
        let got = trailing_bound(&trailer, &two_rolls, 0);
        assert!((got - want).abs() < 1e-12, "{got} {want}");
        // Going second it would need the leader to take three rolls: never.
        assert_eq!(trailing_bound(&trailer, &two_rolls, 1), 0.0);
    }

    /// Where the searches decide the win outright, the bound agrees with them: a
    /// trailer's true chance never exceeds it.
    #[test]
    fn the_trailing_bound_bounds_the_searched_chance() {
        let one = BearoffDb::global().one_sided();
        let mut checked = 0;
        for id in [
            "/zIAAHCvUFAUAA",
            "L58AAPDsExMAAA",
            "/50JAAD/eQBQAA",
            "fwMAAPyvQQgAAA",
        ] {
            let pos = position_id::decode(id).unwrap();
            let (mover, opponent) = race_sides(&pos).unwrap();
            let (Some(m), Some(o)) = (
                rolls_distribution(one, &mover, 2_000_000),
                rolls_distribution(one, &opponent, 2_000_000),
            ) else {
                continue;
            };
            let w = race_win(one, &pos, 2_000_000).unwrap();
            assert!(w <= trailing_bound(&mover, &o, 0) + 1e-9, "{id}: mover {w}");
            assert!(
                1.0 - w <= trailing_bound(&opponent, &m, 1) + 1e-9,
                "{id}: opponent"
            );
            checked += 1;
        }
        assert!(checked >= 3, "{checked}");
    }

    /// Both sides home: the tables' answer, unchanged.
    #[test]
    fn home_boards_are_the_tables() {
        let pos = position_id::decode("X90GAQCFBwAAAA").unwrap();
        for m in legal_moves(&pos, Dice::new(2, 1).unwrap()) {
            let next = m.next_position();
            if let Some(t) = BearoffDb::global().probs(&next) {
                let s = searched_probs(BearoffDb::global(), &next, 10, 10, &mut Memo::default());
                assert_eq!(s.map(|p| p.0), Some(t.0));
            }
        }
    }

    /// GNU Backgammon's bench race `X90GAQCFBwAAAA` 2-1 (the saver one checker on
    /// its 11-point, 14 home): after 2/off 1/off the saver, on roll, is gammoned
    /// unless it gets its first checker off in time, 0.0100 by the exact search
    /// (GNU Backgammon 2-ply 0.0106); it has no checker in the finisher's home
    /// board, so no backgammon; and it wins only if the finisher stalls for long
    /// (0.0005).
    #[test]
    fn a_gammon_save_by_the_searches() {
        let pos = position_id::decode("X90GAQCFBwAAAA").unwrap();
        let moves = legal_moves(&pos, Dice::new(2, 1).unwrap());
        let next = moves
            .iter()
            .map(|m| m.next_position())
            .find(|n| position_id::encode(n) == "4AEA4KvbIAAAAA")
            .unwrap();
        let p = searched_probs(
            BearoffDb::global(),
            &next,
            1_000_000,
            100_000,
            &mut Memo::default(),
        )
        .unwrap()
        .0;
        assert!((p[3] - 0.0100).abs() < 0.001, "{p:?}");
        assert_eq!(p[4], 0.0);
        assert!(p[0] < 0.001, "{p:?}");
    }
}
