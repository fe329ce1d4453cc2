//! An [`Endgame`] that answers races from one-sided distributions: the tables' for
//! a side that is home, the exact search's for a side within a limit, the one-sided
//! race net's ([`SideNet`]) for the rest; win chances follow as in
//! [`race_win`](super::distribution::race_win), and gammon chances as in
//! [`gammon_from`] from the saver's first-off distribution where it is exact or the
//! net is trusted with it ([`GammonTrust`]: every saver by default). Backgammon
//! chances, and the gammon chances of savers the net is not trusted with, stay the
//! inner endgame's (the race net and the escape tables).
//!
//! Why: see [`side_net`](super::side_net). With a limit of 0 it costs one small net
//! evaluation per side not home and head (cached per thread), cheap enough for
//! rollouts.

use super::distribution::{
    dominated_full_count, first_off_distribution, gammon_from, race_sides, rolls_distribution,
    win_from,
};
use super::one_roll::{one_roll_lookahead, PlayFilter};
use super::side::{Side, RACE_ROLLS};
use super::side_kernel::SideKernel;
use super::side_net::{side_inputs, softmax, Head, SideNet};
use crate::eval::bearoff::OneSidedDb;
use crate::eval::endgame::Endgame;
use crate::eval::Probs;
use crate::movegen::MoveGenerator;
use crate::position::Position;
use std::cell::RefCell;

/// `inner` with race win and gammon chances from one-sided distributions. See the
/// module docs.
pub struct SideRace<'a> {
    inner: &'a dyn Endgame,
    one: &'a OneSidedDb,
    net: &'a SideNet,
    /// `net` laid out for evaluation (the same bits, faster).
    kernel: SideKernel<'a>,
    limit: u64,
    /// The net's checksum: names it in the thread's cache ([`CACHE`]).
    net_id: u64,
    /// How far from home the net's first-off distributions set the gammon chances
    /// (see [`GammonTrust`]).
    trust: GammonTrust,
    /// Whether the layer also answers for sides with a checker still in the
    /// opponent's home board (see [`SideRace::answers`]); yes by default.
    back: bool,
    /// Pips from home from which a saver's first-off distribution comes from one
    /// roll of lookahead over the net rather than the net alone; `None`: never.
    lookahead: Option<u32>,
    /// Plays of each roll the lookahead values with the net, the best by the
    /// net's linearised expectation ([`PlayFilter`]); 0: every play.
    lookahead_plays: usize,
}

/// The ramp over a saver's pips to come home along which the net's first-off
/// distribution takes over the gammon chances from the inner layer: fully up to
/// `full` pips, not at all from `none`, linear between. [`GammonTrust::ALL`], the
/// default, trusts the net for every saver; [`GammonTrust::NEAR`] only near home,
/// for a net whose first-off distributions far from home are not to be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GammonTrust {
    pub full: u32,
    pub none: u32,
}

impl GammonTrust {
    /// The net for every saver (a side has at most 15 x 18 pips to come home).
    pub const ALL: GammonTrust = GammonTrust {
        full: u32::MAX - 1,
        none: u32::MAX,
    };
    /// The default: [`ALL`](Self::ALL). Why, on GNU Backgammon's 250 bench races
    /// (`bench hint --ply 0`, x1000): with the built-in net (whose
    /// first-off head has its own hidden layer, refitted on savers far from home)
    /// and sides with a checker in the opponent's home board answered too, the
    /// 0-ply loss is 0.243 against [`NEAR`](Self::NEAR)'s 0.346, and the 0-ply
    /// equities of GNU Backgammon 2-ply's best five plays are off by 3.9
    /// thousandths against 6.5 (their differences 2.4 against 5.2; GNU
    /// Backgammon 0-ply 2.3 and 2.5). Measured with the previous all-off head,
    /// every ramp between lost more (0.32-0.38 for 20:35 to 45:60 against
    /// 0.251): sibling plays either side of it are valued by two estimators at
    /// once.
    pub const DEFAULT: GammonTrust = GammonTrust::ALL;
    /// Fully up to 10 pips from home, not from 25. With the first one-sided net
    /// (one hidden layer for both heads) trusting it everywhere cost 0.65 x1000 per
    /// bench race decision against this ramp's 0.34, nearly all of it in five
    /// gammon saves with stragglers far back, where that net was least consistent
    /// with itself: its expected rolls to the first checker off differed from its
    /// own one-roll lookahead by 0.006-0.009 rolls on average below 20 pips to
    /// come home, 0.032 at 25-29, 0.12 at 40-44 (the savers of 3,000 random gammon
    /// races, `train races --kind gammon --seed 901`).
    pub const NEAR: GammonTrust = GammonTrust { full: 10, none: 25 };

