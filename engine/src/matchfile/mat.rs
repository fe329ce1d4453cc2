//! The match text format (`.mat`, "Jellyfish" format): written by GNU Backgammon's
//! `export match mat`, eXtreme Gammon and backgammon servers.
//!
//! ```text
//! ; [Site "..."]               comment lines, skipped
//!  5 point match               the length (0 for money)
//!
//!  Game 1
//!  Alice : 0                      Bob : 0
//!   1)                             64: 24/18 13/9
//!   2) 62: 24/22 22/16*            51: 25/24 13/8
//!   ...
//!  16)  Doubles => 2                Drops
//!       Wins 1 point
//! ```
//!
//! Each numbered line holds up to two actions, player 0's on the left and player 1's
//! on the right, read left then right: a roll `52: 13/8 13/11` (an empty play when
//! the roll could not be played, or at the end of a game when the roller resigned),
//! `Doubles => 2`, `Takes`, `Drops`. A lone action belongs to the right column when it
//! starts far from the line number. `Wins N point(s)` ends a game, on the side of
//! the winner. The actions are separated by their first word (the dice `52:` or a
//! cube word), not by column, because a long play can fill its column.
//!
//! The format has no rule flags: the Crawford rule is assumed in match play (the
//! Crawford game is the first in which a player needs one point) and the Jacoby rule
//! is not. Every game must end with its `Wins` line: a file that stops inside a game
//! is reported as truncated.

use super::replay::{Played, Replay, Rules};
use super::{Match, MatchFileError};
use crate::dice::Dice;

/// Whether a word starts an action.
fn starts_action(word: &str) -> bool {
    dice_word(word).is_some() || matches!(word, "Doubles" | "Takes" | "Drops" | "Beavers")
}

/// `52:` -> the dice.
fn dice_word(word: &str) -> Option<Dice> {
    let b = word.as_bytes();
    if b.len() != 3 || b[2] != b':' {
        return None;
    }
    let d = |c: u8| c.is_ascii_digit().then(|| c - b'0');
    Dice::new(d(b[0])?, d(b[1])?)
}

/// The actions of a numbered line: each with its byte offset from the `)` and its
/// words.
fn split_actions(rest: &str) -> Vec<(usize, Vec<&str>)> {
    let mut out: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut offset = 0;
    for (k, word) in rest.split(' ').enumerate() {
        if k > 0 {
            offset += 1;
        }
        let at = offset;
        offset += word.len();
        if word.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((_, words)) if !starts_action(word) => words.push(word),
            _ => out.push((at, vec![word])),
        }
    }
    out
}

/// `gnubg : 3      root : 2` -> names and scores.
fn score_line(line: usize, text: &str) -> Result<([String; 2], [u32; 2]), MatchFileError> {
    let bad = || {
        MatchFileError::new(
            line,
            format!(
                "{:?}: not a score line like \"Alice : 0   Bob : 0\"",
                text.trim()
            ),
        )
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    let colons: Vec<usize> = (0..words.len()).filter(|&i| words[i] == ":").collect();
    let [c0, c1] = colons.as_slice() else {
        return Err(bad());
    };
    let (c0, c1) = (*c0, *c1);
    if c0 == 0 || c1 != c0 + 3 || c1 + 2 != words.len() {
        return Err(bad());
    }
    let s0: u32 = words[c0 + 1].parse().map_err(|_| bad())?;
    let s1: u32 = words[c1 + 1].parse().map_err(|_| bad())?;
    Ok((
        [words[..c0].join(" "), words[c0 + 2..c1].join(" ")],
        [s0, s1],
    ))
}

/// `Wins 2 points` -> 2.
fn wins_points(line: usize, text: &str) -> Result<u32, MatchFileError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["Wins", n, unit, ..] if unit.starts_with("point") => n
            .parse()
            .map_err(|_| MatchFileError::new(line, format!("{:?}: no points", text.trim()))),
        _ => Err(MatchFileError::new(
            line,
            format!("{:?}: not a line like \"Wins 2 points\"", text.trim()),
        )),
    }
}

struct Reader {
    m: Match,
    replay: Option<(Replay, usize)>,
    previous: Option<[u32; 2]>,
    expected: [u32; 2],
    names_seen: bool,
}

impl Reader {
    fn close_game(&mut self, line: usize) -> Result<(), MatchFileError> {
        if let Some((replay, start)) = self.replay.take() {
            let n = replay.number();
            let game = replay.finish();
            let Some(end) = game.end else {
                return Err(MatchFileError::new(
                    line.max(start),
                    format!("game {n} has no result (\"Wins N points\"): the file is truncated"),
                ));
            };
            let (w, p) = end.winner_points();
            self.expected[w as usize] += p;
            self.m.games.push(game);
        }
        Ok(())
    }

