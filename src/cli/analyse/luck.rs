//! Each player's luck and luck-adjusted result, from the luck of each roll
//! (`bgfarm_engine::analysis::luck`, whose definitions follow).
//!
//! The luck of a roll is the mover's value after the best play of the roll they
//! got, minus the mean of that value over every roll they could have got (the 21
//! rolls, a double weighted 1/36, any other 2/36). A roll that cannot be played is
//! valued as the position left as it is with the opponent on roll. The value is the
//! one the chequer errors use (`bgfarm_engine::analysis::rate::play_value`: the Janowski cubeful value at the
//! cube and score, MWC in a match, money equity per unit cube), so luck is in the
//! errors' units: EMG at the score, and MWC in a match.
//!
//! A game's opening roll also decides who moves first, so its mean is over the 30
//! equally likely outcomes of the opening: each of the 15 non-doubles, played by
//! either player (the outcomes where the opponent moves are valued from the
//! opponent's side and turned back to the mover's). Money play starts even, so this
//! puts the opening's luck on the roll rather than on winning the opening roll.
//!
//! The best play of each roll is chosen at `--luck-ply` (default 0: the nets alone,
//! as GNU Backgammon's default luck analysis). Both the actual roll and the 21 are
//! valued at the same ply, so a player who gets an average roll has zero luck
//! whatever the ply. Cost on the 5-point test match (2 shared cores, release):
//! see docs/research-log.md, "Luck in the match analysis".
//!
//! Per player: the number of rolls, the luck total (EMG, and MWC in a match), the
//! rate in mEMG per roll, counts of rolls marked lucky or unlucky (GNU Backgammon's
//! marks: +-0.3 EMG lucky or unlucky, +-0.6 very), the actual result and the
//! luck-adjusted result. The actual result: in a match, the change of the player's
//! MWC from the first game's score to the end of the file (+50% for winning a match
//! from 0-0; an unfinished game counts as not played); in money play, the points won
//! minus the points lost. Luck-adjusted: the actual result minus the player's luck
//! plus the opponent's (in MWC, or in points: equity times the cube), GNU
//! Backgammon's definition: on the 5-point test match it reports an actual result
//! of -50.00% for gnubg, luck of -2.773% (gnubg) and -15.997% (root) and a
//! luck-adjusted result of -63.22% = -50.00 + 2.773 - 15.997.

pub use bgfarm_engine::analysis::luck::RollLuck;
use bgfarm_engine::matchfile::{Game, Match};
use bgfarm_engine::met::{MatchEquityTable, MatchScore};
use serde::Serialize;

/// Lucky from this many EMG, very lucky from [`VERY_LUCKY`] (GNU Backgammon's marks).
pub const LUCKY: f64 = 0.3;
pub const VERY_LUCKY: f64 = 0.6;

/// One player's luck and result.
#[derive(Serialize, Default, Clone, Debug)]
pub struct LuckStats {
    /// Rolls the player got (played or not).
    pub rolls: u32,
    /// EMG.
    pub luck: f64,
    /// mEMG per roll.
    pub luck_rate: f64,
    /// MWC (match play).
    pub luck_mwc: Option<f64>,
    pub very_lucky: u32,
    pub lucky: u32,
    pub unlucky: u32,
    pub very_unlucky: u32,
    /// MWC gained in a match (0.5 for winning from 0-0), points won in money play.
    pub actual_result: f64,
    /// `actual_result` minus the player's luck plus the opponent's (MWC, or points).
    pub luck_adjusted_result: f64,
}

