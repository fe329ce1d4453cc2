//! Tests of the search that do not depend on how strong the nets are: agreement with
//! a brute-force expectation, exact bear-off values, filters that cannot drop the
//! best play, and bit-identical results with or without the cache and threads.

use super::*;
use crate::eval::bearoff::BearoffDb;
use crate::eval::default_nets;
use crate::eval::net::format::load_bundle;
use crate::eval::neural::NeuralEvaluator;
use crate::eval::{after_move, terminal_probs, Evaluator, Probs};
use crate::movegen::legal_moves;
use crate::position::Position;
use crate::{Dice, Move};

fn nets(endgame: bool) -> NeuralEvaluator<'static> {
    let b = default_nets::BYTES;
    NeuralEvaluator {
        contact: load_bundle(b, "contact.").expect("built-in contact net"),
        race: load_bundle(b, "race.").expect("built-in race net"),
        endgame: if endgame {
            Some(BearoffDb::global())
        } else {
            None
        },
        screen: None,
        crashed: None,
    }
}

fn pos(points: &[(usize, i8)]) -> Position {
    let mut pips = [0i8; 26];
    for &(i, n) in points {
        pips[i] = n;
    }
    Position::from_pips(pips).expect("test position")
}

/// A middle-game position with contact (both sides have back checkers and blots).
fn contact() -> Position {
    pos(&[
        (24, 1),
        (13, 4),
        (8, 3),
        (6, 4),
        (5, 2),
        (3, 1),
        (1, -2),
        (10, -1),
        (12, -4),
        (17, -3),
        (19, -3),
        (20, -2),
    ])
}

/// A race with a few checkers each, some still outside the home board.
fn small_race() -> Position {
    pos(&[(9, 2), (4, 1), (2, 2), (20, -2), (23, -1), (15, -1)])
}

/// The n-ply value written out naively: every reply scored by `evaluate`, the best
/// (first on ties) searched deeper, rolls summed in `Dice::ALL_21` order.
fn brute<E: Evaluator>(e: &E, p: &Position, ply: u8) -> Probs {
    if let Some(t) = terminal_probs(p) {
        return t;
    }
    if ply == 0 {
        return e.evaluate(p);
    }
    let mut sum = [0f32; 5];
    for &(dice, w) in &Dice::ALL_21 {
        let moves = legal_moves(p, dice);
        let v = if moves.is_empty() {
            brute(e, &p.switch_sides(), ply - 1).flip()
        } else {
            let mut best: Option<(f32, &Move)> = None;
            for m in &moves {
                let eq = after_move(e, m).equity();
                if best.is_none_or(|(b, _)| eq > b) {
                    best = Some((eq, m));
                }
            }
            let (_, m) = best.expect("moves is not empty");
            brute(e, &m.next_position(), ply - 1).flip()
        };
        for (s, x) in sum.iter_mut().zip(v.0) {
            *s += f32::from(w) * x;
        }
    }
    Probs(sum.map(|s| s / 36.0))
}