    /// The weight of the net's gammon chance for a saver `pips` from home.
    pub fn at(self, pips: u32) -> f32 {
        if pips <= self.full {
            1.0
        } else if pips >= self.none {
            0.0
        } else {
            (self.none - pips) as f32 / (self.none - self.full) as f32
        }
    }
}

impl std::str::FromStr for GammonTrust {
    type Err = String;

    /// `FULL:NONE` (pips to come home, `FULL < NONE`), or `all`.
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "all" {
            return Ok(GammonTrust::ALL);
        }
        let bad = || format!("expected FULL:NONE (pips, FULL below NONE) or `all`, got {s:?}");
        let (a, b) = s.split_once(':').ok_or_else(bad)?;
        let full: u32 = a.trim().parse().map_err(|_| bad())?;
        let none: u32 = b.trim().parse().map_err(|_| bad())?;
        if full >= none {
            return Err(bad());
        }
        Ok(GammonTrust { full, none })
    }
}

impl<'a> SideRace<'a> {
    /// `inner` refined by `net`, with exact searches for sides of at most `limit`
    /// dominated positions (0: the net for every side not home).
    pub fn new(inner: &'a dyn Endgame, one: &'a OneSidedDb, net: &'a SideNet, limit: u64) -> Self {
        SideRace {
            inner,
            one,
            net,
            kernel: SideKernel::new(net),
            limit,
            net_id: net.checksum(),
            trust: GammonTrust::DEFAULT,
            back: true,
            lookahead: None,
            lookahead_plays: LOOKAHEAD_PLAYS,
        }
    }

    /// The same layer with the net's gammon chances weighted along `trust`.
    pub fn with_trust(self, trust: GammonTrust) -> Self {
        SideRace { trust, ..self }
    }

    /// The same layer, answering also for sides with a checker in the opponent's
    /// home board when `back` (the default; see [`SideRace::answers`]).
    pub fn with_back_checkers(self, back: bool) -> Self {
        SideRace { back, ..self }
    }

    /// The same layer, taking a saver's first-off distribution from one roll of
    /// lookahead over the net ([`SideRace::first_off_lookahead`]) for savers at
    /// least `pips` from home; `None` (the default): the net alone for every saver.
    ///
    /// Why: the net's first-off head is least consistent with itself far from
    /// home, and one roll nearer home it is better. On GNU Backgammon's 250 bench
    /// races (`bench hint --ply 0`, x1000), with the lookahead for every saver
    /// (`--side-lookahead 0`, [`LOOKAHEAD_PLAYS`] plays a roll) the 0-ply loss
    /// goes from 0.243 to 0.204, the equity error of GNU Backgammon 2-ply's best
    /// five plays from 3.85 to 2.81 and that of their differences from 2.41 to
    /// 1.99 (GNU Backgammon 0-ply: 0.133, 2.34, 2.53); from 25 pips 0.204, 2.91
    /// and 2.14. By the exact searches (`bench race-referee`) the loss goes from
    /// 0.135 to 0.067 (GNU Backgammon 0-ply 0.117). `unoAAMBubhgEAA` 6-5 gets its
    /// best play, 18/12 13/8, which the exact search puts 0.008 ahead of the
    /// net's choice. The CLI's analysing commands use it from 25 pips by default;
    /// the engine's default layer, which rollouts, duels and workers
    /// play with, does not: a lookahead costs a move generation for
    /// each of the 21 rolls and a net evaluation for each play kept
    /// ([`LOOKAHEAD_PLAYS`]), and every candidate of a saver's move has a saver
    /// of its own. From 25 pips, a 1296-trial rollout on one thread of
    /// `unoAAMBubhgEAA` takes 33 s instead of 3.0 (every play valued: 139 s),
    /// and of the README's main command 121 s instead of 21.
    pub fn with_first_off_lookahead(self, pips: Option<u32>) -> Self {
        SideRace {
            lookahead: pips,
            ..self
        }
    }

