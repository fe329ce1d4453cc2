//! `study games-per-match`: both players at x; average games per match and its
//! ratio to the length, by length and x.

use super::runner::run_cells;
use super::{parse_lengths, parse_xs, sim_plan, strategy, table, write_report, GamesArgs};
use crate::cli::CliError;
use bgfarm_engine::matchsim::{ChequerPlay, SimStats, StudyCell};
use bgfarm_report::svg::{chart, Series};
use std::fmt::Write as _;

pub fn run(a: &GamesArgs) -> Result<(), CliError> {
    let lengths = parse_lengths(&a.lengths)?;
    if lengths.contains(&0) {
        return Err(CliError::msg("--lengths must be 1 to 64"));
    }
    let xs = parse_xs(&a.x)?;
    let c = &a.common;
    let (met, chequer) = table(c, ChequerPlay::Cubeless)?;
    let mut cells = Vec::new();
    for &length in &lengths {
        for &x in &xs {
            let s = strategy(&a.model, x)?;
            let mut plan = sim_plan(c, &met, chequer, s, s, length);
            // Game counts only: the luck adjustment is not needed.
            plan.luck = false;
            cells.push(StudyCell {
                plan,
                symmetric: true,
            });
        }
    }
    let label = |cell: &StudyCell, s: &SimStats| {
        format!(
            "{}-point, {}: {:.3} ± {:.3} games",
            cell.plan.length,
            cell.plan.a,
            s.avg_games(),
            s.avg_games_se().unwrap_or(f64::NAN)
        )
    };
    let stats = run_cells(c, "games-per-match", cells, &label)?;
    let mut csv = String::from("length,x,matches,avg_games,se,games_per_point,avg_cube\n");
    let mut txt = format!(
        "Games per match, both players {}:x; {} matches per cell, seed {}\n\n{:>7}",
        a.model, c.matches, c.seed, "length"
    );
    for &x in &xs {
        let _ = write!(txt, " {:>24}", format!("x = {x}: games (per point)"));
    }
    txt.push('\n');
    let mut series: Vec<Series> = xs
        .iter()
        .map(|x| Series {
            name: format!("x = {x}"),
            points: Vec::new(),
            curve: Vec::new(),
        })
        .collect();
    // One row of cells per length, one cell per x.
    for (row, &length) in stats.chunks(xs.len()).zip(&lengths) {
        let _ = write!(txt, "{length:>7}");
        for (i, (stats, &x)) in row.iter().zip(&xs).enumerate() {
            let g = stats.avg_games();
            let se = stats.avg_games_se().unwrap_or(f64::NAN);
            let ratio = g / f64::from(length);
            let _ = writeln!(
                csv,
                "{length},{x},{},{g:.4},{se:.4},{ratio:.4},{:.4}",
                stats.matches,
                stats.avg_cube()
            );
            let _ = write!(txt, " {:>24}", format!("{g:.3} ± {se:.3} ({ratio:.3})"));
            series[i].points.push((f64::from(length), g, se));
            series[i].curve.push((f64::from(length), g));
        }
        txt.push('\n');
    }
    let svg = chart(
        &format!("Games per match ({})", a.model),
        "match length",
        "average games per match",
        &series,
    );
    write_report(&c.out, "games_per_match", &csv, &txt, &svg)
}
