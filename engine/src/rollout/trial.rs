//! One rollout trial: a game played from a position to its end (or to a truncation
//! point), with the luck of every roll measured and subtracted.
//!
//! Variance reduction (spec section 5): before each roll at state S the trial knows a
//! value `V(S, r)` for each of the 21 rolls; the luck of the roll that came is
//! `V(S, R) - sum_r w_r V(S, r)`, and the trial reports its outcome minus the summed
//! luck. Whatever `V` is, the luck has mean zero given S, so the estimate stays
//! unbiased; a better `V` only removes more noise. Two value functions:
//!
//! - [`Luck::Full`]: for every roll, the best move at 0-ply and its 0-ply value (GNU
//!   Backgammon's choice at 0-ply chequer play). With 0-ply play the actual roll's best
//!   move is also the move played, so the policy costs nothing extra.
//! - [`Luck::Ranked`]: for every roll the moves are ranked by a linear score (the net
//!   linearized at the state, [`crate::eval::net_rank`]; ~20x cheaper per move than
//!   the net; the best 8 are re-ranked with the shots each leaves) and only the
//!   best [`RANKED_KEEP`] are valued by the net ([`super::luck`]).
//!   About 4x cheaper per ply than `Full`, for ~20% more variance: 3.3x the
//!   precision per CPU-second (`scripts/bench-rollout-precision.sh`) at 0-ply.
//! - [`Luck::Searched`]: the full estimate's plays, each valued by a 1-ply search
//!   instead of the net: closer to what a searching player's game brings.
//! - [`Luck::Auto`] (the default) takes one per state by the mover's chequer-play
//!   depth: ranked below [`super::settings::SEARCHED_FROM_PLY`] plies, searched
//!   from there, where the search's cost dwarfs the estimate's.
//!
//! Outcomes are the five cubeless probabilities, the cubeless equity and the cubeful
//! result (see [`super::cubeful`]; the cubeless equity again when the rollout is
//! cubeless), all from the side of the player on roll at the trial's start.

use super::cubeful::{CubeStart, CubeTrack};
use super::dice::TrialDice;
use super::first_ply::{FirstPlyCache, FirstPlyKey, RollTable, CACHED_PLIES};
pub use super::luck::RANKED_KEEP;
use super::luck::{play_after_ranked, ranked_values, LuckScratch};
pub use super::settings::{Luck, TrialSettings};
use crate::cube::life::default_x;
use crate::dice::Dice;
use crate::eval::neural::{Class, EvalScratch, NeuralEvaluator};
use crate::eval::{terminal_probs, Player, Probs};
use crate::movegen::MoveGenerator;
use crate::position::Position;
use crate::search::EvalCache;

/// Outputs per trial: win, win gammon, win backgammon, lose gammon, lose backgammon,
/// cubeless equity, cubeful result.
pub const OUTPUTS: usize = 7;

/// Deepest search a trial may use, for chequer play and for cube decisions: a 2-ply
/// move costs ~10 ms, so a 2-ply trial takes ~0.5 s; 3-ply would take a minute. The
/// CLI and the wire both refuse more.
pub const MAX_TRIAL_PLY: u8 = 2;

/// Reusable buffers for trials on one thread.
pub struct TrialScratch {
    gen: MoveGenerator,
    eval: EvalScratch,
    probs: Vec<Probs>,
    /// The luck estimate's buffers, for [`Luck::Ranked`].
    luck: LuckScratch,
    /// The evaluator's search fingerprint, computed at the first n-ply move.
    fingerprint: Option<u64>,
    /// The n-ply values of this thread's searched moves, made at the first one
    /// ([`SEARCH_CACHE_MIB`]).
    search_cache: Option<EvalCache>,
}

/// Size of a thread's cache of the values its n-ply chequer play computes (1-ply
/// values and deeper), kept across its moves and trials. Searches at 2 plies value
/// the same replies again and again (from sibling candidates, and from one move to
/// the next): the opening rolled out at 2-ply (72 trials, one thread, seed 1) took
/// 18.1-18.3 s of CPU with it against 25.3-26.3 s without, the same bits (a cached
/// value is the value). 1, 4, 8 and 32 MiB gave the same time, so the reuse is
/// within a trial; 1-ply rollouts gain nothing (24.2 against 24.4 s), since the
/// search caches from 1-ply on and a 1-ply search values each candidate once.
pub const SEARCH_CACHE_MIB: usize = 1;

