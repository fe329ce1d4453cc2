//! Unit tests of [`super`].

use super::*;
use crate::eval::bearoff::BearoffDb;
use crate::ids::position_id;

fn one() -> &'static OneSidedDb {
    BearoffDb::global().one_sided()
}

fn side(points: &[(usize, u8)]) -> Side {
    let mut s = [0u8; 24];
    for &(point, n) in points {
        s[point - 1] = n;
    }
    s
}

/// A lone checker on the 7-point is off in one roll when the roll carries it 7
/// pips: the 18 non-doubles of sum 7 or more (1-6, 2-5, 2-6, 3-4, 3-5, 3-6, 4-5,
/// 4-6, 5-6, each two ways) and 2-2 to 6-6 (5 more): 23/36. Otherwise it is home
/// and off on the next roll unless that one is short too, so never after 3.
#[test]
fn a_lone_checker_on_the_seven_point_by_hand() {
    let d = rolls_distribution(one(), &side(&[(7, 1)]), 100).unwrap();
    assert!((d[1] - 23.0 / 36.0).abs() < 1e-6, "{}", d[1]);
    assert!(d[2] > 0.3 && d[2] < 13.0 / 36.0, "{}", d[2]);
    assert!((d.iter().sum::<f64>() - 1.0).abs() < 1e-6);
    assert!(d[4..].iter().all(|&p| p == 0.0));
}

/// A side already home gets the one-sided table's distribution.
#[test]
fn home_sides_are_the_table() {
    let s = side(&[(6, 3), (4, 5), (1, 7)]);
    let d = rolls_distribution(one(), &s, 0).unwrap();
    let mut home = [0u8; POINTS];
    home.copy_from_slice(&s[..POINTS]);
    let t = one().distribution(&home).unwrap();
    for (n, &p) in t.iter().enumerate() {
        assert!((d[n] - f64::from(p)).abs() < 1e-7, "{n}");
    }
}

/// Dominated positions by hand: one checker on the 7-point has only itself
/// outside, one on the 8-point itself and the 7-point; two on the 7-point: both
/// there, or one there and the other on one of the 6 home points or off (7).
/// Home sides have none. The limit gates the search: over it, `None`.
#[test]
fn dominated_positions_by_hand() {
    assert_eq!(dominated_count(&side(&[(7, 1)])), 1);
    assert_eq!(dominated_count(&side(&[(8, 1)])), 2);
    assert_eq!(dominated_count(&side(&[(7, 2)])), 8);
    assert_eq!(dominated_count(&side(&[(6, 15)])), 0);
    assert_eq!(rolls_distribution(one(), &side(&[(7, 2)]), 7), None);
    assert!(rolls_distribution(one(), &side(&[(7, 2)]), 8).is_some());
    assert_eq!(rolls_distribution(one(), &side(&[(7, 16)]), u64::MAX), None);
}

/// A warm memo and a cold one give the same bits: values depend on the side
/// only, so sharing the memo between queries never changes a result.
#[test]
fn memo_state_never_changes_a_value() {
    let s = side(&[(9, 1), (8, 2), (6, 5), (3, 4), (1, 3)]);
    let cold = rolls_distribution(one(), &s, 1_000_000).unwrap();
    // Another query fills the memo with overlapping sides; then ask again.
    let _ = rolls_distribution(one(), &side(&[(9, 2), (7, 1), (6, 12)]), 1_000_000);
    let warm = rolls_distribution(one(), &s, 1_000_000).unwrap();
    assert_eq!(cold.map(f64::to_bits), warm.map(f64::to_bits));
    MEMO.with(|m| m.borrow_mut().clear());
    let again = rolls_distribution(one(), &s, 1_000_000).unwrap();
    assert_eq!(cold.map(f64::to_bits), again.map(f64::to_bits));
}

