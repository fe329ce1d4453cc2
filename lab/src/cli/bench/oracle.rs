//! GNU Backgammon's oracle bench (`engine/testdata/oracle/bench.jsonl`, its
//! README section 4): 1000 positions with GNU Backgammon's 0- and 2-ply equity of
//! every legal play. Reading it and scoring a play against its 2-ply values is what
//! `bench hint` and `bench race-referee` share.

use crate::cli::CliError;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::{Dice, Position};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The bench file, relative to the workspace root.
pub const DEFAULT_FILE: &str = "engine/testdata/oracle/bench.jsonl";
/// The position classes of the bench file.
pub const CLASSES: [&str; 3] = ["contact", "crashed", "race"];

/// One line of the bench file.
#[derive(Deserialize)]
pub struct Line {
    pub pos: String,
    pub dice: [u8; 2],
    pub class: String,
    pub gnubg_choice: String,
    /// Every legal play, GNU Backgammon 2-ply's best first.
    pub moves: Vec<BenchMove>,
}

/// A play of a bench line: the position it leads to (ID) and GNU Backgammon's
/// 0-ply and 2-ply equities of it.
#[derive(Deserialize)]
pub struct BenchMove {
    pub result: String,
    pub eq0: f64,
    pub eq2: f64,
}

/// A bench position ready to search.
pub struct Case {
    pub line: Line,
    pub pos: Position,
    pub dice: Dice,
}

/// The bench file: as given, or (for the default path) next to the sources.
pub fn bench_file(path: &Path) -> PathBuf {
    if path.exists() || path != Path::new(DEFAULT_FILE) {
        return path.to_path_buf();
    }
    // This crate sits one level below the workspace root.
    let lab = Path::new(env!("CARGO_MANIFEST_DIR"));
    lab.parent().unwrap_or(lab).join(DEFAULT_FILE)
}

pub fn read_cases(
    path: &Path,
    class: Option<&str>,
    limit: Option<usize>,
) -> Result<Vec<Case>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
    let mut cases = Vec::new();
    for (i, l) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = |m: String| CliError::msg(format!("{} line {}: {m}", path.display(), i + 1));
        let line: Line = serde_json::from_str(l).map_err(|e| at(e.to_string()))?;
        if class.is_some_and(|c| c != line.class) {
            continue;
        }
        let pos = position_id::decode(&line.pos).map_err(|e| at(e.to_string()))?;
        let dice = Dice::new(line.dice[0], line.dice[1])
            .ok_or_else(|| at(format!("impossible dice {:?}", line.dice)))?;
        if line.moves.is_empty() {
            return Err(at("no moves listed".into()));
        }
        cases.push(Case { line, pos, dice });
        if limit.is_some_and(|n| cases.len() >= n) {
            break;
        }
    }
    Ok(cases)
}

/// GNU Backgammon 0-ply's choice: the play (the position it leads to) with the best
/// `eq0` in the file.
pub fn gnubg_0ply_choice(line: &Line) -> Result<String, String> {
    line.moves
        .iter()
        .max_by(|a, b| a.eq0.total_cmp(&b.eq0))
        .map(|m| m.result.clone())
        .ok_or_else(|| format!("{}: no moves listed", line.pos))
}

/// GNU Backgammon's 2-ply loss of the play leading to `result`.
pub fn loss_of(line: &Line, result: &str) -> Result<f64, String> {
    let best = line.moves[0].eq2;
    line.moves
        .iter()
        .find(|m| m.result == result)
        .map(|m| best - m.eq2)
        .ok_or_else(|| {
            format!(
                "{} {:?}: play to {result} is not in the bench's list",
                line.pos, line.dice
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_bench_file_is_found_and_read() {
        let cases = read_cases(&bench_file(Path::new(DEFAULT_FILE)), Some("race"), Some(5))
            .expect("bench file");
        assert_eq!(cases.len(), 5);
        assert!(cases.iter().all(|c| c.line.class == "race"));
        let l = &cases[0].line;
        assert_eq!(loss_of(l, &l.moves[0].result), Ok(0.0));
        assert!(loss_of(l, "nonsense").is_err());
    }
}