fn close(a: &Probs, b: &Probs, tol: f32) -> bool {
    a.0.iter().zip(b.0).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn nply_equals_brute_force_expectation() {
    let e = nets(false);
    let mut s = Searcher::new(&e, Pruning::OFF, None);
    for (p, max_ply) in [(small_race(), 2), (contact(), 2), (Position::STARTING, 1)] {
        for ply in 0..=max_ply {
            let got = s.position_probs(&p, ply);
            let want = brute(&e, &p, ply);
            assert!(close(&got, &want, 1e-6), "{p:?} {ply}: {got:?} {want:?}");
        }
    }
}

#[test]
fn zero_ply_move_value_is_the_static_value() {
    let e = nets(true);
    let mut s = Searcher::new(&e, Pruning::DEFAULT, None);
    for m in legal_moves(&contact(), Dice::new(6, 4).unwrap()) {
        assert_eq!(s.move_probs(&m, 0), after_move(&e, &m));
    }
}

#[test]
fn pruning_that_keeps_every_reply_changes_nothing() {
    let e = nets(false);
    let mut off = Searcher::new(&e, Pruning::OFF, None);
    let mut wide = Searcher::new(&e, Pruning { keep: 255 }, None);
    for ply in 1..=2 {
        assert_eq!(
            off.position_probs(&contact(), ply),
            wide.position_probs(&contact(), ply)
        );
    }
    assert_eq!(wide.stats().prune_scores, 0);
    // A real pruning pass scores replies with PubEval and evaluates fewer with the net.
    let mut pruned = Searcher::new(&e, Pruning { keep: 3 }, None);
    let v = pruned.position_probs(&contact(), 2);
    assert!(pruned.stats().prune_scores > 0);
    assert!(pruned.stats().evals < off.stats().evals / 2);
    assert!((v.equity() - off.position_probs(&contact(), 2).equity()).abs() < 1.0);
}

#[test]
fn nply_is_exact_in_the_two_sided_bearoff_database() {
    let e = nets(true);
    let db = BearoffDb::global();
    // No pruning pass: PubEval could drop the best bear-off of a double.
    let mut s = Searcher::new(&e, Pruning::OFF, None);
    for p in [
        pos(&[(1, 2), (3, 1), (5, 2), (24, -2), (22, -2), (20, -1)]),
        pos(&[(6, 3), (4, 1), (19, -1), (23, -3)]),
        pos(&[(2, 1), (25 - 6, -4)]),
    ] {
        let exact = db.probs(&p).expect("two-sided position");
        for ply in 1..=3 {
            let v = s.position_probs(&p, ply);
            assert!(close(&v, &exact, 2e-6), "{p:?} {ply}: {v:?} vs {exact:?}");
        }
    }
}

#[test]
fn cache_hits_give_identical_results() {
    let e = nets(true);
    let cache = EvalCache::new(1 << 16);
    let dice = Dice::new(4, 2).unwrap();
    let ladder = MoveFilter::parse("0:4:inf").unwrap().ladder(2);
    let plain = Searcher::new(&e, Pruning::DEFAULT, None).rank_moves(&contact(), dice, 2, &ladder);
    let (first, second) = {
        let mut s = Searcher::new(&e, Pruning::DEFAULT, Some(&cache));
        let a = s.rank_moves(&contact(), dice, 2, &ladder);
        let st = s.take_stats();
        let b = s.rank_moves(&contact(), dice, 2, &ladder);
        let st2 = s.take_stats();
        assert!(st.cache.misses > 0);
        // The second search is answered near its top (a few root values may have
        // been replaced by the deeper search's own).
        assert!(st2.evals * 100 < st.evals, "{st2:?} {st:?}");
        assert!(st2.cache.hits > 0);
        (a, b)
    };
    assert_eq!(first, plain);
    assert_eq!(second, plain);
    assert!(cache.stats().hits > 0);
    // Caching the 0-ply values too gives the same answer.
    let mut deep = Searcher::new(&e, Pruning::DEFAULT, Some(&cache)).cache_from_ply(0);
    cache.clear();
    assert_eq!(deep.rank_moves(&contact(), dice, 2, &ladder), plain);
}

#[test]
fn remembered_replies_give_the_same_bits_for_less_work() {
    // A filter values its survivors at 1 ply, then at 2: the deeper expansion takes
    // the replies the shallower one chose. Every pruning path: walked, listed, off.
    let e = nets(true);
    let dice = Dice::new(4, 2).unwrap();
    let plays = legal_moves(&contact(), dice);
    assert!(plays.len() > 4);
    for prune in [Pruning::DEFAULT, Pruning { keep: 20 }, Pruning::OFF] {
        let mut fresh_evals = 0;
        let fresh: Vec<Probs> = plays
            .iter()
            .map(|m| {
                let mut s = Searcher::new(&e, prune, None);
                let v = s.move_probs(m, 2);
                fresh_evals += s.stats().evals;
                v
            })
            .collect();
        let mut s = Searcher::new(&e, prune, None);
        for m in &plays {
            s.move_probs(m, 1);
        }
        s.take_stats();
        let remembered: Vec<Probs> = plays.iter().map(|m| s.move_probs(m, 2)).collect();
        assert_eq!(remembered, fresh, "{prune:?}");
        // The 21 x (up to keep) reply evaluations of each play are saved.
        let saved = fresh_evals - s.stats().evals;
        assert!(saved >= 21 * plays.len() as u64, "{prune:?}: saved {saved}");
    }
}

#[test]
fn threads_sharing_a_cache_agree_with_one_thread() {
    let e = nets(true);
    let dice = Dice::new(5, 5).unwrap();
    let ladder = MoveFilter::normal().ladder(1);
    let want = Searcher::new(&e, Pruning::DEFAULT, None).rank_moves(&contact(), dice, 1, &ladder);
    let cache = EvalCache::new(1 << 8);
    std::thread::scope(|sc| {
        for _ in 0..3 {
            sc.spawn(|| {
                let mut s = Searcher::new(&e, Pruning::DEFAULT, Some(&cache));
                for _ in 0..3 {
                    assert_eq!(s.rank_moves(&contact(), dice, 1, &ladder), want);
                }
            });
        }
    });
}

#[test]
fn open_filters_never_drop_the_best_play() {
    let e = nets(true);
    let mut s = Searcher::new(&e, Pruning::DEFAULT, None);
    let open = MoveFilter::parse("0:all:inf").unwrap().ladder(1);
    let keep_all = MoveFilter::parse("0:1:0+top99").unwrap().ladder(1);
    for (p, d) in [
        (contact(), (6, 2)),
        (contact(), (1, 1)),
        (small_race(), (5, 3)),
    ] {
        let dice = Dice::new(d.0, d.1).unwrap();
        let full = s.rank_moves(&p, dice, 1, &Ladder::all());
        assert!(full.iter().all(|c| c.ply == 1));
        assert!(full.windows(2).all(|w| w[0].equity() >= w[1].equity()));
        for ladder in [&open, &keep_all] {
            let r = s.rank_moves(&p, dice, 1, ladder);
            assert_eq!(r, full, "{ladder}");
        }
        let best = s.best_move(&p, dice, 1, &open).unwrap();
        assert_eq!(best, full[0]);
    }
}

#[test]
fn ladder_order_and_early_stop() {
    let e = nets(true);
    let mut s = Searcher::new(&e, Pruning::DEFAULT, None);
    let dice = Dice::new(3, 1).unwrap();
    // 3-ply would be slow; a ladder with a 1-ply middle step at depth 2 shows the order.
    let ladder = MoveFilter::parse("0:6:1,1:3:1").unwrap().ladder(2);
    let r = s.rank_moves(&contact(), dice, 2, &ladder);
    let plies: Vec<u8> = r.iter().map(|c| c.ply).collect();
    assert_eq!(&plies[..3], &[2, 2, 2]);
    assert_eq!(&plies[3..6], &[1, 1, 1]);
    assert!(plies[6..].iter().all(|&p| p == 0));
    for group in r.chunk_by(|a, b| a.ply == b.ply) {
        assert!(group.windows(2).all(|w| w[0].equity() >= w[1].equity()));
    }
    // A step keeping one play stops there: the choice stays at 0-ply.
    let one = MoveFilter::parse("0:1:0").unwrap().ladder(2);
    let r = s.rank_moves(&contact(), dice, 2, &one);
    assert!(r.iter().all(|c| c.ply == 0));
    assert_eq!(
        r[0].mv,
        s.best_move(&contact(), dice, 0, &Ladder::all()).unwrap().mv
    );
}

#[test]
fn run_ladder_evaluates_only_what_the_steps_keep() {
    // Synthetic values: play number i (generation order) is worth i/100 at 0-ply
    // and -i/100 deeper, so each deeper step reverses the ranking.
    let moves = legal_moves(&Position::STARTING, Dice::new(1, 1).unwrap());
    let n = moves.len();
    assert!(n > 8);
    let id = |m: &Move| moves.iter().position(|x| x == m).unwrap_or(0) as f32;
    let mut cands: Vec<Candidate> = moves.iter().copied().map(Candidate::new).collect();
    let mut calls: Vec<(u8, usize)> = Vec::new();
    let ladder = MoveFilter::parse("0:5:inf,2:2:inf").unwrap().ladder(3);
    let live = run_ladder(&mut cands, 3, &ladder, |slice, p| {
        calls.push((p, slice.len()));
        for c in slice {
            let v = if p == 0 { id(&c.mv) } else { -id(&c.mv) } / 100.0;
            c.probs = Probs([0.5 + v / 2.0, 0.0, 0.0, 0.0, 0.0]);
            c.ply = p;
        }
    });
    // 0-ply all, no 1-ply step (skipped), 2-ply the 5 kept, 3-ply the 2 kept.
    assert_eq!(calls, vec![(0, n), (2, 5), (3, 2)]);
    assert_eq!(live, 2);
    let ids: Vec<usize> = cands.iter().map(|c| id(&c.mv) as usize).collect();
    // At 2-ply the lowest of the top five (n-5, n-4) lead and go on to 3-ply.
    assert_eq!(&ids[..5], &[n - 5, n - 4, n - 3, n - 2, n - 1]);
    assert_eq!(&ids[5..8], &[n - 6, n - 7, n - 8]);
    let plies: Vec<u8> = cands.iter().map(|c| c.ply).collect();
    assert_eq!(&plies[..6], &[3, 3, 2, 2, 2, 0]);
}

#[test]
fn searches_are_deterministic() {
    let e = nets(true);
    let dice = Dice::new(6, 3).unwrap();
    let ladder = MoveFilter::parse("xg-normal").unwrap().ladder(2);
    let a = Searcher::new(&e, Pruning::DEFAULT, None).rank_moves(&contact(), dice, 2, &ladder);
    let b = Searcher::new(&e, Pruning::DEFAULT, None).rank_moves(&contact(), dice, 2, &ladder);
    assert_eq!(a, b);
    assert!(a[0].ply == 2 || a.iter().filter(|c| c.ply > 0).count() <= 1);
}

#[test]
fn forced_and_impossible_rolls() {
    let e = nets(true);
    let mut s = Searcher::new(&e, Pruning::DEFAULT, None);
    // The mover is on the bar against a closed board: no legal play.
    let closed = pos(&[
        (25, 1),
        (13, 14),
        (19, -2),
        (20, -2),
        (21, -2),
        (22, -2),
        (23, -2),
        (24, -2),
        (1, -3),
    ]);
    let dice = Dice::new(6, 6).unwrap();
    assert!(s.best_move(&closed, dice, 2, &Ladder::all()).is_none());
    assert!(s.rank_moves(&closed, dice, 2, &Ladder::all()).is_empty());
    // Its 1-ply value still averages over the rolls (every one passes).
    let v = s.position_probs(&closed, 1);
    let pass = s.position_probs(&closed.switch_sides(), 0).flip();
    assert!(close(&v, &pass, 1e-6), "{v:?} {pass:?}");
}

/// The mover (none off, one checker on its 8-point, 14 home) is gammoned unless it
/// bears a checker off this roll, and every roll can: bring the straggler home with
/// one die, bear off with the other. The opponent's last checker is on its 1-point.
/// The pruning pass used to rank the bear-offs of the ten non-double rolls with a 1
/// below five shuffles (the race net's gammon inputs change only when the first
/// checker is off, which the linearized ranking did not see), so 1-ply said the
/// mover is gammoned 10/36 of the time. Now it sees what the unpruned search sees.
#[test]
fn pruning_keeps_the_gammon_saving_bear_offs() {
    let e = nets(true);
    let pos = pos(&[
        (8, 1),
        (6, 3),
        (5, 3),
        (4, 3),
        (3, 2),
        (2, 2),
        (1, 1),
        (24, -1),
    ]);
    let mut off = Searcher::new(&e, Pruning::OFF, None);
    let mut pruned = Searcher::new(&e, Pruning::DEFAULT, None);
    for ply in 1..=2 {
        let (a, b) = (
            off.position_probs(&pos, ply),
            pruned.position_probs(&pos, ply),
        );
        assert!(a.0[3] < 1e-6, "unpruned lose-gammon {}", a.0[3]);
        assert!(b.0[3] < 1e-6, "pruned lose-gammon {} at {ply}-ply", b.0[3]);
    }
}
