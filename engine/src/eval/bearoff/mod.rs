//! Exact bear-off databases: races where both sides have every checker home.
//!
//! Once no checker can meet an opposing one again and both sides are home, the game is
//! a pure dice race that can be solved instead of estimated:
//!
//! - [`OneSidedDb`]: for each of the 54,264 sides of at most 15 checkers on the 6 home
//!   points, the distribution of the rolls needed to bear off all checkers (and, for
//!   the 15,504 sides with all 15 still on, the first one). Two distributions give
//!   the race's win and gammon chances ([`race_probs`]), assuming each side minimises
//!   its expected rolls, the standard one-sided approximation.
//! - [`TwoSidedDb`]: for both sides with at most 6 checkers (924 x 924 pairs), the
//!   exact P(win) with both sides playing to maximise it.
//!
//! [`BearoffDb::probs`] picks the exact table when it applies, else the one-sided one.
//!
//! Cost: building everything takes about 1.4 s in a release build on one thread
//! (measured on a shared 2-core development machine: one-sided 1.0 to 1.3 s, most of
//! it the 1.1 million move generations; two-sided 0.3 to 0.4 s; the
//! `build_time_and_checksum` test prints the figures). The tables hold 11.4 MB of
//! `f32` (6.9 MB all-off distributions, 0.7 MB first-off, 3.4 MB two-sided, 0.3 MB
//! expectations). [`BearoffDb::global`] builds them in memory on first use;
//! [`BearoffDb::global_cached`] keeps them in a file instead ([`cache`]), which loads
//! and verifies in about 40 ms: every CLI command that evaluates starts 1.4 s sooner,
//! and a 1296-trial rollout on one thread spends 15% less CPU.
//! [`BearoffDb::checksum`] identifies the result, which is reproducible bit for bit
//! (fixed summation order, `f64` sums, no threads), and is pinned in
//! [`BearoffDb::CHECKSUM`].

pub mod cache;
pub mod index;
pub mod one_sided;
pub mod two_sided;

pub use one_sided::{OneSidedDb, MAX_FIRST_ROLLS, MAX_ROLLS};
pub use two_sided::{TwoSidedDb, MAX_TWO_SIDED};

use super::{terminal_probs, Probs};
use crate::position::Position;
use index::POINTS;
use std::path::Path;
use std::sync::OnceLock;

/// All bear-off tables. See the module docs.
pub struct BearoffDb {
    one: OneSidedDb,
    two: TwoSidedDb,
    checksum: u64,
}

static GLOBAL: OnceLock<BearoffDb> = OnceLock::new();

impl BearoffDb {
    /// The checksum of the tables this code builds. The engine fingerprint includes
    /// it; a change to the move generator's order (ties in the one-sided play), the
    /// rules or the layout moves it (a test rebuilds and compares), and the disk cache
    /// refuses any file that does not hash to it.
    pub const CHECKSUM: u64 = 0x6bf5_5cb1_0353_934c;

    /// Builds every table in memory (see the module docs for the time it takes).
    pub fn build() -> BearoffDb {
        let one = OneSidedDb::build();
        let two = TwoSidedDb::build();
        let checksum = fnv1a(&cache::body(&one, &two));
        BearoffDb { one, two, checksum }
    }

