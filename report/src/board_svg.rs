//! A backgammon board as an inline SVG, oriented as GNU Backgammon draws it: the
//! player on roll at the bottom, their home board bottom right (point 1 in the
//! bottom-right corner, their 24-point top right), the points numbered from their
//! side, their borne-off checkers in the tray at the right bottom, the opponent's at
//! the right top. Checkers on the bar sit on the bar, the player on roll's in the
//! top half (the side they enter on), the opponent's in the bottom half.
//!
//! Every checker is drawn as one `<circle>`, inside a `<g>` per point (`class
//! "point"`, with `data-point`, `data-side` and `data-count`), bar (`class "bar"`)
//! and tray (`class "off"`, one `<rect>` a checker), so a program can count the
//! checkers of a drawn board against the position (the HTML test does, in a
//! browser's DOM). A stack of more than 5 checkers is squeezed to the height of 5.
//! Text (player names) is escaped. No script, no external resource: the SVG can be
//! inlined in any page.

use crate::markup::escape;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::position::{Position, BAR, OPP_BAR};
use std::fmt::Write;

/// Who owns the cube, from the player on roll's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CubeOwner {
    Centred,
    OnRoll,
    Opponent,
}

/// What a board diagram shows.
#[derive(Clone, Debug)]
pub struct Board {
    /// The position, seen by the player on roll (the engine's orientation).
    pub position: Position,
    /// The player on roll's name, then the opponent's.
    pub names: [String; 2],
    pub cube_value: u32,
    pub cube_owner: CubeOwner,
    /// Points to win the match; 0 for money play.
    pub match_length: u32,
    /// Points of the player on roll, then the opponent's.
    pub score: [u32; 2],
    pub crawford: bool,
    /// The roll to play; `None` before the roll (a cube decision).
    pub dice: Option<[u8; 2]>,
}

impl Board {
    /// The board of a recorded decision: `players` (player 0 first), the player
    /// on roll, the position as that player sees it, the cube as the file records
    /// it, the match length, the score at the game's start (player 0 first), the
    /// Crawford flag and the roll to play.
    #[allow(clippy::too_many_arguments)]
    pub fn of_decision(
        players: &[String; 2],
        on_roll: u8,
        position: Position,
        cube: bgfarm_engine::matchfile::CubeState,
        match_length: u32,
        score: [u32; 2],
        crawford: bool,
        dice: Option<[u8; 2]>,
    ) -> Board {
        let me = usize::from(on_roll.min(1));
        let them = 1 - me;
        Board {
            position,
            names: [players[me].clone(), players[them].clone()],
            cube_value: cube.value,
            cube_owner: match cube.owner {
                None => CubeOwner::Centred,
                Some(o) if usize::from(o) == me => CubeOwner::OnRoll,
                Some(_) => CubeOwner::Opponent,
            },
            match_length,
            score: [score[me], score[them]],
            crawford,
            dice,
        }
    }
}

const PW: f64 = 30.0; // point width
const R: f64 = 13.0; // checker radius
const STEP: f64 = 28.0; // stack step up to 5 checkers
const HALF: f64 = 150.0; // height of a half of the board
const GAP: f64 = 40.0; // the gap between the halves
const BX: f64 = 50.0; // left edge of the board (the cube sits left of it)
const BY: f64 = 44.0; // top edge of the board
const BAR_W: f64 = 34.0;
const TRAY_X: f64 = BX + 12.0 * PW + BAR_W + 6.0;
const TRAY_W: f64 = 44.0;
/// Width and height of the whole drawing.
pub const WIDTH: f64 = TRAY_X + TRAY_W + 10.0;
pub const HEIGHT: f64 = BY + 2.0 * HALF + GAP + 48.0;
const BOTTOM: f64 = BY + 2.0 * HALF + GAP;
const ON_ROLL_FILL: &str = "#f4efe1";
const OPPONENT_FILL: &str = "#9b2226";

/// Left edge of a point's column and whether it is in the top row.
fn column(point: usize) -> (f64, bool) {
    let right = BX + 6.0 * PW + BAR_W;
    match point {
        1..=6 => (right + (6 - point) as f64 * PW, false),
        7..=12 => (BX + (12 - point) as f64 * PW, false),
        13..=18 => (BX + (point - 13) as f64 * PW, true),
        _ => (right + (point - 19) as f64 * PW, true),
    }
}

/// Distance between the centres of stacked checkers: 28 up to 5, then squeezed.
fn step(n: usize) -> f64 {
    if n <= 5 {
        STEP
    } else {
        (HALF - 2.0 * R - 2.0) / (n - 1) as f64
    }
}

