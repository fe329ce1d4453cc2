//! A positions file, one position per line, as `bgfarm rollout --positions`,
//! `bgfarm hint --positions` and `bgfarm cube --positions` read it.
//!
//! Each line is `POSITION [DICE [MOVES]]`: a position ID (optionally `ID:MATCHID`)
//! or an XGID, then optionally a roll and the moves of it (`all`, `top:N` or moves
//! in notation separated by commas). A line without DICE whose XGID or match ID has
//! dice rolled takes those (`XGID=...:52:...` is the 52 to play, as eXtreme Gammon
//! and GNU Backgammon export it), and MOVES may then follow the ID directly; DICE on
//! the line wins over the ID's. Empty lines and lines starting with `#` are
//! skipped. What each command does with the dice and moves is its own.

use crate::cli::input::{parse_position, PositionInput};
use crate::cli::CliError;
use bgfarm_engine::Dice;
use serde::Serialize;
use std::path::Path;

/// The JSON a command prints for its positions: with a positions file (`list`)
/// one object `{"positions": [...]}`, else the one position's object.
pub fn json_text<T: Serialize>(list: bool, outs: Vec<T>) -> Result<String, CliError> {
    #[derive(Serialize)]
    struct List<T> {
        positions: Vec<T>,
    }
    let text = match (list, outs.as_slice()) {
        (false, [one]) => serde_json::to_string(one)?,
        _ => serde_json::to_string(&List { positions: outs })?,
    };
    Ok(text)
}

/// One line of the file.
#[derive(Clone)]
pub struct Line {
    /// The position as written.
    pub typed: String,
    pub input: PositionInput,
    pub dice: Option<Dice>,
    pub moves: Option<String>,
    /// Its line number in the file.
    pub number: usize,
}

/// Reads the positions file; an error names the file and the line.
pub fn read(path: &Path) -> Result<Vec<Line>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = |e: &dyn std::fmt::Display| {
            CliError::msg(format!("{}: line {}: {e}", path.display(), i + 1))
        };
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let mut parts = raw.splitn(3, char::is_whitespace);
        let typed = parts.next().unwrap_or_default().to_string();
        let input = parse_position(&typed).map_err(|e| at(&e))?;
        if input.position.game_over() {
            return Err(at(&"the game in this position is over"));
        }
        let second = parts.next().map(str::trim).filter(|d| !d.is_empty());
        let rest = parts.next().map(str::trim).filter(|m| !m.is_empty());
        let (dice, moves) = match (second, input.dice) {
            (None, from_id) => (from_id, None),
            (Some(d), from_id) => match (Dice::parse(d), from_id) {
                (Ok(dice), _) => (Some(dice), rest.map(str::to_string)),
                // Not a roll: with the ID's dice it starts the moves.
                (Err(_), Some(id_dice)) => {
                    let moves = raw[typed.len()..].trim().to_string();
                    (Some(id_dice), Some(moves))
                }
                (Err(e), None) => return Err(at(&e)),
            },
        };
        lines.push(Line {
            typed,
            input,
            dice,
            moves,
            number: i + 1,
        });
    }
    if lines.is_empty() {
        return Err(CliError::msg(format!(
            "{}: no position in the file",
            path.display()
        )));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `text` written to a file of its own, read back.
    fn read_text(text: &str) -> Result<Vec<Line>, CliError> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let k = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "bgfarm-position-list-{}-{k}.txt",
            std::process::id()
        ));
        std::fs::write(&path, text).expect("write the test file");
        let got = read(&path);
        let _ = std::fs::remove_file(&path);
        got
    }

    #[test]
    fn lines_give_position_dice_and_moves() {
        let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10";
        let text = format!(
            "# comment\n\n4HPwATDgc/ABMA\n4HPwATDgc/ABMA 31\n4HPwATDgc/ABMA 31 8/5 6/5\n{xgid}\n{xgid} 24/22 13/8\n"
        );
        let lines = read_text(&text).expect("a good file");
        let seen: Vec<(usize, Option<String>, Option<&str>)> = lines
            .iter()
            .map(|l| (l.number, l.dice.map(|d| d.to_string()), l.moves.as_deref()))
            .collect();
        let (d31, d52) = (
            Dice::parse("31").map(|d| d.to_string()).ok(),
            Dice::parse("52").map(|d| d.to_string()).ok(),
        );
        assert_eq!(
            seen,
            vec![
                (3, None, None),
                (4, d31.clone(), None),
                (5, d31, Some("8/5 6/5")),
                (6, d52.clone(), None),
                (7, d52, Some("24/22 13/8")),
            ]
        );
        for (text, needle) in [
            ("# only a comment\n", "no position"),
            ("4HPwATDgc/ABMA 71\n", "line 1"),
            ("\nnot-an-id 31\n", "line 2"),
        ] {
            let err = read_text(text).map(|_| ()).expect_err(text).to_string();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any text, IDs and rolls among the noise: a list or an error naming the
        /// file, never a panic.
        #[test]
        fn any_text_is_read_or_refused(
            lines in prop::collection::vec(
                prop_oneof![
                    ".{0,40}",
                    "(4HPwATDgc/ABMA|sM/BATBmzsIBMA|XGID=[-a-oA-O]{26}:0:0:1:[0-6]{2}:0:0:0:0:10)( [0-7]{2}( .{0,12})?)?",
                ],
                0..8,
            )
        ) {
            let text = lines.join("\n");
            match read_text(&text) {
                Ok(read) => prop_assert!(!read.is_empty()),
                Err(e) => prop_assert!(e.to_string().contains("bgfarm-position-list-")),
            }
        }
    }
}
