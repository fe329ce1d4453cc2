//! Match simulation with the built-in nets (no bear-off tables, to keep tests fast).

use super::*;
use crate::eval::default_nets::BYTES;
use crate::eval::net::format::load_bundle;
use crate::eval::neural::NeuralEvaluator;

fn nets() -> NeuralEvaluator<'static> {
    NeuralEvaluator {
        contact: load_bundle(BYTES, "contact.").unwrap(),
        race: load_bundle(BYTES, "race.").unwrap(),
        endgame: None,
        screen: None,
        crashed: None,
    }
}

fn spec<'a>(met: &'a MatchEquityTable, a: &str, b: &str, length: u32) -> SimSpec<'a> {
    SimSpec {
        a: CubeStrategy::parse(a).unwrap(),
        b: CubeStrategy::parse(b).unwrap(),
        length,
        met,
        own_mets: [None, None],
        jacoby: false,
        luck: false,
        seed: 7,
        chequer: ChequerPlay::Cubeless,
    }
}

#[test]
fn matches_are_deterministic_and_legal() {
    let met = MatchEquityTable::kazaross_xg2();
    let eval = nets();
    let s = spec(&met, "janowski-match:x=0.7", "janowski-money:x=0.5", 5);
    for i in 0..6 {
        let m = play_match(&s, &eval, i);
        assert_eq!(m, play_match(&s, &eval, i));
        assert!(m.points == 1 || m.points == -1, "{m:?}");
        assert!(m.games >= 1 && m.games <= 40, "{m:?}");
        assert!(m.cube_sum >= u64::from(m.games));
    }
    let total = simulate(&s, &eval, 3);
    assert_eq!(total, simulate(&s, &eval, 3));
    assert_eq!(total.matches, 6);
}

#[test]
fn identical_strategies_cancel_exactly_in_each_pair() {
    // Same strategy in both seats: the swapped match is the mirror image, so every
    // pair totals 0 (duplicate dice at work).
    let met = MatchEquityTable::kazaross_xg2();
    let eval = nets();
    for length in [0, 3, 7] {
        let s = spec(&met, "janowski-match:x=0.7", "janowski-match:x=0.7", length);
        let t = simulate(&s, &eval, 4);
        assert_eq!((t.points, t.pair_points_sq), (0, 0), "length {length}");
    }
}

#[test]
fn crawford_and_post_crawford_games() {
    let met = MatchEquityTable::kazaross_xg2();
    let eval = nets();
    let eager = CubeStrategy::parse("janowski-match:x=1").unwrap();
    let mut table = Table::new(&eval, false, ChequerPlay::Cubeless);
    for g in 0..20 {
        let mut rng = Rng::for_stream(3, g);
        // The Crawford game: no cube at all.
        let rules = Rules::Match {
            away: [1, 4],
            crawford: true,
            met: &met,
            mets: [&met, &met],
        };
        let out = table.play(&rules, [&eager, &eager], &mut rng, (g % 2) as usize);
        assert_eq!(
            (out.doubles, out.cube, out.dropped),
            (0, 1, false),
            "{out:?}"
        );
        // Post-Crawford, seat 1 trails 4-away: it doubles at once, the leader's
        // cube is dead, so one double at most.
        let rules = Rules::Match {
            away: [1, 4],
            crawford: false,
            met: &met,
            mets: [&met, &met],
        };
        let out = table.play(&rules, [&eager, &eager], &mut rng, (g % 2) as usize);
        assert!(out.doubles <= 1 && out.cube <= 2, "{out:?}");
        if out.turns > 2 && !out.dropped {
            assert_eq!(
                out.cube, 2,
                "the trailer doubles at its first turn: {out:?}"
            );
        }
    }
}

#[test]
fn money_sessions_and_luck_adjustment() {
    let met = MatchEquityTable::kazaross_xg2();
    let eval = nets();
    let mut s = spec(&met, "janowski-money:x=0.7", "janowski-money:x=0", 0);
    let plain = simulate(&s, &eval, 30);
    assert_eq!(plain.games, 60);
    assert_eq!(plain.adjusted, plain.points as f64);
    s.luck = true;
    let lucky = simulate(&s, &eval, 30);
    // The same games (luck measurement does not change play) ...
    assert_eq!(
        (lucky.points, lucky.games, lucky.turns),
        (plain.points, plain.games, plain.turns)
    );
    // ... with much of the noise removed.
    let (se, adj_se) = (lucky.se().unwrap(), lucky.adjusted_se().unwrap());
    assert!(adj_se < se, "luck-adjusted SE {adj_se} vs raw {se}");
}

#[test]
fn symmetric_pairs_equal_played_pairs() {
    let met = MatchEquityTable::kazaross_xg2();
    let eval = nets();
    for length in [0, 5] {
        let s = spec(&met, "janowski-match:x=0.6", "janowski-match:x=0.6", length);
        for p in 0..3 {
            assert_eq!(play_pair_symmetric(&s, &eval, p), play_pair(&s, &eval, p));
        }
    }
}