fn checker(o: &mut String, cx: f64, cy: f64, fill: &str) {
    let _ = write!(
        o,
        r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{R}" fill="{fill}" stroke="#222" stroke-width="1.2"/>"##
    );
}

fn side_name(on_roll: bool) -> &'static str {
    if on_roll {
        "on-roll"
    } else {
        "opponent"
    }
}

fn fill(on_roll: bool) -> &'static str {
    if on_roll {
        ON_ROLL_FILL
    } else {
        OPPONENT_FILL
    }
}

fn points(o: &mut String, pos: &Position) {
    for p in 1..=24usize {
        let (x, top) = column(p);
        let colour = if p % 2 == 0 { "#c9b27c" } else { "#5e7d63" };
        let (base, tip) = if top {
            (BY, BY + HALF - 20.0)
        } else {
            (BOTTOM, BOTTOM - HALF + 20.0)
        };
        let c = pos.at(p);
        let n = c.unsigned_abs() as usize;
        let side = if c == 0 { "empty" } else { side_name(c > 0) };
        let _ = write!(
            o,
            r#"<g class="point" data-point="{p}" data-side="{side}" data-count="{n}"><polygon points="{:.1},{base} {:.1},{base} {:.1},{tip}" fill="{colour}"/>"#,
            x,
            x + PW,
            x + PW / 2.0
        );
        for k in 0..n {
            let d = R + 1.0 + k as f64 * step(n);
            let cy = if top { BY + d } else { BOTTOM - d };
            checker(o, x + PW / 2.0, cy, fill(c > 0));
        }
        o.push_str("</g>");
        let ny = if top { BY - 5.0 } else { BOTTOM + 13.0 };
        let _ = write!(
            o,
            r##"<text x="{:.1}" y="{ny}" font-size="10" text-anchor="middle" fill="#444">{p}</text>"##,
            x + PW / 2.0
        );
    }
}

fn bar(o: &mut String, pos: &Position) {
    let x = BX + 6.0 * PW + BAR_W / 2.0;
    let mid = BY + HALF + GAP / 2.0;
    for (on_roll, n) in [
        (true, pos.at(BAR).unsigned_abs() as usize),
        (false, pos.at(OPP_BAR).unsigned_abs() as usize),
    ] {
        let _ = write!(
            o,
            r#"<g class="bar" data-side="{}" data-count="{n}">"#,
            side_name(on_roll)
        );
        for k in 0..n {
            let d = GAP / 2.0 + R + 1.0 + k as f64 * step(n);
            let cy = if on_roll { mid - d } else { mid + d };
            checker(o, x, cy, fill(on_roll));
        }
        o.push_str("</g>");
    }
}

fn tray(o: &mut String, pos: &Position) {
    let offs = [
        (true, 15u8.saturating_sub(pos.mover_checkers())),
        (false, 15u8.saturating_sub(pos.opponent_checkers())),
    ];
    for (on_roll, n) in offs {
        let _ = write!(
            o,
            r#"<g class="off" data-side="{}" data-count="{n}">"#,
            side_name(on_roll)
        );
        for k in 0..n {
            let y = if on_roll {
                BOTTOM - 9.0 * f64::from(k + 1)
            } else {
                BY + 1.0 + 9.0 * f64::from(k)
            };
            let _ = write!(
                o,
                r##"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="8" fill="{}" stroke="#222" stroke-width="0.8"/>"##,
                TRAY_X + 4.0,
                TRAY_W - 8.0,
                fill(on_roll)
            );
        }
        let ty = if on_roll {
            BOTTOM - 9.0 * f64::from(n) - 6.0
        } else {
            BY + 9.0 * f64::from(n) + 14.0
        };
        if n > 0 {
            let _ = write!(
                o,
                r##"<text x="{:.1}" y="{ty:.1}" font-size="11" text-anchor="middle" fill="#222">{n}</text>"##,
                TRAY_X + TRAY_W / 2.0
            );
        }
        o.push_str("</g>");
    }
}

fn cube(o: &mut String, b: &Board) {
    let y = match b.cube_owner {
        CubeOwner::Centred => BY + HALF + GAP / 2.0 - 16.0,
        CubeOwner::OnRoll => BOTTOM - 34.0,
        CubeOwner::Opponent => BY + 2.0,
    };
    let owner = match b.cube_owner {
        CubeOwner::Centred => "centred",
        CubeOwner::OnRoll => "on-roll",
        CubeOwner::Opponent => "opponent",
    };
    // A centred cube shows 64, as on a real cube.
    let face = if b.cube_value <= 1 && b.cube_owner == CubeOwner::Centred {
        64
    } else {
        b.cube_value
    };
    let _ = write!(
        o,
        r##"<g class="cube" data-value="{}" data-owner="{owner}"><rect x="10" y="{y:.1}" width="32" height="32" rx="4" fill="#fff" stroke="#222" stroke-width="1.5"/><text x="26" y="{:.1}" font-size="15" font-weight="bold" text-anchor="middle">{face}</text></g>"##,
        b.cube_value,
        y + 21.0
    );
}