    /// The same layer, its lookahead valuing with the net only the `plays` best
    /// plays of each roll by the net's linearised expectation ([`PlayFilter`]);
    /// 0: every play. The default is [`LOOKAHEAD_PLAYS`].
    pub fn with_lookahead_plays(self, plays: usize) -> Self {
        SideRace {
            lookahead_plays: plays,
            ..self
        }
    }

    /// Whether this layer answers for `side`: always when the layer takes back
    /// checkers (the default), else not when a checker is still in the opponent's
    /// home board (points 19-24) and the search may not take the side.
    ///
    /// Why back checkers are answered: without them, in a backgammon save a play
    /// that brings the last checker out of the opponent's home board and one that
    /// leaves it there are valued by two estimators, the one-sided net and the
    /// race net; `vwEAANj2DYAQAA` 5-1 loses 0.021 so. The net learns such sides (the
    /// exact samples hold 473,363 first-off and 100,054 all-off ones), and the
    /// built-in net's first-off expected rolls are off there by 0.006 / 0.007 /
    /// 0.014 rolls at 0-24 / 25-34 / 35-44 pips from home (the first one-sided
    /// net, one hidden layer for both heads: 0.008 / 0.014 / 0.022). Why they can
    /// be refused ([`SideRace::with_back_checkers`]): that first net gave
    /// `/wEAAJjtCEB4AA` 4-3 (two checkers on the 23-point, 160 pips against 9) 0.79
    /// to lose a gammon against a true 1.00; the built-in net gives 1.00.
    /// Backgammon chances stay the inner layer's either way.
    fn answers(&self, side: &Side) -> bool {
        self.back
            || side[18..].iter().all(|&c| c == 0)
            || (self.limit > 0 && dominated_full_count(side) <= self.limit)
    }

    /// The side's all-off distribution: exact where the tables or the search give
    /// it, else the net's (through the thread's cache).
    fn all_off(&self, side: &Side) -> [f64; RACE_ROLLS] {
        exact_distribution(self.one, side, Head::AllOff, self.limit)
            .unwrap_or_else(|| self.net_distribution(Head::AllOff, side))
    }

    /// The first-off distribution of `saver` (15 checkers, none off) with the
    /// weight its gammon chances get against the inner layer's: 1 where it is
    /// exact, the layer's [`GammonTrust`] where it is the net's (1 by default).
    /// `None` for a side that cannot be gammoned, a weight of 0, or a finisher
    /// (`finisher`: its all-off distribution) that cannot be done within
    /// [`gammon_horizon`] rolls, where the chance is negligible and the net is not
    /// asked.
    fn first_off(
        &self,
        saver: &Side,
        finisher: &[f64; RACE_ROLLS],
    ) -> Option<([f64; RACE_ROLLS], f32)> {
        if checkers(saver) != 15 {
            return None;
        }
        if let Some(d) = exact_distribution(self.one, saver, Head::FirstOff, self.limit) {
            return Some((d, 1.0));
        }
        let pips = pips_to_come_home(saver);
        let trust = self.trust.at(pips);
        let horizon = gammon_horizon(pips).min(RACE_ROLLS - 1);
        let soon: f64 = finisher[..=horizon].iter().sum();
        if trust == 0.0 || soon < NEGLIGIBLE_GAMMON {
            return None;
        }
        Some((self.first_off_estimate(saver, pips), trust))
    }

    /// The net's first-off distribution of a saver `pips` from home, or for a saver
    /// at least the layer's lookahead distance away, one roll of lookahead over it
    /// (see [`SideRace::first_off_lookahead`]).
    fn first_off_estimate(&self, saver: &Side, pips: u32) -> [f64; RACE_ROLLS] {
        match self.lookahead {
            Some(from) if pips >= from => self.first_off_lookahead(saver),
            _ => self.net_distribution(Head::FirstOff, saver),
        }
    }

