//! The text parsers as fuzz targets: each takes any bytes, must return (Ok or a
//! clear error) without panicking, and where it accepts an input, what it read
//! must survive a round trip through its writer (the property that catches a
//! parser accepting what it misreads).

use bgfarm_engine::ids::fibs_board::{FibsBoard, FibsSide};
use bgfarm_engine::ids::match_id::MatchState;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::ids::xgid::Xgid;
use bgfarm_engine::matchfile::{mat, sgf};
use bgfarm_engine::met::xml;
use bgfarm_engine::notation::{format_move, parse_move};
use bgfarm_engine::{Dice, Position};

fn text(input: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(input)
}

pub fn position_id(input: &[u8]) -> bool {
    let Ok(pos) = position_id::decode(&text(input)) else {
        return false;
    };
    let again = position_id::decode(&position_id::encode(&pos));
    assert_eq!(
        again.ok(),
        Some(pos),
        "a decoded position re-encodes to itself"
    );
    true
}

pub fn match_id(input: &[u8]) -> bool {
    let Ok(m) = MatchState::decode(&text(input)) else {
        return false;
    };
    assert_eq!(MatchState::decode(&m.encode()).ok(), Some(m));
    let _ = m.away();
    true
}

pub fn xgid(input: &[u8]) -> bool {
    let Ok(x) = Xgid::parse(&text(input)) else {
        return false;
    };
    let _ = position_id::encode(&x.position_on_roll());
    true
}

pub fn dice(input: &[u8]) -> bool {
    let Ok(d) = Dice::parse(&text(input)) else {
        return false;
    };
    let (a, b) = d.values();
    assert!((1..=6).contains(&a) && (1..=6).contains(&b), "{d:?}");
    true
}

/// Positions and rolls a move is parsed against: the opening, a bar entry, a
/// bear-off (the first byte of the input picks one).
const BOARDS: [(&str, u8, u8); 4] = [
    ("4HPwATDgc/ABMA", 3, 1),
    ("4HPwATDgc/ABMA", 6, 6),
    ("AAAAbdsGAOAAAA", 3, 1),
    ("2+4OAADb9gAAAA", 6, 5),
];

pub fn chequer_move(input: &[u8]) -> bool {
    let Some((&pick, rest)) = input.split_first() else {
        return false;
    };
    let (id, d1, d2) = BOARDS[usize::from(pick) % BOARDS.len()];
    let (Ok(pos), Some(dice)) = (position_id::decode(id), Dice::new(d1, d2)) else {
        panic!("the fixed boards are valid");
    };
    let Ok(m) = parse_move(&pos, dice, &text(rest)) else {
        return false;
    };
    // What the parser accepted is a legal play, written back and read again.
    let written = format_move(&m);
    let again = parse_move(&pos, dice, &written);
    assert_eq!(
        again.map(|a| a.next_position()).ok(),
        Some(m.next_position()),
        "{written}"
    );
    true
}

pub fn met_xml(input: &[u8]) -> bool {
    xml::parse(&text(input)).is_ok()
}

pub fn fibs_board(input: &[u8]) -> bool {
    let Ok(b) = FibsBoard::parse(&text(input)) else {
        return false;
    };
    for side in [FibsSide::Player, FibsSide::Opponent] {
        let _ = b
            .position_for(side)
            .map(|p: Position| position_id::encode(&p));
        let _ = b.dice_of(side);
        let _ = b.checkers_of(side);
    }
    let _ = b.side_on_turn();
    true
}

/// A match file is read whole: every move checked against the move generator,
/// the scores and the cube followed to the end.
pub fn sgf(input: &[u8]) -> bool {
    sgf::parse(&text(input)).is_ok()
}

pub fn mat(input: &[u8]) -> bool {
    mat::parse(&text(input)).is_ok()
}

/// The corpus of the match readers: two matches GNU Backgammon saved and exported
/// (tests/data/matches/).
pub const SGF_SAMPLE: &str = include_str!("../../../../tests/data/matches/five-point.sgf");
pub const MAT_SAMPLES: [&str; 2] = [
    include_str!("../../../../tests/data/matches/three-point.mat"),
    include_str!("../../../../tests/data/matches/five-point.mat"),
];

pub const MET_SAMPLE: &str = r#"<?xml version="1.0" encoding="ISO-8859-1" ?>
<met>
  <info><name>Fuzz &amp; seed</name><description>three scores</description><length>3</length></info>
  <pre-crawford-table type="explicit">
    <row> <me>0.5</me> <me>0.7</me> <me>0.75</me> </row>
    <row> <me>0.3</me> <me>0.5</me> <me>0.6</me> </row>
    <row> <me>0.25</me> <me>0.4</me> <me>0.5</me> </row>
  </pre-crawford-table>
  <post-crawford-table type="explicit" player="both">
    <row> <me>0.5</me> <me>0.49</me> <me>0.32</me> </row>
  </post-crawford-table>
</met>
"#;