impl TrialScratch {
    /// Buffers for `eval`.
    pub fn new(eval: &NeuralEvaluator<'_>) -> TrialScratch {
        TrialScratch {
            gen: MoveGenerator::new(),
            eval: eval.scratch(),
            probs: Vec::with_capacity(64),
            luck: LuckScratch::default(),
            fingerprint: None,
            search_cache: None,
        }
    }
}

/// A probability vector from the side of the player on roll at the trial's start.
#[inline]
fn to_root(p: Probs, root_moves: bool) -> Probs {
    if root_moves {
        p
    } else {
        p.flip()
    }
}

/// The best 0-ply successor of `dice` in `pos`, with its value from the mover's side.
fn best_0ply(
    eval: &NeuralEvaluator<'_>,
    s: &mut TrialScratch,
    pos: &Position,
    dice: Dice,
) -> (Probs, Position) {
    let (next, v) = eval.best_successor(&mut s.gen, &mut s.eval, &mut s.probs, pos, dice);
    (v, next)
}

/// The successor chosen by a `depth`-ply search with the normal move filter (GNU
/// Backgammon's default for rollouts; reply pruning on, as in `bgfarm hint`). A
/// searcher per decision costs a few microseconds against ~0.5 ms for a 1-ply
/// choice, and keeps [`TrialScratch`] free of the evaluator's lifetime.
fn searched(
    eval: &NeuralEvaluator<'_>,
    s: &mut TrialScratch,
    pos: &Position,
    dice: Dice,
    depth: u8,
) -> Position {
    let ladder = crate::search::MoveFilter::normal().ladder(depth);
    match searcher(eval, s).best_move(pos, dice, depth, &ladder) {
        Some(c) => c.mv.next_position(),
        None => pos.switch_sides(),
    }
}

/// [`Luck::Searched`]'s values: the 1-ply value of each roll's 0-ply best play
/// `nexts[k]` (the next player on roll), from the side of the player who moved
/// there. One searcher serves the 21, through the thread's search cache, which the
/// 2-ply play's own 1-ply stage has often filled for the roll that came.
fn one_ply_values(
    eval: &NeuralEvaluator<'_>,
    s: &mut TrialScratch,
    nexts: &[Position; 21],
) -> [Probs; 21] {
    let mut searcher = searcher(eval, s);
    nexts.map(|next| searcher.position_probs(&next, 1).flip())
}

/// A searcher with reply pruning and the thread's search cache.
fn searcher<'a>(
    eval: &'a NeuralEvaluator<'_>,
    s: &'a mut TrialScratch,
) -> crate::search::Searcher<'a> {
    let fp = *s
        .fingerprint
        .get_or_insert_with(|| crate::search::Leaf::from(eval).fingerprint());
    let cache = s
        .search_cache
        .get_or_insert_with(|| EvalCache::with_mib(SEARCH_CACHE_MIB));
    crate::search::Searcher::with_fingerprint(
        eval,
        fp,
        crate::search::Pruning::DEFAULT,
        Some(cache),
    )
}

/// The values and plays of the full or the searched luck estimate at `pos`: each
/// roll's 0-ply best play, valued at 0 ply ([`Luck::Full`]) or 1 ply
/// ([`Luck::Searched`]).
fn every_roll_values(
    eval: &NeuralEvaluator<'_>,
    s: &mut TrialScratch,
    luck: Luck,
    pos: &Position,
) -> ([Probs; 21], [Position; 21]) {
    let mut values = [Probs::default(); 21];
    let mut nexts = [*pos; 21];
    for (k, &(r, _)) in Dice::ALL_21.iter().enumerate() {
        (values[k], nexts[k]) = best_0ply(eval, s, pos, r);
    }
    if luck == Luck::Searched {
        values = one_ply_values(eval, s, &nexts);
    }
    (values, nexts)
}

fn roll_table(
    eval: &NeuralEvaluator<'_>,
    luck: Luck,
    depth: u8,
    s: &mut TrialScratch,
    pos: &Position,
) -> RollTable {
    let mut t = RollTable {
        values: [Probs::default(); 21],
        next: [*pos; 21],
    };
    // The 0-ply best plays are the moves played at depth 0 and the plays the
    // full and searched luck estimates value; otherwise they are not needed.
    let every_roll = matches!(luck, Luck::Full | Luck::Searched);
    if every_roll {
        (t.values, t.next) = every_roll_values(eval, s, luck, pos);
    }
    for (k, &(r, _)) in Dice::ALL_21.iter().enumerate() {
        if depth > 0 {
            t.next[k] = searched(eval, s, pos, r, depth);
        } else if !every_roll {
            t.next[k] = best_0ply(eval, s, pos, r).1;
        }
    }
    // No luck estimate (Off): the values are never read.
    if luck == Luck::Ranked {
        t.values = ranked_values(eval, &mut s.eval, &mut s.luck, pos);
    }
    t
}