    /// The process-wide database, built on first use (thread-safe; later callers wait
    /// for the first build).
    pub fn global() -> &'static BearoffDb {
        GLOBAL.get_or_init(BearoffDb::build)
    }

    /// The process-wide database, loaded from the cache file in `dir` when one with
    /// the right checksum is there, else built and written there (best effort: a
    /// directory that cannot be written only costs the build). What happened is
    /// returned for the caller to log; `None` when the database already existed.
    pub fn global_cached(dir: &Path) -> (&'static BearoffDb, Option<cache::Outcome>) {
        let mut outcome = None;
        let db = GLOBAL.get_or_init(|| {
            let (db, o) = cache::load_or_build(dir);
            outcome = Some(o);
            db
        });
        (db, outcome)
    }

    /// The one-sided tables.
    pub fn one_sided(&self) -> &OneSidedDb {
        &self.one
    }

    /// The two-sided exact table.
    pub fn two_sided(&self) -> &TwoSidedDb {
        &self.two
    }

    /// FNV-1a 64 of every table (each preceded by its length as a little-endian `u64`,
    /// values as little-endian `f32`), in the order: all-off distributions, all-off
    /// expectations, first-off distributions, first-off expectations, two-sided
    /// P(win). Any change to the rules, the play or the layout changes it.
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    /// Cubeless probabilities for the player on roll when both sides have every
    /// checker on their home points (or borne off); `None` otherwise. Game-over
    /// positions get [`terminal_probs`]. Both sides with at most 6 checkers: the exact
    /// two-sided P(win) (no gammon is possible); otherwise [`race_probs`].
    pub fn probs(&self, pos: &Position) -> Option<Probs> {
        let (mover, opponent) = home_boards(pos)?;
        if let Some(t) = terminal_probs(pos) {
            return Some(t);
        }
        if let Some(w) = self.two.win_prob(&mover, &opponent) {
            return Some(Probs([w, 0.0, 0.0, 0.0, 0.0]));
        }
        race_probs(&self.one, &mover, &opponent)
    }

    /// P(all checkers of `side` off in exactly `n` rolls) for `n` in `0..MAX_ROLLS`;
    /// `side[i]` = checkers on point `i + 1`. `None` for more than 15 checkers.
    pub fn rolls_distribution(&self, side: &[u8; POINTS]) -> Option<&[f32]> {
        self.one.distribution(side)
    }

    /// Expected rolls to bear off every checker of `side`; `None` for more than 15.
    pub fn expected_rolls(&self, side: &[u8; POINTS]) -> Option<f32> {
        self.one.expected_rolls(side)
    }
}

/// The two sides' home boards, each `[u8; 6]` in its owner's numbering (`[i]` =
/// checkers on point `i + 1`), when every checker of both is there or off; `None`
/// when any checker is elsewhere or on a bar.
pub fn home_boards(pos: &Position) -> Option<([u8; POINTS], [u8; POINTS])> {
    let p = pos.pips();
    // Mover: indices 1..=6 (and nothing above, bar included).
    if p[7..].iter().any(|&c| c > 0) {
        return None;
    }
    let opponent = opponent_home(pos)?;
    let mut mover = [0u8; POINTS];
    for i in 0..POINTS {
        mover[i] = p[i + 1].max(0).unsigned_abs();
    }
    Some((mover, opponent))
}

/// The opponent's home board (`[i]` = checkers on its point `i + 1`) when every
/// checker of its is there or off; `None` when any is elsewhere or on its bar.
pub fn opponent_home(pos: &Position) -> Option<[u8; POINTS]> {
    let p = pos.pips();
    // Its points 1..=6 are indices 24..=19; index 0 is its bar.
    if p[..19].iter().any(|&c| c < 0) {
        return None;
    }
    let mut side = [0u8; POINTS];
    for i in 0..POINTS {
        side[i] = p[24 - i].min(0).unsigned_abs();
    }
    Some(side)
}

/// One-sided race probabilities for the player on roll, `[win, win gammon, 0, lose
/// gammon, 0]` (backgammons are impossible with every checker home); `None` when a
/// side has more than 15 checkers. Both sides must still have checkers.
///
/// With `M`, `O` the mover's and opponent's all-off roll counts and `Fm`, `Fo` their
/// first-off counts (independent races): the mover finishes on its `n`-th roll, before
/// the opponent's `n`-th, so it wins with P(M = n) P(O >= n), and wins a gammon when
/// the opponent, after `n - 1` rolls, has none off: P(M = n) P(Fo >= n) (only with 15
/// opponent checkers on board). The opponent finishes on its `n`-th roll after the
/// mover's `n` rolls: a lost gammon is P(O = n) P(Fm >= n + 1).
pub fn race_probs(
    one: &OneSidedDb,
    mover: &[u8; POINTS],
    opponent: &[u8; POINTS],
) -> Option<Probs> {
    let m = one.distribution(mover)?;
    let o = one.distribution(opponent)?;
    let fm = one.first_off_distribution(mover);
    let fo = one.first_off_distribution(opponent);
    // tail(d, n) = P(X >= n).
    let tail = |d: &[f32], n: usize| -> f64 { d.iter().skip(n).map(|&p| f64::from(p)).sum() };
    let mut win = 0f64;
    let mut win_g = 0f64;
    let mut lose_g = 0f64;
    for n in 1..MAX_ROLLS {
        let (pm, po) = (f64::from(m[n]), f64::from(o[n]));
        if pm > 0.0 {
            win += pm * tail(o, n);
            if let Some(fo) = fo {
                win_g += pm * tail(fo, n);
            }
        }
        if po > 0.0 {
            if let Some(fm) = fm {
                lose_g += po * tail(fm, n + 1);
            }
        }
    }
    let win = win.clamp(0.0, 1.0);
    let win_g = win_g.clamp(0.0, win);
    let lose_g = lose_g.clamp(0.0, 1.0 - win);
    Some(Probs([win as f32, win_g as f32, 0.0, lose_g as f32, 0.0]))
}