    /// The first-off distribution of `saver` one roll ahead, through the thread's
    /// cache: for each of the 21 rolls, 1 roll if a play bears a checker off, else 1
    /// more than the distribution (the tables' for a side home, else the net's) of
    /// the play with the least expected rolls.
    fn first_off_lookahead(&self, saver: &Side) -> [f64; RACE_ROLLS] {
        // The lookahead's entries in bit 126, apart from the net's own.
        let key = cache_key(saver) | 1u128 << 126;
        let slot = cache_slot(key);
        let widen = |d: &[f32; RACE_ROLLS]| d.map(f64::from);
        let hit = CACHE.with(|c| {
            let c = c.borrow();
            let s = &c[slot];
            (s.key == key && s.net == self.net_id).then(|| widen(&s.d))
        });
        if let Some(d) = hit {
            return d;
        }
        let filter = (self.lookahead_plays > 0).then(|| {
            let gradient = self
                .kernel
                .mean_gradient(Head::FirstOff, &side_inputs(saver));
            PlayFilter::new(self.lookahead_plays, &gradient)
        });
        let d = GEN.with(|g| {
            let gen = &mut g.borrow_mut();
            one_roll_lookahead(saver, Head::FirstOff, gen, filter.as_ref(), |child| {
                exact_distribution(self.one, child, Head::FirstOff, 0)
                    .unwrap_or_else(|| self.net_distribution(Head::FirstOff, child))
            })
        });
        let d = d.map(|x| x as f32);
        CACHE.with(|c| {
            c.borrow_mut()[slot] = Slot {
                net: self.net_id,
                key,
                d,
            };
        });
        widen(&d)
    }
}

/// Pips `side`'s checkers need to come home: `p - 6` for each on points 7-24.
pub fn pips_to_come_home(side: &Side) -> u32 {
    (7u32..=24)
        .zip(&side[6..])
        .map(|(p, &c)| (p - 6) * u32::from(c))
        .sum()
}

/// Rolls within which a finisher must be able to finish for the net's first-off
/// distribution of a saver `pips` from home to be asked: 2 more than a roll per 6
/// pips (8.17 on average; a run of smaller rolls is what it takes to need more).
/// Beyond that the gammon chance is tiny, the inner layer's value stands, and
/// rollouts are spared a net evaluation: in a 95-82 pip race nearly every side
/// is near home but no finisher can be done that soon, and asking the net for
/// every first-off distribution made a rollout 4 times as slow.
fn gammon_horizon(pips: u32) -> usize {
    2 + pips.div_ceil(6) as usize
}

/// Chance of the finisher being done within [`gammon_horizon`] rolls below which
/// the net's first-off distribution is not asked for. The 1296-trial rollout of
/// `au8HBADlzLcAAA` (95 pips against 82) on one thread: 1.4 s at 1e-4, 0.94 s at
/// 1e-3 (the net asked for win chances only, never for a first-off distribution:
/// 0.76 s); the bench races' values are the same at both.
const NEGLIGIBLE_GAMMON: f64 = 1e-3;

/// Plays of each roll a lookahead values with the net by default (see
/// [`PlayFilter`]). On GNU Backgammon's 250 bench races (`bench hint --ply 0
/// --class race --side-lookahead 0 --side-lookahead-plays K --threads 1`, x1000):
///
/// | K | loss | equity error | difference error | ms a hint |
/// |---|---|---|---|---|
/// | every play (0) | 0.200 | 2.84 | 1.96 | 36 |
/// | 8 | 0.204 | 2.81 | 1.99 | 5.2 |
/// | 4 | 0.207 | 2.87 | 2.06 | 3.8 |
/// | 2 | 0.209 | 3.02 | 2.15 | 2.5 |
///
/// By the exact referee (`bench race-referee`), 8 plays lose 0.067 where every
/// play loses 0.063 (GNU Backgammon 0-ply 0.117).
pub const LOOKAHEAD_PLAYS: usize = 8;

