//! Unit tests of [`super`].

use super::*;

fn money(owner: Owner) -> CubeSpot<'static> {
    CubeSpot::Money {
        cube: Cube { value: 1, owner },
        jacoby: false,
    }
}

#[test]
fn three_way_rule() {
    assert_eq!(
        CubeDecision::from_equities(0.3, 0.2, 1.0),
        CubeDecision::NoDouble
    );
    assert_eq!(
        CubeDecision::from_equities(0.5, 0.6, 1.0),
        CubeDecision::DoubleTake
    );
    assert_eq!(
        CubeDecision::from_equities(0.8, 1.2, 1.0),
        CubeDecision::DoublePass
    );
    assert_eq!(
        CubeDecision::from_equities(1.1, 1.4, 1.0),
        CubeDecision::TooGood
    );
    assert_eq!(
        CubeDecision::from_equities(1.0, 1.0, 1.0),
        CubeDecision::DoublePass
    );
}

#[test]
fn gammonless_money_decisions_follow_the_points() {
    let model = CubeModel::JanowskiMoney { x: 0.68 };
    let spot = money(Owner::Centred);
    let weak = model.analyse(&GameOdds::gammonless(0.6), &spot);
    assert_eq!(weak.decision, CubeDecision::NoDouble);
    let a = model.analyse(&GameOdds::gammonless(0.74), &spot);
    assert_eq!(a.decision, CubeDecision::DoubleTake, "{a:?}");
    let cp = a.cash_point.unwrap();
    assert!((cp - janowski::cash_point(1.0, 1.0, 0.68)).abs() < 1e-12);
    let b = model.analyse(&GameOdds::gammonless(cp + 0.001), &spot);
    assert_eq!(b.decision, CubeDecision::DoublePass);
    assert_eq!(b.equity(), 1.0);
    // The opponent owning the cube: no cube action, and no cash point.
    let c = model.analyse(&GameOdds::gammonless(0.9), &money(Owner::Opponent));
    assert_eq!(c.decision, CubeDecision::Unavailable);
    assert_eq!((c.double_take, c.cash_point), (None, None));
    assert!(c.take_point.is_some());
    // Dead cube: the initial double point is 50% for a take (DT = 2 D = ND at
    // p = 1/2 gammonless).
    let dead = CubeModel::JanowskiMoney { x: 0.0 };
    assert!(dead.analyse(&GameOdds::gammonless(0.51), &spot).doubles());
    assert!(!dead.analyse(&GameOdds::gammonless(0.49), &spot).doubles());
}

#[test]
fn too_good_with_many_gammons() {
    let model = CubeModel::JanowskiMoney { x: 0.68 };
    let odds = GameOdds {
        p: 0.9,
        win_gammon: 0.7,
        win_backgammon: 0.0,
        lose_gammon: 0.0,
        lose_backgammon: 0.0,
    };
    let a = model.analyse(&odds, &money(Owner::Centred));
    assert_eq!(a.decision, CubeDecision::TooGood, "{a:?}");
    assert!(a.equity() > 1.0);
    assert!(!a.opponent_takes());
}

#[test]
fn jump_model_decisions_use_its_points() {
    let model = CubeModel::Jump { sigma: 0.096 };
    let spot = money(Owner::Centred);
    let a = model.analyse(&GameOdds::gammonless(0.5), &spot);
    let tp = a.take_point.unwrap();
    assert!((tp - jump::take_point(1.0, 1.0, 0.096)).abs() < 1e-12);
    let cp = a.cash_point.unwrap();
    assert!(model.takes(&GameOdds::gammonless(cp - 0.01), &spot));
    assert!(!model.takes(&GameOdds::gammonless(cp + 0.01), &spot));
}

#[test]
fn match_cash_points_at_two_away_four_away() {
    // 2-away vs 4-away, gammonless, cube centred, leader on roll. After a double
    // the trailer owns the 2-cube; losing 2 points leaves 2-away/2-away (0.5).
    // Dead cube (x = 0): DT = p + (1 - p) / 2 = ME(1a, 4a) gives
    // CP = 2 * 0.81436 - 1 = 0.62872. Live cube (x = 1): the trailer redoubles to
    // 4 whenever it is behind, the game decides the match, DT = max(1/2, p) and
    // CP = ME(1a, 4a) = 0.81436, GNU Backgammon's dead-level cash point.
    let met = MatchEquityTable::kazaross_xg2();
    let score = MatchScore::new(2, 4, false).unwrap();
    let spot = CubeSpot::Match {
        cube: Cube::INITIAL,
        score,
        met: &met,
    };
    for (x, want) in [(0.0, 0.62872), (1.0, 0.81436)] {
        let a = CubeModel::JanowskiMatch { x }.analyse(&GameOdds::gammonless(0.6), &spot);
        let cp = a.cash_point.unwrap();
        assert!((cp - want).abs() < 1e-6, "x {x}: {cp}");
        assert_eq!(a.double_pass, Some(0.81436));
        assert_eq!(a.units, Units::Mwc);
    }
    let mid = CubeModel::JanowskiMatch { x: 0.68 }.analyse(&GameOdds::gammonless(0.6), &spot);
    let cp = mid.cash_point.unwrap();
    assert!(cp > 0.62872 && cp < 0.81436, "{cp}");
}