/// One checker on the 7-point and 14 on the 6-point: the first checker is off at
/// once with 17 of 36 rolls (6-x bringing the straggler in with x bearing off, a
/// sum of 7 landing it on the other die's point, 2-2, 3-3, 6-6: see
/// `gammon_save`'s tests); the other 19/36 of the mass comes later. Against a
/// finisher that is off in one roll, the saver on roll is gammoned 19/36 of the
/// time; the finisher on roll wins the gammon for sure.
#[test]
fn first_off_and_gammons_by_hand() {
    let saver = side(&[(7, 1), (6, 14)]);
    let d = first_off_distribution(one(), &saver, 100_000).unwrap();
    assert!((d[1] - 17.0 / 36.0).abs() < 1e-6, "{}", d[1]);
    assert!((d[2..].iter().sum::<f64>() - 19.0 / 36.0).abs() < 1e-6);
    assert_eq!(d[0], 0.0);
    assert_eq!(
        first_off_distribution(one(), &side(&[(7, 1), (6, 13)]), 100_000),
        None
    );
    let mut m = [0u8; 25];
    let mut o = [0u8; 25];
    m[6] = 1;
    m[5] = 14;
    o[0] = 1;
    let pos = Position::from_arrays(&m, &o).unwrap();
    let (win_g, lose_g) = race_gammons(one(), &pos, 100_000);
    assert!((lose_g.unwrap() - 19.0 / 36.0).abs() < 1e-6, "{lose_g:?}");
    // The finisher has a checker off already: the saver cannot win a gammon.
    assert_eq!(win_g, None);
    let (win_g, _) = race_gammons(one(), &pos.switch_sides(), 100_000);
    assert!((win_g.unwrap() - 1.0).abs() < 1e-6, "{win_g:?}");
}

/// A home side's first-off distribution is the table's.
#[test]
fn home_first_off_is_the_table() {
    let s = side(&[(6, 3), (4, 5), (1, 7)]);
    let d = first_off_distribution(one(), &s, 0).unwrap();
    let mut home = [0u8; POINTS];
    home.copy_from_slice(&s[..POINTS]);
    let t = one().first_off_distribution(&home).unwrap();
    for (n, &p) in t.iter().enumerate() {
        assert!((d[n] - f64::from(p)).abs() < 1e-7, "{n}");
    }
}

/// GNU Backgammon's bench race `768AAMB9IQARAA` 6-5 (60 pips with checkers on
/// the 20, 17 and 7 points against 25): GNU 2-ply's best play leaves the mover
/// 0.0228 to win, the next ones 0.0215 and 0.0212. The search gives its best
/// 0.0204 and ranks it first, where the race net's choice (17/6) cost 0.0032;
/// with the search the evaluator's 0-ply choice is GNU Backgammon's.
#[test]
fn the_bench_race_768a() {
    let parent = position_id::decode("768AAMB9IQARAA").unwrap();
    let moves = crate::movegen::legal_moves(&parent, crate::dice::Dice::new(6, 5).unwrap());
    let win = |id: &str| {
        let next = position_id::decode(id).unwrap();
        1.0 - race_win(one(), &next, 1_000_000).unwrap()
    };
    let best = win("94UQAuD9FQAAAA");
    assert!((best - 0.0228).abs() < 0.003, "{best}");
    for m in &moves {
        let id = position_id::encode(&m.next_position());
        assert!(win(&id) <= best + 1e-9, "{id}");
    }
    let mut eval = crate::testutil::default_nets();
    let exact = crate::eval::race::exact::ExactRace::new(BearoffDb::global(), one(), 1_000_000);
    eval.endgame = Some(&exact);
    let i = crate::eval::Evaluator::choose_index(&eval, &parent, &moves).unwrap();
    assert_eq!(
        position_id::encode(&moves[i].next_position()),
        "94UQAuD9FQAAAA"
    );
    let p = crate::eval::Evaluator::evaluate(&eval, &moves[i].next_position()).0;
    assert!((1.0 - p[0] - best as f32).abs() < 1e-6, "{p:?}");
}