#[test]
fn match_aware_chequer_play_changes_some_games() {
    let met = MatchEquityTable::kazaross_xg2();
    let eval = nets();
    let mut s = spec(&met, "janowski-match:x=0.7", "janowski-money:x=0.7", 3);
    let cubeless = simulate(&s, &eval, 8);
    s.chequer = ChequerPlay::Match;
    let aware = simulate(&s, &eval, 8);
    assert_eq!(aware, simulate(&s, &eval, 8), "deterministic");
    assert_ne!(
        (cubeless.turns, cubeless.gammons, cubeless.points),
        (aware.turns, aware.gammons, aware.points),
        "the same dice played by another rule"
    );
    // Measuring luck does not change the play under this rule either.
    s.luck = true;
    let lucky = simulate(&s, &eval, 8);
    assert_eq!(
        (lucky.points, lucky.games, lucky.turns),
        (aware.points, aware.games, aware.turns)
    );
}

#[test]
fn own_tables_change_only_their_players_decisions() {
    // A player whose own table is the shared one plays exactly as without it; one
    // reading the Janowski-consistent table plays its own matches, reproducibly.
    let met = MatchEquityTable::kazaross_xg2();
    let jan = MatchEquityTable::janowski(0.68, 0.26).unwrap();
    let eval = nets();
    let mut s = spec(&met, "janowski-match:x=0.68", "janowski-match:x=0.68", 5);
    let base: Vec<MatchOutcome> = (0..6).map(|i| play_match(&s, &eval, i)).collect();
    s.own_mets = [Some(&met), Some(&met)];
    let same: Vec<MatchOutcome> = (0..6).map(|i| play_match(&s, &eval, i)).collect();
    assert_eq!(base, same);
    s.own_mets = [Some(&jan), None];
    let own: Vec<MatchOutcome> = (0..6).map(|i| play_match(&s, &eval, i)).collect();
    assert_eq!(
        own,
        (0..6).map(|i| play_match(&s, &eval, i)).collect::<Vec<_>>()
    );
    // Identical strategies but different tables: the pairs no longer cancel in
    // general, and the seat swap moves A's table with A.
    s.own_mets = [None, Some(&jan)];
    let swapped: Vec<MatchOutcome> = (0..6).map(|i| play_match(&s, &eval, i)).collect();
    for (i, (a, b)) in own.iter().zip(&swapped).enumerate() {
        // Match 2p with A's table on A equals match 2p + 1 mirrored, where the
        // same table sits in the same seat.
        let j = i ^ 1;
        assert_eq!(a.points, -swapped[j].points, "{i}: {a:?} {b:?}");
    }
}

#[test]
fn jump_match_with_auto_sigma_plays_reproducible_matches() {
    let met = MatchEquityTable::kazaross_xg2();
    let eval = nets();
    let s = spec(&met, "jump-match:sigma=auto", "janowski-match:x=0.68", 3);
    for i in 0..4 {
        let m = play_match(&s, &eval, i);
        assert_eq!(m, play_match(&s, &eval, i));
        assert!(m.points == 1 || m.points == -1, "{m:?}");
    }
    let fixed = spec(&met, "jump-match:sigma=0.09", "janowski-match:x=0.68", 3);
    assert_eq!(simulate(&fixed, &eval, 2), simulate(&fixed, &eval, 2));
}

/// Calibration of `jump-match:sigma=auto` (run by hand, release build: `cargo test
/// -p bgfarm-engine --release --lib -- --ignored position_sigma_calibration
/// --nocapture`): greedy 0-ply self-play with the built-in nets; Higgins's estimator
/// (mean |dP| between a player's consecutive turns, P in the windows) against the
/// mean of `position_sigma` over the same turns.
#[test]
#[ignore]
fn position_sigma_calibration() {
    use crate::cube::volatility::{in_window, position_sigma, VolatilityStats};
    use crate::eval::{after_move, terminal_probs};
    use crate::movegen::MoveGenerator;
    use crate::position::Position;
    let eval = nets();
    let mut gen = MoveGenerator::new();
    let mut stats = VolatilityStats::default();
    let (mut sum, mut n) = (0.0, 0u64);
    for g in 0..300 {
        let mut rng = Rng::for_stream(11, g);
        let mut pos = Position::STARTING;
        let mut last: [Option<f64>; 2] = [None, None];
        let mut side = 0usize;
        let mut dice = loop {
            let d = rng.roll();
            if !d.is_double() {
                break d;
            }
        };
        loop {
            let p = f64::from(eval.evaluate(&pos).sanitized().win_prob());
            if let Some(prev) = last[side] {
                stats.add(prev, p);
            }
            last[side] = Some(p);
            if in_window(p) {
                sum += position_sigma(&eval, &pos, &mut gen);
                n += 1;
            }
            let moves: Vec<_> = gen.generate(&pos, dice).to_vec();
            if moves.is_empty() {
                pos = pos.switch_sides();
            } else {
                let best = moves
                    .iter()
                    .max_by(|a, b| {
                        after_move(&eval, a)
                            .equity()
                            .total_cmp(&after_move(&eval, b).equity())
                    })
                    .map(|m| m.next_position());
                pos = best.unwrap_or(pos);
                if terminal_probs(&pos).is_some() {
                    break;
                }
            }
            side = 1 - side;
            dice = rng.roll();
        }
    }
    println!(
        "self-play sigma {:.4} ± {:.4} over {} turn pairs; mean position_sigma {:.4} over {n} turns",
        stats.sigma().unwrap_or(f64::NAN),
        stats.se().unwrap_or(f64::NAN),
        stats.count,
        sum / n.max(1) as f64
    );
}
