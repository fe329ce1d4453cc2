//! GNU Backgammon's SGF match files (`save match`, GNU Backgammon 1.07): one game
//! tree per game, `(;root ;node ;node ...)`.
//!
//! What is read (everything else, analysis `A`/`DA`, marks, comments, is skipped):
//! - root node: `MI[length:N][game:G][ws:W][bs:B]` (length 0 = money; the scores at
//!   the game's start), `PW`/`PB` (names of players 0 and 1), `RU` (`Crawford`,
//!   `Crawford:CrawfordGame` for the Crawford game itself, `Jacoby`), `RE[W+2]`
//!   (winner and points; a trailing `R` marks a resignation), `GM` (must be 6);
//! - `W[..]`/`B[..]`: a roll and its play, `52mhmk` = dice 5 and 2, then one letter
//!   pair per checker step: `a`..`x` are points 1..24 counted from white's side
//!   (white's point `letter + 1`, black's `24 - letter`), `y` the bar, `z` off;
//!   dice alone when the roll could not be played; `double`, `take`, `drop`;
//! - `DI[65]`: dice rolled and not played (the game then ends by resignation).
//!
//! Set-up properties (`AB`, `AW`, `AE`, `CV`, `CP`) would start a game from another
//! position or cube: they are refused rather than silently ignored, and so are
//! variations (nested trees), which GNU Backgammon does not write for a match.

use super::replay::{Played, Replay, Rules};
use super::{Match, MatchFileError};
use crate::dice::Dice;

/// One property of a node: `ident[v1][v2]`.
struct Prop {
    ident: String,
    values: Vec<String>,
    line: usize,
}

struct Node {
    props: Vec<Prop>,
}

impl Node {
    fn get(&self, ident: &str) -> Option<&Prop> {
        self.props.iter().find(|p| p.ident == ident)
    }
}