/// Pip offsets (in sixths of a die) of a face.
fn pips(v: u8) -> &'static [(f64, f64)] {
    const C: f64 = 0.5;
    match v {
        1 => &[(C, C)],
        2 => &[(0.25, 0.25), (0.75, 0.75)],
        3 => &[(0.25, 0.25), (C, C), (0.75, 0.75)],
        4 => &[(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
        5 => &[
            (0.25, 0.25),
            (0.75, 0.25),
            (C, C),
            (0.25, 0.75),
            (0.75, 0.75),
        ],
        _ => &[
            (0.25, 0.25),
            (0.75, 0.25),
            (0.25, C),
            (0.75, C),
            (0.25, 0.75),
            (0.75, 0.75),
        ],
    }
}

fn dice(o: &mut String, dice: [u8; 2]) {
    let y = BY + HALF + 6.0;
    let _ = write!(o, r#"<g class="dice" data-dice="{}{}">"#, dice[0], dice[1]);
    for (i, &v) in dice.iter().enumerate() {
        let x = BX + 6.0 * PW + BAR_W + 60.0 + 40.0 * i as f64;
        let _ = write!(
            o,
            r##"<rect x="{x:.1}" y="{y:.1}" width="28" height="28" rx="4" fill="{ON_ROLL_FILL}" stroke="#222"/>"##
        );
        for (px, py) in pips(v) {
            let _ = write!(
                o,
                r##"<circle class="pip" cx="{:.1}" cy="{:.1}" r="2.6" fill="#222"/>"##,
                x + 28.0 * px,
                y + 28.0 * py
            );
        }
    }
    o.push_str("</g>");
}

/// A player's line: name, score and pip count.
fn label(b: &Board, on_roll: bool, pips: u32) -> String {
    let i = usize::from(!on_roll);
    let score = if b.match_length > 0 {
        format!(
            ", {} point{}",
            b.score[i],
            if b.score[i] == 1 { "" } else { "s" }
        )
    } else {
        String::new()
    };
    let roll = if on_roll { ", on roll" } else { "" };
    format!("{}{score}, pips {pips}{roll}", escape(&b.names[i]))
}

/// The board as an `<svg>` element.
pub fn svg(b: &Board) -> String {
    let pos = &b.position;
    let (mine, theirs) = pos.pip_counts();
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" data-position="{}" font-family="sans-serif">"#,
        position_id::encode(pos)
    );
    let _ = write!(
        o,
        "<title>{} on roll against {}</title>",
        escape(&b.names[0]),
        escape(&b.names[1])
    );
    let _ = write!(
        o,
        r##"<rect x="{BX}" y="{BY}" width="{:.1}" height="{:.1}" fill="#e9dfc7" stroke="#222" stroke-width="2"/>"##,
        12.0 * PW + BAR_W,
        2.0 * HALF + GAP
    );
    let _ = write!(
        o,
        r##"<rect x="{:.1}" y="{BY}" width="{BAR_W}" height="{:.1}" fill="#7a5c3a"/><rect x="{TRAY_X}" y="{BY}" width="{TRAY_W}" height="{:.1}" fill="#7a5c3a" stroke="#222" stroke-width="2"/>"##,
        BX + 6.0 * PW,
        2.0 * HALF + GAP,
        2.0 * HALF + GAP
    );
    points(&mut o, pos);
    bar(&mut o, pos);
    tray(&mut o, pos);
    cube(&mut o, b);
    if let Some(d) = b.dice {
        dice(&mut o, d);
    }
    let what = if b.match_length > 0 {
        let crawford = if b.crawford { ", Crawford game" } else { "" };
        format!("{}-point match{crawford}", b.match_length)
    } else {
        "money game".to_string()
    };
    let _ = write!(
        o,
        r##"<text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle" fill="#222">{what}</text>"##,
        BX + 3.0 * PW,
        BY + HALF + GAP / 2.0 + 4.0
    );
    for (on_roll, y, pips) in [(false, 16.0, theirs), (true, HEIGHT - 10.0, mine)] {
        let _ = write!(
            o,
            r##"<circle cx="{}" cy="{:.1}" r="6" fill="{}" stroke="#222"/><text class="player" x="{}" y="{y:.1}" font-size="13">{}</text>"##,
            BX + 6.0,
            y - 4.0,
            fill(on_roll),
            BX + 16.0,
            label(b, on_roll, pips)
        );
    }
    o.push_str("</svg>");
    o
}

#[cfg(test)]
mod tests;