/// Slots of the thread's cache of the net's distributions (either head): 8192 x
/// 272 bytes. Why a cache: the other side is the same for every candidate of a roll and
/// for every roll of a rollout's luck estimate, and candidates recur between the
/// two. A 1296-trial rollout of a 95-pip race (`au8HBADlzLcAAA`) on one thread
/// took 0.47 s with the race net alone, 2.9 s with the one-sided net uncached (and
/// the home sides through the search), 0.86 s with this cache and the tables read
/// directly.
const CACHE_SLOTS: usize = 8192;

struct Slot {
    net: u64,
    key: u128,
    d: [f32; RACE_ROLLS],
}

/// The net's hidden layer for the last [`RECENT`] sides it evaluated (net id, side
/// key, activations). Why: a side's first-off distribution is asked for right
/// after its all-off one, in the same race evaluation; keeping the hidden layer
/// saves the larger half of the second evaluation (the rollout of
/// [`NEGLIGIBLE_GAMMON`] at 1e-4: 1.8 s without, 1.4 s with).
const RECENT: usize = 2;

thread_local! {
    static CACHE: RefCell<Vec<Slot>> = RefCell::new(
        (0..CACHE_SLOTS)
            .map(|_| Slot { net: 0, key: u128::MAX, d: [0.0; RACE_ROLLS] })
            .collect(),
    );
    static GEN: RefCell<MoveGenerator> = RefCell::new(MoveGenerator::new());
    static HIDDEN: RefCell<Recent> = RefCell::new(Recent {
        next: 0,
        sides: std::array::from_fn(|_| RecentSide { net: 0, key: u128::MAX, h: Vec::new() }),
    });
}

/// [`HIDDEN`]'s ring: the slot to fill next and the sides.
struct Recent {
    next: usize,
    sides: [RecentSide; RECENT],
}

/// A side's hidden layer under a net (ids as in [`Slot`]; complemented for a split
/// net's first-off layer).
struct RecentSide {
    net: u64,
    key: u128,
    h: Vec<f32>,
}

impl SideRace<'_> {
    /// The net's distribution of `side` for `head`, through the thread's cache.
    /// The values are rounded to `f32` whether they come from the cache or not, so
    /// a result never depends on what the cache holds.
    fn net_distribution(&self, head: Head, side: &Side) -> [f64; RACE_ROLLS] {
        // 24 points of 4 bits: bits 0-95; the head in bit 127.
        let side_key = cache_key(side);
        let key = side_key | (u128::from(head == Head::FirstOff) << 127);
        let slot = cache_slot(key);
        let widen = |d: &[f32; RACE_ROLLS]| d.map(f64::from);
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            let s = &mut c[slot];
            if s.key == key && s.net == self.net_id {
                return widen(&s.d);
            }
            let d = self.fresh_distribution(head, side, side_key);
            *s = Slot {
                net: self.net_id,
                key,
                d,
            };
            widen(&d)
        })
    }

    /// The net's distribution, with the hidden layer from [`HIDDEN`] when the side
    /// was among the last evaluated (the same values either way).
    fn fresh_distribution(&self, head: Head, side: &Side, side_key: u128) -> [f32; RACE_ROLLS] {
        HIDDEN.with(|r| {
            let mut r = r.borrow_mut();
            // A split net's first-off head has a hidden layer of its own.
            let tag = match self.net.has_own_hidden(head) {
                true => !self.net_id,
                false => self.net_id,
            };
            let found = r
                .sides
                .iter()
                .position(|s| s.net == tag && s.key == side_key);
            let i = match found {
                Some(i) => i,
                None => {
                    let i = r.next;
                    r.next = (i + 1) % RECENT;
                    r.sides[i] = RecentSide {
                        net: tag,
                        key: side_key,
                        h: self.kernel.hidden_layer(head, &side_inputs(side)),
                    };
                    i
                }
            };
            softmax(&self.kernel.logits(head, &r.sides[i].h)).map(|x| x as f32)
        })
    }
}

/// A side's key in the thread's cache: 24 points of 4 bits, bits 0-95.
fn cache_key(side: &Side) -> u128 {
    side.iter()
        .rev()
        .fold(0u128, |k, &c| (k << 4) | u128::from(c & 15))
}