/// Both players' luck statistics.
pub fn stats(m: &Match, rolls: &[RollLuck], met: Option<&MatchEquityTable>) -> [LuckStats; 2] {
    let mut s: [LuckStats; 2] = Default::default();
    let mut money = [0.0f64; 2];
    for r in rolls {
        let st = &mut s[r.player as usize];
        st.rolls += 1;
        st.luck += r.emg;
        if let Some(x) = r.mwc {
            *st.luck_mwc.get_or_insert(0.0) += x;
        }
        money[r.player as usize] += r.points;
        match r.emg {
            e if e >= VERY_LUCKY => st.very_lucky += 1,
            e if e >= LUCKY => st.lucky += 1,
            e if e <= -VERY_LUCKY => st.very_unlucky += 1,
            e if e <= -LUCKY => st.unlucky += 1,
            _ => {}
        }
    }
    let result = actual_result(m, met);
    for p in 0..2 {
        let q = 1 - p;
        let luck = |st: &LuckStats, i: usize| {
            if m.length > 0 {
                st.luck_mwc.unwrap_or(0.0)
            } else {
                money[i]
            }
        };
        let (mine, theirs) = (luck(&s[p], p), luck(&s[q], q));
        let st = &mut s[p];
        st.luck_rate = if st.rolls == 0 {
            0.0
        } else {
            1000.0 * st.luck / f64::from(st.rolls)
        };
        st.actual_result = result[p];
        st.luck_adjusted_result = result[p] - mine + theirs;
    }
    s
}

/// Player 0's MWC at a game's start (`None`: no table or an impossible score).
fn mwc_at(m: &Match, met: &MatchEquityTable, g: &Game, after: bool) -> Option<f64> {
    let away = |p: usize| m.length.saturating_sub(g.score[p]);
    let crawford = g.crawford && (away(0) == 1) != (away(1) == 1);
    let score = MatchScore::new(away(0), away(1), crawford).ok()?;
    match (after, g.end) {
        (true, Some(end)) => {
            let (winner, points) = end.winner_points();
            Some(score.mwc_after(met, winner == 0, points))
        }
        _ => Some(score.mwc(met)),
    }
}

/// Each player's actual result (see the module docs).
fn actual_result(m: &Match, met: Option<&MatchEquityTable>) -> [f64; 2] {
    if m.length == 0 {
        let mut won = 0.0;
        for g in &m.games {
            if let Some(end) = g.end {
                let (winner, points) = end.winner_points();
                let sign = if winner == 0 { 1.0 } else { -1.0 };
                won += sign * f64::from(points);
            }
        }
        return [won, -won];
    }
    let (Some(met), Some(first), Some(last)) = (met, m.games.first(), m.games.last()) else {
        return [0.0; 2];
    };
    match (mwc_at(m, met, first, false), mwc_at(m, met, last, true)) {
        (Some(start), Some(end)) => [end - start, start - end],
        _ => [0.0; 2],
    }
}

/// The labelled luck rows of the report (player 0's cell, player 1's), shared by
/// the text and the HTML report.
pub fn rows(is_match: bool, a: &LuckStats, b: &LuckStats) -> Vec<(&'static str, String, String)> {
    let both = |f: &dyn Fn(&LuckStats) -> String| (f(a), f(b));
    let mut out = Vec::new();
    let mut push = |label, (x, y): (String, String)| out.push((label, x, y));
    push("Rolls", both(&|s| s.rolls.to_string()));
    push(
        "Rolls very lucky / lucky",
        both(&|s| format!("{} / {}", s.very_lucky, s.lucky)),
    );
    push(
        "Rolls unlucky / very unlucky",
        both(&|s| format!("{} / {}", s.unlucky, s.very_unlucky)),
    );
    push(
        "Luck total EMG (MWC)",
        both(&|s| match s.luck_mwc {
            Some(x) => format!("{:+.3} ({:+.2}%)", s.luck, 100.0 * x),
            None => format!("{:+.3}", s.luck),
        }),
    );
    push(
        "Luck rate mEMG per roll",
        both(&|s| format!("{:+.1}", s.luck_rate)),
    );
    let result = |x: f64| {
        if is_match {
            format!("{:+.2}%", 100.0 * x)
        } else {
            format!("{x:+.3} points")
        }
    };
    push("Actual result", both(&|s| result(s.actual_result)));
    push(
        "Luck-adjusted result",
        both(&|s| result(s.luck_adjusted_result)),
    );
    out
}
