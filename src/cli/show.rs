//! `bgfarm show POS`: the board as text, in the layout of GNU Backgammon's
//! `show board`: the player on roll (X) plays from the top left round to its home
//! board at the bottom right; stacks taller than five show their count.

use super::input::parse_position;
use super::CliError;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::Position;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    pub position: String,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let input = parse_position(&args.position)?;
    print!("{}", render(&input.position));
    if let Some(m) = input.match_state {
        let kind = if m.match_length == 0 {
            "money game".to_string()
        } else {
            format!(
                "{}-point match, score {}-{}",
                m.match_length, m.score[0], m.score[1]
            )
        };
        println!("Match ID: {} ({kind}, cube {})", m.encode(), m.cube);
    }
    Ok(())
}

/// One cell of a point column at `row` (0 = nearest the edge): "X", "O", a count, or
/// blank.
fn cell(count: i8, row: usize) -> String {
    let n = count.unsigned_abs() as usize;
    let sym = if count > 0 { "X" } else { "O" };
    if n == 0 || row >= n.min(5) {
        "  ".into()
    } else if row == 4 && n > 5 {
        format!("{n:>2}")
    } else {
        format!(" {sym}")
    }
}

/// The board drawing.
pub fn render(pos: &Position) -> String {
    let p = pos.pips();
    let (pip_x, pip_o) = pos.pip_counts();
    let mut out = String::new();
    out.push_str(&format!(" Position ID: {}\n", position_id::encode(pos)));
    out.push_str(" +13-14-15-16-17-18------19-20-21-22-23-24-+\n");
    let side = |row: usize| -> String {
        match row {
            0 => format!("  O: not on roll, {} off", pos.opponent_off()),
            1 => format!("  pips {pip_o}"),
            _ => String::new(),
        }
    };
    for row in 0..5 {
        let left: String = (13..=18).map(|i| format!("{} ", cell(p[i], row))).collect();
        let right: String = (19..=24).map(|i| format!("{} ", cell(p[i], row))).collect();
        let bar = cell(p[0], row); // the opponent's bar sits in the top half
        out.push_str(&format!(" |{left}|{bar} |{right}|{}\n", side(row)));
    }
    out.push_str(" |                  |BAR|                  |\n");
    for row in (0..5).rev() {
        let left: String = (7..=12)
            .rev()
            .map(|i| format!("{} ", cell(p[i], row)))
            .collect();
        let right: String = (1..=6)
            .rev()
            .map(|i| format!("{} ", cell(p[i], row)))
            .collect();
        let bar = cell(p[25], row);
        let note = match row {
            1 => format!("  pips {pip_x}"),
            0 => format!("  X: on roll, {} off", pos.mover_off()),
            _ => String::new(),
        };
        out.push_str(&format!(" |{left}|{bar} |{right}|{note}\n"));
    }
    out.push_str(" +12-11-10--9--8--7-------6--5--4--3--2--1-+\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_board_has_both_sides_and_pips() {
        let s = render(&Position::STARTING);
        assert!(s.contains("4HPwATDgc/ABMA"));
        assert_eq!(s.matches("pips 167").count(), 2);
        // Five X on the 6-point: the bottom row under 6 shows X.
        let xs = s.matches(" X").count();
        let os = s.matches(" O").count();
        assert_eq!(xs, os, "{s}");
        // 15 checkers each, stacks of five drawn fully: every checker visible.
        assert_eq!(xs, 15 + 1, "{s}"); // +1 for the "X: on roll" label
    }
}