/// The cache slot of a key.
fn cache_slot(key: u128) -> usize {
    let h = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h.wrapping_mul(0xbf58_476d_1ce4_e5b9) >> 32) as usize % CACHE_SLOTS
}

/// `side`'s distribution for `head` from the tables when it is home, else from the
/// exact search when it could reach at most `limit` positions (never for 0); `None`
/// otherwise, or for a first-off head of a side of fewer than 15 checkers.
pub fn exact_distribution(
    one: &OneSidedDb,
    side: &Side,
    head: Head,
    limit: u64,
) -> Option<[f64; RACE_ROLLS]> {
    if side[6..].iter().all(|&c| c == 0) {
        // Home: straight from the tables (through the search it would cost a count
        // of dominated positions and a memo look-up, 30% of a race rollout's time).
        let mut home = [0u8; 6];
        home.copy_from_slice(&side[..6]);
        let table = match head {
            Head::AllOff => one.distribution(&home),
            Head::FirstOff => one.first_off_distribution(&home),
        }?;
        let mut d = [0f64; RACE_ROLLS];
        for (x, &t) in d.iter_mut().zip(table) {
            *x = f64::from(t);
        }
        return Some(d);
    }
    if limit == 0 {
        return None;
    }
    // The limit, not more, goes to the search: it also bounds the thread's memo.
    match head {
        Head::AllOff => rolls_distribution(one, side, limit),
        Head::FirstOff => first_off_distribution(one, side, limit),
    }
}

/// `side`'s distribution for `head`: [`exact_distribution`] where it answers, else
/// `net`'s (what a [`SideRace`] of that limit uses, uncached).
pub fn one_sided_distribution(
    one: &OneSidedDb,
    net: &SideNet,
    side: &Side,
    head: Head,
    limit: u64,
) -> [f64; RACE_ROLLS] {
    exact_distribution(one, side, head, limit).unwrap_or_else(|| net.distribution(head, side))
}

fn checkers(s: &Side) -> u32 {
    s.iter().map(|&c| u32::from(c)).sum()
}

impl Endgame for SideRace<'_> {
    fn probs(&self, pos: &Position) -> Option<Probs> {
        self.inner.probs(pos)
    }

    fn checksum(&self) -> u64 {
        // The two named ramps keep fixed tags, so the checksums (and fingerprints)
        // already recorded for them stay valid.
        let tag: Vec<u8> = match self.trust {
            GammonTrust::ALL => b"side-net+gammons".to_vec(),
            GammonTrust::NEAR => b"side-net+near-gammons".to_vec(),
            t => format!("side-net+gammons-{}:{}", t.full, t.none).into_bytes(),
        };
        let tag = match self.back {
            true => [tag, b"+back".to_vec()].concat(),
            false => tag,
        };
        let tag = match (self.lookahead, self.lookahead_plays) {
            (Some(p), 0) => [tag, format!("+lookahead-{p}").into_bytes()].concat(),
            (Some(p), k) => [tag, format!("+lookahead-{p}-plays-{k}").into_bytes()].concat(),
            (None, _) => tag,
        };
        super::layer_checksum(self.inner, &tag, self.net_id ^ self.limit)
    }

    fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        let refined = self.inner.refine_race(pos, probs);
        let Some((mover, opponent)) = race_sides(pos) else {
            return refined;
        };
        if checkers(&mover) == 0 || checkers(&opponent) == 0 {
            return refined;
        }
        if !(self.answers(&mover) && self.answers(&opponent)) {
            return refined;
        }
        let [_, mut wg, wbg, mut lg, lbg] = refined.0;
        let m = self.all_off(&mover);
        let o = self.all_off(&opponent);
        let w = win_from(&m, &o) as f32;
        if let Some((f, t)) = self.first_off(&opponent, &m) {
            wg = t * gammon_from(&m, &f, 0) as f32 + (1.0 - t) * wg;
        }
        if let Some((f, t)) = self.first_off(&mover, &o) {
            lg = t * gammon_from(&o, &f, 1) as f32 + (1.0 - t) * lg;
        }
        super::cumulative(w, wg, wbg, lg, lbg)
    }
}

#[cfg(test)]
mod tests;