/// FNV-1a, 64-bit, of `bytes`.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position from the two home boards, each in its owner's numbering.
    fn pos(mover: [u8; 6], opponent: [u8; 6]) -> Position {
        let mut m = [0u8; 25];
        let mut o = [0u8; 25];
        m[..6].copy_from_slice(&mover);
        o[..6].copy_from_slice(&opponent);
        Position::from_arrays(&m, &o).unwrap()
    }

    fn close(a: f32, b: f64) -> bool {
        (f64::from(a) - b).abs() < 1e-6
    }

    const ONE_ON_1: [u8; 6] = [1, 0, 0, 0, 0, 0];
    const ONE_ON_6: [u8; 6] = [0, 0, 0, 0, 0, 1];
    const FIFTEEN_ON_6: [u8; 6] = [0, 0, 0, 0, 0, 15];

    #[test]
    fn build_time_and_checksum() {
        let time = |f: &dyn Fn()| {
            let start = std::time::Instant::now();
            f();
            start.elapsed().as_secs_f64()
        };
        let one = time(&|| drop(OneSidedDb::build()));
        let two = time(&|| drop(TwoSidedDb::build()));
        let start = std::time::Instant::now();
        let db = BearoffDb::build();
        let all = start.elapsed().as_secs_f64();
        println!(
            "bear-off build: {all:.2} s (one-sided {one:.2} s, two-sided {two:.2} s), \
             checksum {:#018x}",
            db.checksum()
        );
        assert_eq!(db.checksum(), BearoffDb::global().checksum());
        // Pinned (see CHECKSUM): update it only on purpose.
        assert_eq!(db.checksum(), BearoffDb::CHECKSUM);
    }

    #[test]
    fn home_boards_reads_both_sides() {
        let p = pos([1, 2, 0, 0, 0, 3], [0, 0, 4, 0, 0, 5]);
        assert_eq!(
            home_boards(&p),
            Some(([1, 2, 0, 0, 0, 3], [0, 0, 4, 0, 0, 5]))
        );
        assert_eq!(
            home_boards(&p.switch_sides()),
            Some(([0, 0, 4, 0, 0, 5], [1, 2, 0, 0, 0, 3]))
        );
        assert_eq!(home_boards(&Position::STARTING), None);
        assert_eq!(BearoffDb::global().probs(&Position::STARTING), None);
        // A mover's checker on its 7-point, or an opponent's on its own 7-point.
        let mut m = [0u8; 25];
        let mut o = [0u8; 25];
        m[6] = 1;
        o[0] = 1;
        assert_eq!(home_boards(&Position::from_arrays(&m, &o).unwrap()), None);
        m[6] = 0;
        m[0] = 1;
        o[6] = 1;
        assert_eq!(home_boards(&Position::from_arrays(&m, &o).unwrap()), None);
    }

    #[test]
    fn both_on_the_one_point_the_mover_wins() {
        let p = BearoffDb::global().probs(&pos(ONE_ON_1, ONE_ON_1)).unwrap();
        assert_eq!(p, Probs([1.0, 0.0, 0.0, 0.0, 0.0]));
        let r = race_probs(BearoffDb::global().one_sided(), &ONE_ON_1, &ONE_ON_1).unwrap();
        assert_eq!(r, p);
    }

    #[test]
    fn one_sided_win_is_the_chance_to_be_off_at_once() {
        let db = BearoffDb::global();
        let r = race_probs(db.one_sided(), &ONE_ON_6, &ONE_ON_1).unwrap();
        let off_at_once = db.rolls_distribution(&ONE_ON_6).unwrap()[1];
        assert_eq!(r.0[0], off_at_once);
        assert!(close(r.0[0], 0.75));
        let r = race_probs(db.one_sided(), &ONE_ON_6, &ONE_ON_6).unwrap();
        assert!(close(r.0[0], 13.0 / 16.0));
    }

    #[test]
    fn gammons() {
        let db = BearoffDb::global();
        // The opponent rolls at most once before the mover (off in 1 or 2 rolls)
        // finishes; 19/36 of the time it bears nothing off with 15 on its 6-point.
        let p = db.probs(&pos(ONE_ON_6, FIFTEEN_ON_6)).unwrap();
        assert!(close(p.0[0], 1.0));
        assert!(close(p.0[1], 0.75 + 0.25 * 19.0 / 36.0));
        assert_eq!((p.0[2], p.0[3], p.0[4]), (0.0, 0.0, 0.0));
        // The mover rolls once, then the opponent's last checker is off: a gammon
        // unless that one roll bore a checker off (17/36).
        let p = db.probs(&pos(FIFTEEN_ON_6, ONE_ON_1)).unwrap();
        assert!(close(p.0[0], 0.0));
        assert!(close(p.0[3], 19.0 / 36.0));
        assert!(close(p.flip().0[1], 19.0 / 36.0));
        // No gammon once the loser has borne a checker off.
        let p = db.probs(&pos(ONE_ON_6, [0, 0, 0, 0, 0, 14])).unwrap();
        assert_eq!(p.0[1], 0.0);
        // Both full: the mover's chances of a gammon are real but small.
        let p = db.probs(&pos([15, 0, 0, 0, 0, 0], FIFTEEN_ON_6)).unwrap();
        assert!(p.0[0] > 0.99 && p.0[1] > 0.0);
    }

    #[test]
    fn terminal_and_two_sided_dispatch() {
        let db = BearoffDb::global();
        let p = pos([0; 6], ONE_ON_1);
        assert_eq!(db.probs(&p), terminal_probs(&p));
        let p = pos(ONE_ON_6, [0; 6]);
        assert_eq!(db.probs(&p), Some(Probs::loss(false, false)));
        // Both <= 6 checkers: the exact table.
        let p = db.probs(&pos(ONE_ON_6, ONE_ON_6)).unwrap();
        assert_eq!(p, Probs([13.0 / 16.0, 0.0, 0.0, 0.0, 0.0]));
        let p = db.probs(&pos([3, 0, 0, 0, 0, 0], ONE_ON_1)).unwrap();
        assert!(close(p.0[0], 1.0 / 6.0));
    }

    #[test]
    fn race_probs_are_consistent() {
        let db = BearoffDb::global();
        let sides = [
            [0, 0, 0, 0, 0, 15],
            [15, 0, 0, 0, 0, 0],
            [3, 3, 3, 2, 2, 2],
            [0, 2, 2, 3, 3, 5],
            [2, 2, 2, 2, 2, 0],
            [0, 0, 0, 0, 0, 1],
            [1, 1, 1, 1, 1, 1],
            [0, 0, 0, 8, 0, 7],
        ];
        for a in sides {
            for b in sides {
                let p = db.probs(&pos(a, b)).unwrap();
                let [w, wg, wbg, lg, lbg] = p.0;
                assert!((0.0..=1.0).contains(&w), "{a:?} {b:?} {p:?}");
                assert!(wg >= 0.0 && wg <= w, "{a:?} {b:?} {p:?}");
                assert!(lg >= 0.0 && lg <= 1.0 - w + 1e-6, "{a:?} {b:?} {p:?}");
                assert_eq!((wbg, lbg), (0.0, 0.0));
                if index::checkers(&b) < 15 {
                    assert_eq!(wg, 0.0);
                }
                // Being on roll is worth something: the mover wins at least as often
                // as it would a roll behind.
                let q = db.probs(&pos(b, a)).unwrap();
                if a == b {
                    assert!(w >= 0.5, "{a:?} {p:?}");
                }
                assert!(w + q.0[0] >= 1.0 - 1e-6, "{a:?} {b:?} {p:?} {q:?}");
            }
        }
    }
}