#[test]
fn match_legality() {
    let met = MatchEquityTable::kazaross_xg2();
    let odds = GameOdds::gammonless(0.7);
    let model = CubeModel::JanowskiMatch { x: 0.68 };
    let at = |a, b, crawford, cube| {
        let score = MatchScore::new(a, b, crawford).unwrap();
        model.analyse(
            &odds,
            &CubeSpot::Match {
                cube,
                score,
                met: &met,
            },
        )
    };
    // Crawford game: no doubling, cubeless value.
    let c = at(1, 3, true, Cube::INITIAL);
    assert_eq!(c.decision, CubeDecision::Unavailable);
    assert_eq!(c.no_double, c.cubeless);
    // Post-Crawford: the leader may not double; the trailer may.
    assert_eq!(
        at(1, 3, false, Cube::INITIAL).decision,
        CubeDecision::Unavailable
    );
    assert!(at(3, 1, false, Cube::INITIAL).double_take.is_some());
    // A cube that is dead for the player on roll.
    let owned = Cube {
        value: 2,
        owner: Owner::Mover,
    };
    assert_eq!(at(2, 5, false, owned).decision, CubeDecision::Unavailable);
    // Money Janowski in a match keeps the match's legality but money values.
    let money = CubeModel::JanowskiMoney { x: 0.68 };
    let score = MatchScore::new(1, 3, true).unwrap();
    let spot = CubeSpot::Match {
        cube: Cube::INITIAL,
        score,
        met: &met,
    };
    let m = money.analyse(&odds, &spot);
    assert_eq!(m.decision, CubeDecision::Unavailable);
    assert_eq!(m.units, Units::Money);
}

#[test]
fn long_match_resembles_money() {
    // At 25-away/25-away with the cube on 1, match Janowski's points on a
    // gammonless game look like money's (Janowski at x = 0.68: 21.4% / 78.6%),
    // and 60% is no double in both.
    let met = MatchEquityTable::kazaross_xg2();
    let score = MatchScore::new(25, 25, false).unwrap();
    let spot = CubeSpot::Match {
        cube: Cube::INITIAL,
        score,
        met: &met,
    };
    let a = CubeModel::JanowskiMatch { x: 0.68 }.analyse(&GameOdds::gammonless(0.6), &spot);
    let (tp, cp) = (a.take_point.unwrap(), a.cash_point.unwrap());
    assert!((tp - 0.214).abs() < 0.03, "{tp}");
    assert!((cp - 0.786).abs() < 0.03, "{cp}");
    assert_eq!(a.decision, CubeDecision::NoDouble);
}

#[test]
fn jump_match_take_point_at_five_away_five_away() {
    // Kazaross-XG2, gammonless, 5-away/5-away, cube 1, sigma = 0.08 (worked in
    // `cube::jump_match`'s docs): the taker owning the 2-cube has cashes
    // ME(3a, 5a) = 0.64795 and ME(5a, 3a) = 0.35205 (mid 0.5, half 0.14795), W = L
    // = 1, owned slope 2.5 - 1.5625 x 0.08 = 2.375; a pass leaves ME(5a, 4a) =
    // 0.42268. Take point: 0.5 + 0.14795 (-1 + 2.375 p) = 0.42268, p = 0.201006
    // (money's, same sigma: 0.210526).
    let met = MatchEquityTable::kazaross_xg2();
    let spot = CubeSpot::Match {
        cube: Cube::INITIAL,
        score: MatchScore::new(5, 5, false).unwrap(),
        met: &met,
    };
    let model = CubeModel::JumpMatch { sigma: 0.08 };
    let a = model.analyse(&GameOdds::gammonless(0.5), &spot);
    let tp = a.take_point.unwrap();
    assert!((tp - 0.201_006_7).abs() < 1e-6, "{tp}");
    assert_eq!(a.units, Units::Mwc);
    // Symmetric score and odds: the cash point is one minus the take point.
    assert!((a.cash_point.unwrap() - (1.0 - tp)).abs() < 1e-6);
    // The opponent's double at p just above / below it: take / pass.
    let doubler = |p: f64| GameOdds::gammonless(1.0 - p);
    assert!(model.takes(&doubler(tp + 0.001), &spot));
    assert!(!model.takes(&doubler(tp - 0.001), &spot));
    // In money play it is the money jump model.
    let m = CubeModel::JumpMatch { sigma: 0.08 }
        .analyse(&GameOdds::gammonless(0.5), &money(Owner::Centred));
    let j =
        CubeModel::Jump { sigma: 0.08 }.analyse(&GameOdds::gammonless(0.5), &money(Owner::Centred));
    assert_eq!(m, j);
}

#[test]
fn decide_agrees_with_analyse() {
    let met = MatchEquityTable::kazaross_xg2();
    let mut spots = vec![
        CubeSpot::Money {
            cube: Cube::INITIAL,
            jacoby: true,
        },
        CubeSpot::Money {
            cube: Cube {
                value: 2,
                owner: Owner::Mover,
            },
            jacoby: false,
        },
    ];
    for (a, b, crawford) in [(3, 5, false), (1, 4, true), (4, 1, false), (9, 9, false)] {
        spots.push(CubeSpot::Match {
            cube: Cube::INITIAL,
            score: MatchScore::new(a, b, crawford).unwrap(),
            met: &met,
        });
    }
    let models = [
        CubeModel::JanowskiMoney { x: 0.68 },
        CubeModel::JanowskiMatch { x: 0.5 },
        CubeModel::Jump { sigma: 0.09 },
        CubeModel::JumpMatch { sigma: 0.09 },
    ];
    for spot in &spots {
        for model in models {
            for i in 0..=20 {
                let odds = GameOdds::with_gammon_rate(f64::from(i) / 20.0, 0.15);
                assert_eq!(
                    model.decide(&odds, spot),
                    model.analyse(&odds, spot).decision,
                    "{model:?} {spot:?} {i}"
                );
            }
        }
    }
}