/// What every trial of one candidate shares: the evaluator, the move policy
/// (`None`: the best move at 0-ply by `eval`, or the search the settings ask for),
/// the settings, the start (player on roll, before the roll) with its cube, the
/// job's dice seed and the first-move cache that serves the first plies.
/// `start_is_opponent`: the player on roll in `start` is the opponent of the side
/// the results are for (a move rollout), which decides who plays at
/// [`TrialSettings::opponent_ply`].
#[derive(Clone, Copy)]
pub struct Trial<'a> {
    pub eval: &'a NeuralEvaluator<'a>,
    pub policy: Option<&'a dyn Player>,
    pub settings: &'a TrialSettings,
    pub start: &'a Position,
    pub cube_start: &'a CubeStart,
    pub seed: u64,
    pub cache: Option<&'a FirstPlyCache>,
    pub start_is_opponent: bool,
}

impl Trial<'_> {
    /// Plays trial number `trial` and returns the luck-adjusted outputs from the
    /// side of the player on roll at the start.
    pub fn run(&self, trial: u64, s: &mut TrialScratch) -> [f64; OUTPUTS] {
        self.run_observed(trial, s, None)
    }

    /// [`Trial::run`] that shows `observe` every state the trial rolls from (not
    /// the one it stops at), before the roll. Observing changes nothing in the
    /// trial: the hook `bgfarm-lab train outcomes` takes its training targets
    /// through.
    pub fn run_observed(
        &self,
        trial: u64,
        s: &mut TrialScratch,
        observe: Option<&mut dyn FnMut(BeforeRoll<'_>)>,
    ) -> [f64; OUTPUTS] {
        play(self, trial, s, observe)
    }
}

/// What a trial shows [`Trial::run_observed`]'s observer of a state it rolls from.
#[derive(Clone, Copy, Debug)]
pub struct BeforeRoll<'a> {
    /// The state, player on roll before the roll.
    pub pos: &'a Position,
    /// Whether the player on roll here is the one on roll at the trial's start.
    pub root_moves: bool,
    /// The luck of the rolls so far, from the start player's side (the five
    /// cubeless outputs; zeros without a luck estimate).
    pub luck: &'a [f64; 5],
}

