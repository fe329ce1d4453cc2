//! Property tests over random legal positions (many not in the oracle file): the fast
//! generator equals a naive reference, moves conserve checkers and pips, and every
//! text form round-trips.

mod common;

use bgfarm_engine::ids::match_id::{CubeOwner, GameState, MatchState, Resignation};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::ids::xgid::{XgDice, Xgid};
use bgfarm_engine::notation::{format_move, parse_move};
use bgfarm_engine::{Dice, MoveGenerator, Position};
use common::{random_position, reference_results};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn arb_position() -> impl Strategy<Value = Position> {
    (any::<u64>(), 0u8..3).prop_map(|(seed, style)| random_position(seed, style))
}

fn arb_dice() -> impl Strategy<Value = Dice> {
    (1u8..=6, 1u8..=6).prop_map(|(a, b)| Dice::new(a, b).expect("1..=6"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn generator_equals_naive_reference(pos in arb_position(), dice in arb_dice()) {
        let (d1, d2) = dice.values();
        let want = reference_results(&pos, d1, d2);
        let mut gen = MoveGenerator::new();
        let got: BTreeSet<_> = gen.generate(&pos, dice).iter().map(|m| m.result().to_arrays()).collect();
        prop_assert_eq!(got.len(), gen.moves().len(), "duplicate results reported");
        prop_assert_eq!(got, want);
    }

    #[test]
    fn moves_conserve_checkers_and_use_the_dice(pos in arb_position(), dice in arb_dice()) {
        let mut gen = MoveGenerator::new();
        let moves = gen.generate(&pos, dice).to_vec();
        let played = gen.dice_played() as usize;
        let (pips_before, opp_before) = pos.pip_counts();
        for m in &moves {
            let r = m.result();
            prop_assert!(Position::from_pips(*r.pips()).is_ok());
            prop_assert_eq!(r.mover_checkers() + r.mover_off(), 15);
            prop_assert_eq!(r.opponent_checkers(), pos.opponent_checkers());
            prop_assert_eq!(m.steps().len(), played);
            let (d1, d2) = dice.values();
            let mut moved = 0u32;
            for s in m.steps() {
                prop_assert!(s.die == d1 || s.die == d2);
                let dist = u32::from(s.from - s.to);
                if s.to == 0 {
                    prop_assert!(dist <= u32::from(s.die));
                } else {
                    prop_assert_eq!(dist, u32::from(s.die));
                }
                moved += dist;
            }
            let (pips_after, opp_after) = r.pip_counts();
            prop_assert_eq!(pips_before - pips_after, moved);
            let hits = m.steps().iter().filter(|s| s.hit).count() as u32;
            let opp_bar_gain = (r.at(0) - pos.at(0)).unsigned_abs() as u32;
            prop_assert_eq!(hits, opp_bar_gain);
            prop_assert!(opp_after >= opp_before);
            if dice.is_double() {
                prop_assert!(played <= 4);
            } else {
                prop_assert!(played <= 2);
                if played == 2 {
                    let mut ds: Vec<u8> = m.steps().iter().map(|s| s.die).collect();
                    ds.sort_unstable();
                    prop_assert_eq!(ds, vec![d1.min(d2), d1.max(d2)]);
                }
            }
        }
    }

    #[test]
    fn notation_round_trips(pos in arb_position(), dice in arb_dice()) {
        let mut gen = MoveGenerator::new();
        for m in gen.generate(&pos, dice).to_vec() {
            let text = format_move(&m);
            let parsed = parse_move(&pos, dice, &text);
            prop_assert!(parsed.is_ok(), "{} {} {}: {:?}", position_id::encode(&pos), dice, text, parsed);
            let parsed = parsed.expect("checked");
            prop_assert_eq!(parsed.result(), m.result(), "{}", text);
        }
    }

    #[test]
    fn position_id_round_trips(pos in arb_position()) {
        let id = position_id::encode(&pos);
        prop_assert_eq!(id.len(), 14);
        prop_assert_eq!(position_id::decode(&id).expect("own ID decodes"), pos);
        let switched = pos.switch_sides();
        prop_assert_eq!(switched.switch_sides(), pos);
        prop_assert_eq!(switched.pip_counts(), (pos.pip_counts().1, pos.pip_counts().0));
    }

    #[test]
    fn xgid_round_trips(pos in arb_position(), turn in prop::bool::ANY, cube in 0u8..8,
                       owner in -1i8..=1, len in 0u32..26, sx in 0u32..25, so in 0u32..25,
                       dice in prop::option::of(arb_dice())) {
        let (score_x, score_o) = if len == 0 { (sx, so) } else { (sx % len, so % len) };
        let x = Xgid {
            board: pos,
            cube_log2: cube,
            cube_position: owner,
            turn: if turn { 1 } else { -1 },
            dice: dice.map_or(XgDice::NotRolled, |d| XgDice::Rolled(d.values().0, d.values().1)),
            score_x,
            score_o,
            flags: u8::from(len > 0 && turn),
            match_length: len,
            max_cube_log2: 10,
        };
        let text = x.to_string();
        prop_assert_eq!(Xgid::parse(&text).expect("own XGID parses"), x);
    }

    #[test]
    fn match_id_round_trips(cube in 0u32..16, owner in 0u8..3, dice_owner in 0u8..2,
                            crawford in prop::bool::ANY, state in 0u8..5, turn in 0u8..2,
                            doubled in prop::bool::ANY, resign in 0u8..4,
                            dice in prop::option::of((1u8..=6, 1u8..=6)),
                            len in 0u32..64, s0 in 0u32..64, s1 in 0u32..64) {
        let (score, crawford) = if len == 0 { ([s0, s1], false) } else { ([s0 % len, s1 % len], crawford) };
        let m = MatchState {
            cube: 1 << cube,
            cube_owner: if owner == 2 { CubeOwner::Centered } else { CubeOwner::Player(owner) },
            dice_owner,
            crawford,
            game_state: [GameState::NoGame, GameState::Playing, GameState::Over, GameState::Resigned, GameState::Dropped][state as usize],
            turn,
            doubled,
            resignation: [Resignation::None, Resignation::Single, Resignation::Gammon, Resignation::Backgammon][resign as usize],
            dice,
            match_length: len,
            score,
        };
        let id = m.encode();
        prop_assert_eq!(id.len(), 12);
        prop_assert_eq!(MatchState::decode(&id).expect("own match ID decodes"), m);
    }
}