    fn action(&mut self, line: usize, player: u8, words: &[&str]) -> Result<(), MatchFileError> {
        let Some((replay, _)) = self.replay.as_mut() else {
            return Err(MatchFileError::new(
                line,
                "a move before the first game's score line",
            ));
        };
        let first = words[0];
        if let Some(dice) = dice_word(first) {
            let text = words[1..].join(" ");
            return replay.roll(line, player, dice, Played::Text(&text));
        }
        match first {
            "Doubles" => replay.double(line, player),
            "Takes" => replay.answer(line, player, true),
            "Drops" => replay.answer(line, player, false),
            _ => Err(MatchFileError::new(
                line,
                format!("{:?}: not a roll or cube action", words.join(" ")),
            )),
        }
    }
}

/// Reads a match from match text.
pub fn parse(text: &str) -> Result<Match, MatchFileError> {
    let mut r = Reader {
        m: Match {
            players: [String::new(), String::new()],
            length: 0,
            crawford_rule: true,
            jacoby: false,
            games: Vec::new(),
        },
        replay: None,
        previous: None,
        expected: [0, 0],
        names_seen: false,
    };
    let mut length_seen = false;
    let mut pending_game: Option<(u32, usize)> = None;
    let mut last = 0;
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let t = raw.trim_end_matches('\r');
        let trimmed = t.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        last = line;
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        if !length_seen {
            match words.as_slice() {
                [n, "point", "match"] | [n, "points", "match"] => {
                    r.m.length = n.parse().map_err(|_| {
                        MatchFileError::new(line, format!("{n:?} is not a match length"))
                    })?;
                    length_seen = true;
                    continue;
                }
                _ => {
                    return Err(MatchFileError::new(
                        line,
                        format!("{trimmed:?}: expected the match length (\"5 point match\")"),
                    ))
                }
            }
        }
        if words[0] == "Game" {
            r.close_game(line)?;
            let n: u32 = words
                .get(1)
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| MatchFileError::new(line, format!("{trimmed:?}: no game number")))?;
            pending_game = Some((n, line));
            continue;
        }
        if let Some((n, _)) = pending_game.take() {
            let (names, score) = score_line(line, t)?;
            if !r.names_seen {
                r.m.players = names;
                r.names_seen = true;
            }
            if score != r.expected {
                return Err(MatchFileError::new(
                    line,
                    format!(
                        "game {n} starts at {}-{}, but the games before make it {}-{}",
                        score[0], score[1], r.expected[0], r.expected[1]
                    ),
                ));
            }
            let crawford = r.m.is_crawford(score, r.previous);
            r.previous = Some(score);
            r.replay = Some((Replay::new(n, Rules { crawford, score }), line));
            continue;
        }
        if words[0] == "Wins" {
            let points = wins_points(line, t)?;
            let indent = t.len() - t.trim_start().len();
            let winner = u8::from(indent >= 20);
            let Some((replay, _)) = r.replay.as_mut() else {
                return Err(MatchFileError::new(line, "a result outside a game"));
            };
            replay.end(line, winner, points)?;
            continue;
        }
        let Some(close) = t.find(')').filter(|&i| {
            let num = t[..i].trim();
            !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit())
        }) else {
            return Err(MatchFileError::new(
                line,
                format!("{trimmed:?}: not a line of a match"),
            ));
        };
        let actions = split_actions(&t[close + 1..]);
        match actions.as_slice() {
            [] => {}
            [(at, words)] => {
                let player = u8::from(*at > 10);
                r.action(line, player, words)?;
            }
            [(_, left), (_, right)] => {
                r.action(line, 0, left)?;
                r.action(line, 1, right)?;
            }
            _ => {
                return Err(MatchFileError::new(
                    line,
                    format!("{trimmed:?}: more than two actions on one line"),
                ))
            }
        }
    }
    if !length_seen {
        return Err(MatchFileError::new(last.max(1), "no match in the file"));
    }
    if let Some((n, l)) = pending_game {
        return Err(MatchFileError::new(
            l,
            format!("game {n} has no score line: the file is truncated"),
        ));
    }
    r.close_game(last)?;
    if r.m.games.is_empty() {
        return Err(MatchFileError::new(last.max(1), "no game in the file"));
    }
    Ok(r.m)
}
