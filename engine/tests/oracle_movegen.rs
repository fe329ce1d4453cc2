//! Legal moves against GNU Backgammon's: every line of the oracle's movegen.jsonl
//! (3000 positions) must give exactly the listed set of result position IDs, the
//! listed number of dice played, and the tags that depend on move generation.

use bgfarm_engine::ids::position_id;
use bgfarm_engine::{Dice, MoveGenerator};
use serde::Deserialize;

#[derive(Deserialize)]
struct Line {
    pos: String,
    dice: [u8; 2],
    nmoves: usize,
    dice_played: u8,
    tags: Vec<String>,
    results: Vec<String>,
}

#[derive(Deserialize)]
struct BoardLine {
    pos: String,
    board: [Vec<u8>; 2],
    pips: [u32; 2],
    off: [u8; 2],
}

const MOVEGEN: &str = include_str!("../testdata/oracle/movegen.jsonl");
const BOARDS: &str = include_str!("../testdata/oracle/boards.jsonl");

#[test]
fn all_3000_oracle_positions_match_exactly() {
    let mut gen = MoveGenerator::new();
    let mut mismatches = Vec::new();
    let mut lines = 0;
    for raw in MOVEGEN.lines() {
        let line: Line = serde_json::from_str(raw).expect("oracle line parses");
        lines += 1;
        let pos = position_id::decode(&line.pos).expect("oracle position decodes");
        let dice = Dice::new(line.dice[0], line.dice[1]).expect("oracle dice");
        let moves = gen.generate(&pos, dice);
        let mut got: Vec<String> = moves
            .iter()
            .map(|m| position_id::encode(&m.next_position()))
            .collect();
        got.sort();
        let played = if moves.is_empty() {
            0
        } else {
            gen.dice_played()
        };
        let hits = gen.moves().iter().any(|m| m.steps().iter().any(|s| s.hit));
        let bears = gen
            .moves()
            .iter()
            .any(|m| m.steps().iter().any(|s| s.to == 0));
        let tag = |t: &str| line.tags.iter().any(|x| x == t);
        if got != line.results
            || got.len() != line.nmoves
            || played != line.dice_played
            || hits != tag("hit")
            || bears != tag("bearoff")
            || pos.has_contact() != tag("contact")
        {
            mismatches.push(format!(
                "{} {:?}: got {} moves ({} dice), want {} ({} dice)",
                line.pos,
                line.dice,
                got.len(),
                played,
                line.nmoves,
                line.dice_played
            ));
        }
    }
    assert_eq!(lines, 3000);
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn position_ids_decode_to_the_oracle_boards() {
    let mut n = 0;
    for raw in BOARDS.lines() {
        let line: BoardLine = serde_json::from_str(raw).expect("boards line parses");
        let pos = position_id::decode(&line.pos).expect("decodes");
        let (mover, opp) = pos.to_arrays();
        assert_eq!(opp.to_vec(), line.board[0], "{}", line.pos);
        assert_eq!(mover.to_vec(), line.board[1], "{}", line.pos);
        let (pm, po) = pos.pip_counts();
        assert_eq!([po, pm], line.pips, "{}", line.pos);
        assert_eq!(
            [pos.opponent_off(), pos.mover_off()],
            line.off,
            "{}",
            line.pos
        );
        assert_eq!(position_id::encode(&pos), line.pos);
        n += 1;
    }
    assert_eq!(n, 3000);
}