/// The body of [`Trial::run_observed`].
fn play(
    trial_of: &Trial<'_>,
    trial: u64,
    s: &mut TrialScratch,
    mut observe: Option<&mut dyn FnMut(BeforeRoll<'_>)>,
) -> [f64; OUTPUTS] {
    let &Trial {
        eval,
        policy,
        settings,
        start,
        cube_start,
        seed,
        cache,
        start_is_opponent,
    } = trial_of;
    let mut dice = TrialDice::new(seed, trial);
    let mut pos = *start;
    let mut root_moves = true;
    let mut luck = [0f64; 5];
    let mut track = settings.cube.map(|r| CubeTrack::new(r, *cube_start));
    let mut cube_luck = 0f64;
    let mut cubeful = 0f64;
    let mut ply = 0u32;
    let outcome: Probs = loop {
        if let Some(p) = terminal_probs(&pos) {
            if let Some(t) = &track {
                cubeful = t.finished(&p, root_moves);
            }
            break to_root(p, root_moves);
        }
        let stop = (settings.bearoff_truncation && eval.class(&pos) == Class::Endgame)
            || settings.truncate.is_some_and(|t| ply >= t);
        if stop {
            let p = eval.evaluate_with(&pos, &mut s.eval);
            if let Some(t) = &track {
                cubeful = t.stopped(&pos, &p, root_moves);
            }
            break to_root(p, root_moves);
        }
        if let Some(t) = track.as_mut() {
            if t.may_act() {
                if settings.cube_ply > 0 {
                    t.act_searched(eval, &pos, u32::from(settings.cube_ply), root_moves);
                } else {
                    let p = eval.evaluate_with(&pos, &mut s.eval);
                    t.act(&pos, &p, root_moves);
                }
            }
        }
        if let Some(f) = observe.as_mut() {
            f(BeforeRoll {
                pos: &pos,
                root_moves,
                luck: &luck,
            });
        }
        let roll = dice.roll();
        let actual_k = Dice::ALL_21
            .iter()
            .position(|&(r, _)| same_roll(r, roll))
            .unwrap_or(0);
        let depth = settings.chequer_ply_at(ply, root_moves != start_is_opponent);
        let luck_mode = settings.luck.at(depth);
        let next = match (cache, policy) {
            (Some(c), None) if ply < CACHED_PLIES => {
                let key = FirstPlyKey {
                    luck: luck_mode,
                    depth,
                    pos,
                };
                let t = c.get_or_compute(key, || roll_table(eval, luck_mode, depth, s, &pos));
                if luck_mode != Luck::Off {
                    add_luck(&mut luck, &t.values, actual_k, root_moves);
                    if let Some(tr) = &track {
                        cube_luck += cubeful_luck(tr, &pos, &t.values, actual_k, root_moves);
                    }
                }
                t.next[actual_k]
            }
            _ => {
                let mut chosen: Option<Position> = None;
                if luck_mode != Luck::Off {
                    let values = if matches!(luck_mode, Luck::Full | Luck::Searched) {
                        let (values, nexts) = every_roll_values(eval, s, luck_mode, &pos);
                        chosen = Some(nexts[actual_k]);
                        values
                    } else {
                        let values = ranked_values(eval, &mut s.eval, &mut s.luck, &pos);
                        if depth == 0 && policy.is_none() {
                            chosen = Some(play_after_ranked(
                                eval,
                                &mut s.eval,
                                &mut s.luck,
                                &mut s.gen,
                                &pos,
                                roll,
                            ));
                        }
                        values
                    };
                    add_luck(&mut luck, &values, actual_k, root_moves);
                    if let Some(tr) = &track {
                        cube_luck += cubeful_luck(tr, &pos, &values, actual_k, root_moves);
                    }
                }
                match (chosen, policy) {
                    (_, None) if depth > 0 => searched(eval, s, &pos, roll, depth),
                    (Some(n), None) => n,
                    (_, None) => best_0ply(eval, s, &pos, roll).1,
                    (_, Some(p)) => {
                        let moves = s.gen.generate(&pos, roll);
                        if moves.is_empty() {
                            pos.switch_sides()
                        } else {
                            moves[p.choose(&pos, roll, moves)].next_position()
                        }
                    }
                }
            }
        };
        pos = next;
        root_moves = !root_moves;
        if let Some(t) = track.as_mut() {
            t.switch();
        }
        ply += 1;
    };
    let mut out = [0f64; OUTPUTS];
    for k in 0..5 {
        out[k] = f64::from(outcome.0[k]) - luck[k];
    }
    out[5] = 2.0 * out[0] - 1.0 + out[1] - out[3] + out[2] - out[4];
    out[6] = if track.is_some() {
        cubeful - cube_luck
    } else {
        out[5]
    };
    out
}

/// The cubeful luck (root side) of roll `actual` given every roll's reply value
/// (mover's cubeless probabilities); zero once a pass decided the cubeful result.
fn cubeful_luck(
    track: &CubeTrack,
    pos: &Position,
    values: &[Probs; 21],
    actual: usize,
    root_moves: bool,
) -> f64 {
    if track.decided.is_some() {
        return 0.0;
    }
    let x = default_x(pos);
    let mut mean = 0f64;
    let mut this = 0f64;
    for (k, (&(_, w), v)) in Dice::ALL_21.iter().zip(values).enumerate() {
        let cv = track.roll_value(v, x, root_moves);
        mean += f64::from(w) / 36.0 * cv;
        if k == actual {
            this = cv;
        }
    }
    this - mean
}

/// Adds the luck of roll `actual` given the values of all 21 rolls (mover's side),
/// converted to the root player's side.
#[inline]
fn add_luck(luck: &mut [f64; 5], values: &[Probs; 21], actual: usize, root_moves: bool) {
    let mut mean = [0f64; 5];
    for (&(_, w), v) in Dice::ALL_21.iter().zip(values) {
        let v = to_root(*v, root_moves);
        for (m, x) in mean.iter_mut().zip(v.0) {
            *m += f64::from(w) / 36.0 * f64::from(x);
        }
    }
    let a = to_root(values[actual], root_moves);
    for ((l, x), m) in luck.iter_mut().zip(a.0).zip(mean) {
        *l += f64::from(x) - m;
    }
}

#[inline]
fn same_roll(a: Dice, b: Dice) -> bool {
    a.high_low() == b.high_low()
}
