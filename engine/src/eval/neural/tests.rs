//! Unit tests of [`super`].

use super::*;
use crate::eval::{after_move, best_move_index, Greedy, Player};
use crate::movegen::MoveGenerator;
use crate::rng::Rng;

/// How far an output of a deeper net may move between the incremental evaluation
/// of a move's result and a full one: their first layers' sums differ by float
/// rounding (a few 1e-7), and the 16-bit second layer (`net::quantized`) can turn
/// that into one rounding step of an activation (2^-13) more or less, about 1e-4
/// of an output at most.
const PATHS_AGREE: f32 = 5e-4;

fn default_eval(endgame: Option<&'static dyn Endgame>) -> NeuralEvaluator<'static> {
    let bytes = crate::eval::default_nets::BYTES;
    NeuralEvaluator {
        contact: super::super::net::format::load_bundle(bytes, "contact.").expect("default nets"),
        race: super::super::net::format::load_bundle(bytes, "race.").expect("default nets"),
        endgame,
        screen: None,
        crashed: None,
    }
}

/// Positions before a roll, with the roll, from random self-play games (all
/// phases: contact, hits and bar entries, races, bear-offs, game ends).
fn random_decisions(n: usize, seed: u64) -> Vec<(Position, crate::dice::Dice)> {
    let mut rng = Rng::new(seed);
    let mut gen = MoveGenerator::new();
    let mut out = Vec::with_capacity(n);
    let mut pos = Position::STARTING;
    while out.len() < n {
        let dice = rng.roll();
        out.push((pos, dice));
        let moves = gen.generate(&pos, dice);
        pos = if moves.is_empty() {
            pos.switch_sides()
        } else {
            moves[rng.below(moves.len() as u32) as usize].next_position()
        };
        if pos.game_over() {
            pos = Position::STARTING;
        }
    }
    out
}

/// Batch against one-by-one: max abs difference, candidates compared, and the
/// decisions where the choices differ beyond a near-tie.
fn compare(eval: &NeuralEvaluator<'_>, decisions: usize, seed: u64) -> (f32, usize, usize) {
    let mut gen = MoveGenerator::new();
    let mut scratch = eval.scratch();
    let mut batch = Vec::new();
    let (mut max_diff, mut count, mut bad_choices) = (0f32, 0usize, 0usize);
    for (pos, dice) in random_decisions(decisions, seed) {
        let moves = gen.generate(&pos, dice).to_vec();
        eval.evaluate_moves(&pos, &moves, &mut scratch, &mut batch);
        assert_eq!(batch.len(), moves.len());
        let full: Vec<Probs> = moves
            .iter()
            .map(|m| eval.evaluate_with(&m.next_position(), &mut scratch))
            .collect();
        for (b, f) in batch.iter().zip(&full) {
            for k in 0..OUTPUTS {
                max_diff = max_diff.max((b.0[k] - f.0[k]).abs());
            }
            count += 1;
        }
        let (bi, fi) = (best_move_index(&batch), best_move_index(&full));
        if let (Some(bi), Some(fi)) = (bi, fi) {
            let gap = (full[bi].flip().equity() - full[fi].flip().equity()).abs();
            if bi != fi && gap > 1e-5 {
                bad_choices += 1;
            }
        } else {
            assert_eq!(bi, fi);
        }
    }
    (max_diff, count, bad_choices)
}

#[test]
fn batch_matches_one_by_one_with_default_nets() {
    let (diff, count, bad) = compare(&default_eval(None), 3000, 7);
    assert!(count > 30_000, "{count} candidates");
    assert!(
        diff < 1e-5,
        "max abs difference {diff:e} over {count} candidates"
    );
    assert_eq!(bad, 0);
}

#[test]
fn batch_matches_one_by_one_with_random_nets_and_bearoff_tables() {
    let eval = NeuralEvaluator {
        contact: crate::testutil::random_net(32, 11),
        race: crate::testutil::random_net(16, 12),
        endgame: Some(crate::eval::bearoff::BearoffDb::global()),
        screen: None,
        crashed: None,
    };
    let (diff, count, bad) = compare(&eval, 2000, 8);
    assert!(count > 20_000, "{count} candidates");
    assert!(
        diff < 1e-5,
        "max abs difference {diff:e} over {count} candidates"
    );
    assert_eq!(bad, 0);
}

#[test]
fn greedy_uses_the_batch_and_agrees_with_after_move() {
    let eval = default_eval(None);
    let greedy = Greedy(eval.clone());
    let mut gen = MoveGenerator::new();
    for (pos, dice) in random_decisions(500, 9) {
        let moves = gen.generate(&pos, dice).to_vec();
        if moves.is_empty() {
            continue;
        }
        let chosen = greedy.choose(&pos, dice, &moves);
        let eqs: Vec<f32> = moves
            .iter()
            .map(|m| after_move(&eval, m).equity())
            .collect();
        let best = eqs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert!(best - eqs[chosen] < 1e-5, "{pos:?} {dice:?}");
    }
    // The trait's default (one by one) gives the same numbers as the override.
    let (pos, dice) = (
        Position::STARTING,
        crate::dice::Dice::new(6, 5).expect("dice"),
    );
    let moves = gen.generate(&pos, dice).to_vec();
    let mut fast = Vec::new();
    eval.evaluate_candidates(&pos, &moves, &mut fast);
    for (m, p) in moves.iter().zip(&fast) {
        let q = eval.evaluate(&m.next_position());
        assert!((0..OUTPUTS).all(|k| (p.0[k] - q.0[k]).abs() < 1e-5));
    }
}

/// Whether the endgame layer refines `next`: a race not over and not in the tables.
fn refined_race(eval: &NeuralEvaluator<'_>, next: &Position) -> bool {
    !next.has_contact()
        && !next.game_over()
        && eval.endgame.is_some_and(|e| e.probs(next).is_none())
}

/// The screened choice, by its definition: the evaluator's best among the screen's
/// best [`SCREEN_KEEP`] screened candidates within [`SCREEN_MARGIN`] (contact
/// positions valued by the screen net, races the endgame layer refines by the race
/// net alone) and every other candidate (bear-offs, finished games, crashed
/// positions where the crashed net answers), the first on ties.
fn screened_by_definition(eval: &NeuralEvaluator<'_>, moves: &[Move]) -> usize {
    // Without the endgame layer the race net's outputs stand as they are; the
    // bear-offs it would answer are not screened.
    let screen = NeuralEvaluator {
        contact: eval.screen.clone().expect("a screen"),
        race: eval.race.clone(),
        endgame: None,
        screen: None,
        crashed: None,
    };
    let eq = |e: &NeuralEvaluator<'_>, m: &Move| after_move(e, m).equity();
    let screened = |next: &Position| {
        (next.has_contact() && !(eval.crashed.is_some() && is_crashed(next)))
            || refined_race(eval, next)
    };
    let mut contact: Vec<(f32, usize)> = moves
        .iter()
        .enumerate()
        .filter(|(_, m)| screened(&m.next_position()))
        .map(|(i, m)| (eq(&screen, m), i))
        .collect();
    contact.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let floor = contact.first().map_or(0.0, |c| c.0 - SCREEN_MARGIN);
    let mut offered: Vec<usize> = contact
        .iter()
        .take(SCREEN_KEEP)
        .take_while(|c| c.0 >= floor)
        .map(|c| c.1)
        .collect();
    offered.extend((0..moves.len()).filter(|&i| !screened(&moves[i].next_position())));
    offered.sort_unstable();
    let mut best = offered[0];
    for &i in &offered {
        if eq(eval, &moves[i]) > eq(eval, &moves[best]) {
            best = i;
        }
    }
    best
}

#[test]
fn the_screen_passes_its_best_few_to_the_contact_net() {
    let mut eval = crate::eval::default_nets::default_evaluator(Some(
        crate::eval::bearoff::BearoffDb::global(),
    ))
    .expect("built-in nets");
    let mut gen = MoveGenerator::new();
    let (mut es, mut probs) = (eval.scratch(), Vec::new());
    let (mut decided, mut differ) = (0, 0);
    for (pos, dice) in random_decisions(1500, 31) {
        let moves = gen.generate(&pos, dice).to_vec();
        if moves.len() < 2 {
            continue;
        }
        decided += 1;
        let got = eval.choose_index(&pos, &moves).expect("a move");
        let want = screened_by_definition(&eval, &moves);
        // Up to float rounding of the incremental first layer (a few 1e-7).
        let gap =
            after_move(&eval, &moves[want]).equity() - after_move(&eval, &moves[got]).equity();
        assert!(gap.abs() < 1e-5, "{pos:?} {dice:?}: {got} against {want}");
        let (next, p) = eval.best_successor(&mut gen, &mut es, &mut probs, &pos, dice);
        assert_eq!(next, moves[got].next_position(), "{pos:?} {dice:?}");
        assert!((p.equity() - after_move(&eval, &moves[got]).equity()).abs() < PATHS_AGREE);
        // The same nets without the screen (the crashed net still answers
        // crashed candidates).
        let full = Greedy(NeuralEvaluator {
            screen: None,
            ..eval.clone()
        })
        .choose(&pos, dice, &moves);
        differ += usize::from(full != got);
    }
    // The screen rarely changes the contact net's own choice.
    assert!(decided > 1000, "{decided}");
    assert!(differ * 50 < decided, "{differ} of {decided} differ");
    // A screen identical to the contact net never does.
    eval.screen = Some(eval.contact.clone());
    let full = Greedy(NeuralEvaluator {
        screen: None,
        ..eval.clone()
    });
    for (pos, dice) in random_decisions(300, 32) {
        let moves = gen.generate(&pos, dice).to_vec();
        // Races are screened by the race net whatever the contact screen is.
        if moves.is_empty()
            || moves
                .iter()
                .any(|m| refined_race(&eval, &m.next_position()))
        {
            continue;
        }
        assert_eq!(
            eval.choose_index(&pos, &moves),
            Some(full.choose(&pos, dice, &moves)),
            "{pos:?} {dice:?}"
        );
    }
}

#[test]
fn empty_and_finished_candidates() {
    let eval = default_eval(None);
    let mut scratch = eval.scratch();
    let mut out = vec![Probs::default()];
    eval.evaluate_moves(&Position::STARTING, &[], &mut scratch, &mut out);
    assert!(out.is_empty());
    assert_eq!(best_move_index(&out), None);
    // Last checker off with a 6-1: every candidate ends the game.
    let mut m = [0u8; 25];
    let mut o = [0u8; 25];
    m[0] = 1;
    o[5] = 3;
    let pos = Position::from_arrays(&m, &o).expect("legal");
    let moves = crate::movegen::legal_moves(&pos, crate::dice::Dice::new(6, 1).expect("dice"));
    eval.evaluate_moves(&pos, &moves, &mut scratch, &mut out);
    assert!(!out.is_empty());
    for (mv, p) in moves.iter().zip(&out) {
        assert_eq!(Some(*p), terminal_probs(&mv.next_position()));
    }
}

/// With a crashed net (here the one-layer contact net under the deep one, so that
/// the routing shows), crashed positions get it everywhere (one by one, among a
/// roll's candidates, in the screened choice) and every other position gets
/// exactly what it got without one.
#[test]
fn crashed_positions_go_to_the_crashed_net() {
    use crate::eval::crashed::is_crashed;
    let plain = crate::eval::default_nets::default_evaluator(None).expect("built-in nets");
    let mut eval = plain.clone();
    eval.crashed = Some(default_eval(None).contact);
    let alone = NeuralEvaluator {
        contact: eval.crashed.clone().expect("a crashed net"),
        race: eval.race.clone(),
        endgame: None,
        screen: None,
        crashed: None,
    };
    assert_ne!(eval.hash(), plain.hash());
    let mut gen = MoveGenerator::new();
    let mut scratch = eval.scratch();
    let (mut batch, mut probs) = (Vec::new(), Vec::new());
    let (mut crashed, mut all_crashed) = (0, 0);
    for (pos, dice) in random_decisions(3000, 17) {
        let moves = gen.generate(&pos, dice).to_vec();
        eval.evaluate_moves(&pos, &moves, &mut scratch, &mut batch);
        for (m, p) in moves.iter().zip(&batch) {
            let next = m.next_position();
            let want = if is_crashed(&next) {
                crashed += 1;
                alone.evaluate(&next)
            } else {
                plain.evaluate(&next)
            };
            assert_eq!(eval.evaluate(&next), want);
            assert!((0..OUTPUTS).all(|k| (p.0[k] - want.0[k]).abs() < PATHS_AGREE));
        }
        if !moves.is_empty() && moves.iter().all(|m| is_crashed(&m.next_position())) {
            all_crashed += 1;
            let (i, _) = eval
                .choose_move(&pos, &moves, &mut scratch, &mut probs)
                .expect("a choice");
            let by_value = best_move_index(&batch).expect("a best move");
            assert_eq!(i, by_value, "{}", crate::ids::position_id::encode(&pos));
        }
    }
    assert!(crashed > 500 && all_crashed > 20, "{crashed} {all_crashed}");
}