/// The game trees of the collection, each a flat sequence of nodes.
fn trees(text: &str) -> Result<Vec<(usize, Vec<Node>)>, MatchFileError> {
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut line = 1;
    let mut out = Vec::new();
    let mut current: Option<(usize, Vec<Node>)> = None;
    let n = bytes.len();
    while i < n {
        let c = bytes[i];
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '(' => {
                if current.is_some() {
                    return Err(MatchFileError::new(
                        line,
                        "a variation (nested game tree): not a recorded match",
                    ));
                }
                current = Some((line, Vec::new()));
                i += 1;
            }
            ')' => match current.take() {
                Some(t) => {
                    out.push(t);
                    i += 1;
                }
                None => return Err(MatchFileError::new(line, "unbalanced ')'")),
            },
            ';' => {
                let Some((_, nodes)) = current.as_mut() else {
                    return Err(MatchFileError::new(line, "a node outside a game tree"));
                };
                nodes.push(Node { props: Vec::new() });
                i += 1;
            }
            c if c.is_ascii_uppercase() => {
                let start = i;
                while i < n && bytes[i].is_ascii_uppercase() {
                    i += 1;
                }
                let ident: String = bytes[start..i].iter().collect();
                let prop_line = line;
                let mut values = Vec::new();
                loop {
                    while i < n && bytes[i].is_whitespace() {
                        if bytes[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    if i >= n || bytes[i] != '[' {
                        break;
                    }
                    i += 1;
                    let mut v = String::new();
                    loop {
                        if i >= n {
                            return Err(MatchFileError::new(
                                line,
                                format!(
                                    "the value of {ident} is not closed: the file is truncated"
                                ),
                            ));
                        }
                        match bytes[i] {
                            ']' => {
                                i += 1;
                                break;
                            }
                            '\\' if i + 1 < n => {
                                if bytes[i + 1] == '\n' {
                                    line += 1;
                                }
                                v.push(bytes[i + 1]);
                                i += 2;
                            }
                            ch => {
                                if ch == '\n' {
                                    line += 1;
                                }
                                v.push(ch);
                                i += 1;
                            }
                        }
                    }
                    values.push(v);
                }
                if values.is_empty() {
                    return Err(MatchFileError::new(
                        prop_line,
                        format!("property {ident} without a value"),
                    ));
                }
                let Some(node) = current.as_mut().and_then(|(_, nodes)| nodes.last_mut()) else {
                    return Err(MatchFileError::new(
                        prop_line,
                        format!("property {ident} outside a node"),
                    ));
                };
                node.props.push(Prop {
                    ident,
                    values,
                    line: prop_line,
                });
            }
            other => {
                return Err(MatchFileError::new(
                    line,
                    format!("unexpected character {other:?}: not an SGF file"),
                ))
            }
        }
    }
    if current.is_some() {
        return Err(MatchFileError::new(
            line,
            "the last game tree is not closed: the file is truncated",
        ));
    }
    Ok(out)
}

/// The match-level facts of a game's root node.
struct RootInfo {
    length: u32,
    score: [u32; 2],
    names: [String; 2],
    crawford_rule: bool,
    crawford_game: bool,
    jacoby: bool,
    result: Option<(u8, u32, usize)>,
}

fn number(line: usize, what: &str, s: &str) -> Result<u32, MatchFileError> {
    s.trim()
        .parse()
        .map_err(|_| MatchFileError::new(line, format!("{what}: {s:?} is not a number")))
}

fn root_info(root: &Node, tree_line: usize) -> Result<RootInfo, MatchFileError> {
    if let Some(gm) = root.get("GM") {
        if gm.values[0].trim() != "6" {
            return Err(MatchFileError::new(
                gm.line,
                format!("GM[{}]: not a backgammon file (GM[6])", gm.values[0]),
            ));
        }
    }
    let mi = root
        .get("MI")
        .ok_or_else(|| MatchFileError::new(tree_line, "a game without match information (MI)"))?;
    let (mut length, mut score) = (None, [0u32; 2]);
    for v in &mi.values {
        let (k, val) = v.split_once(':').unwrap_or((v.as_str(), ""));
        match k {
            "length" => length = Some(number(mi.line, "MI length", val)?),
            "ws" => score[0] = number(mi.line, "MI ws", val)?,
            "bs" => score[1] = number(mi.line, "MI bs", val)?,
            _ => {}
        }
    }
    let length =
        length.ok_or_else(|| MatchFileError::new(mi.line, "MI without the match length"))?;
    let name = |id: &str, default: &str| {
        root.get(id)
            .map_or_else(|| default.to_string(), |p| p.values[0].trim().to_string())
    };
    let rules = root.get("RU").map(|p| p.values[0].as_str()).unwrap_or("");
    let result = match root.get("RE") {
        None => None,
        Some(p) => {
            let v = p.values[0].trim();
            let bad = || MatchFileError::new(p.line, format!("RE[{v}]: not a result like W+2"));
            let (who, rest) = v.split_once('+').ok_or_else(bad)?;
            let winner = match who {
                "W" => 0,
                "B" => 1,
                _ => return Err(bad()),
            };
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let points: u32 = digits.parse().map_err(|_| bad())?;
            Some((winner, points, p.line))
        }
    };
    Ok(RootInfo {
        length,
        score,
        names: [name("PW", "White"), name("PB", "Black")],
        crawford_rule: rules.contains("Crawford"),
        crawford_game: rules.contains("CrawfordGame"),
        jacoby: rules.contains("Jacoby"),
        result,
    })
}

/// `52` -> the dice.
fn dice_of(line: usize, s: &str) -> Result<Dice, MatchFileError> {
    let d: Vec<u8> = s
        .chars()
        .take(2)
        .filter_map(|c| c.to_digit(10).map(|d| d as u8))
        .collect();
    match d.as_slice() {
        [a, b] => Dice::new(*a, *b),
        _ => None,
    }
    .ok_or_else(|| MatchFileError::new(line, format!("{s:?}: no dice")))
}

/// A letter of a move for `player`, in the mover's numbering (25 bar, 0 off).
fn point(line: usize, player: u8, c: char) -> Result<u8, MatchFileError> {
    match c {
        'y' => Ok(25),
        'z' => Ok(0),
        'a'..='x' => {
            let k = c as u8 - b'a';
            Ok(if player == 0 { k + 1 } else { 24 - k })
        }
        _ => Err(MatchFileError::new(
            line,
            format!("{c:?} is not a point of a move"),
        )),
    }
}

/// Reads a match from the text of a GNU Backgammon SGF file.
pub fn parse(text: &str) -> Result<Match, MatchFileError> {
    let trees = trees(text)?;
    let Some(first) = trees.first() else {
        return Err(MatchFileError::new(1, "no game in the file"));
    };
    let root0 = first
        .1
        .first()
        .ok_or_else(|| MatchFileError::new(first.0, "an empty game tree"))?;
    let info0 = root_info(root0, first.0)?;
    let mut m = Match {
        players: info0.names.clone(),
        length: info0.length,
        crawford_rule: info0.crawford_rule,
        jacoby: info0.jacoby,
        games: Vec::new(),
    };
    let mut expected = [0u32; 2];
    for (k, (tree_line, nodes)) in trees.iter().enumerate() {
        let root = nodes
            .first()
            .ok_or_else(|| MatchFileError::new(*tree_line, "an empty game tree"))?;
        let info = root_info(root, *tree_line)?;
        if info.length != m.length {
            return Err(MatchFileError::new(
                *tree_line,
                format!(
                    "game {} is of a {}-point match, the first of a {}-point one",
                    k + 1,
                    info.length,
                    m.length
                ),
            ));
        }
        if info.score != expected {
            return Err(MatchFileError::new(
                *tree_line,
                format!(
                    "game {} starts at {}-{}, but the games before make it {}-{}",
                    k + 1,
                    info.score[0],
                    info.score[1],
                    expected[0],
                    expected[1]
                ),
            ));
        }
        if let Some(prev) = m.games.last() {
            if prev.end.is_none() {
                return Err(MatchFileError::new(
                    *tree_line,
                    format!(
                        "game {} has no result but is not the last game",
                        prev.number
                    ),
                ));
            }
        }
        let mut replay = Replay::new(
            k as u32 + 1,
            Rules {
                crawford: info.crawford_game,
                score: info.score,
            },
        );
        for node in &nodes[1..] {
            read_node(&mut replay, node)?;
        }
        if let Some((winner, points, line)) = info.result {
            replay.end(line, winner, points)?;
        }
        let game = replay.finish();
        if let Some(e) = game.end {
            let (w, p) = e.winner_points();
            expected[w as usize] += p;
        }
        m.games.push(game);
    }
    Ok(m)
}

fn read_node(replay: &mut Replay, node: &Node) -> Result<(), MatchFileError> {
    for p in &node.props {
        match p.ident.as_str() {
            "AB" | "AW" | "AE" | "CV" | "CP" => {
                return Err(MatchFileError::new(
                    p.line,
                    format!(
                        "{}: a game set up from another position or cube is not supported",
                        p.ident
                    ),
                ))
            }
            _ => {}
        }
    }
    if let Some(di) = node.get("DI") {
        // Dice rolled and not (yet) played; the player is PL's, else the one on roll.
        let player = match node.get("PL").map(|p| p.values[0].trim()) {
            Some("W") => 0,
            Some("B") => 1,
            _ => {
                return Err(MatchFileError::new(
                    di.line,
                    "DI without the player who rolled (PL)",
                ))
            }
        };
        let dice = dice_of(di.line, &di.values[0])?;
        return replay.roll(di.line, player, dice, Played::Steps(&[]));
    }
    for (ident, player) in [("W", 0u8), ("B", 1u8)] {
        let Some(p) = node.get(ident) else { continue };
        let v = p.values[0].trim();
        return match v {
            "double" => replay.double(p.line, player),
            "take" => replay.answer(p.line, player, true),
            "drop" => replay.answer(p.line, player, false),
            _ => {
                let dice = dice_of(p.line, v)?;
                let letters: Vec<char> = v.chars().skip(2).collect();
                if !letters.len().is_multiple_of(2) {
                    return Err(MatchFileError::new(
                        p.line,
                        format!("{ident}[{v}]: an odd number of point letters"),
                    ));
                }
                let mut steps = Vec::with_capacity(4);
                for pair in letters.chunks(2) {
                    steps.push((
                        point(p.line, player, pair[0])?,
                        point(p.line, player, pair[1])?,
                    ));
                }
                replay.roll(p.line, player, dice, Played::Steps(&steps))
            }
        };
    }
    Ok(())
}
