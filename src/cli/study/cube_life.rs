//! `study cube-life` and `study money-cube-life`: A at x against B at the baseline
//! per length (money: length 0), with parabola fits of the optimal x.

use super::fit::{fit_lines, FitOptions};
use super::runner::run_cells;
use super::values::{stats_csv, value, STATS_CSV_HEADER};
use super::{parse_xs, sim_plan, strategy, table, write_report, Common};
use crate::cli::CliError;
use bgfarm_engine::matchsim::{ChequerPlay, SimStats, StudyCell};
use bgfarm_report::svg::{chart, Series};
use std::fmt::Write as _;

/// One finished cell.
struct Cell {
    length: u32,
    x: f64,
    stats: SimStats,
}

impl Cell {
    fn value(&self, luck: bool) -> (f64, f64) {
        value(&self.stats, luck)
    }
}

/// Runs the grid `lengths` x `xs` (lengths `[0]`: money play) and writes
/// `cube_life.*` (money: `money_cube_life.*`).
pub fn run(
    lengths: &[u32],
    xs: &str,
    baseline: f64,
    model: &str,
    fit: &FitOptions,
    c: &Common,
) -> Result<(), CliError> {
    let xs = parse_xs(xs)?;
    if !(0.0..=1.0).contains(&baseline) {
        return Err(CliError::msg(format!(
            "--baseline must be 0 to 1, got {baseline}"
        )));
    }
    let money = lengths == [0];
    let (name, prefix) = if money {
        ("money-cube-life", "money_cube_life")
    } else {
        ("cube-life", "cube_life")
    };
    let (met, chequer) = table(c, ChequerPlay::Cubeless)?;
    let b = strategy(model, baseline)?;
    // The grid is length-major: the x values cycle within each length.
    let mut grid = Vec::new();
    let mut cells = Vec::new();
    for &length in lengths {
        for &x in &xs {
            grid.push((length, x));
            cells.push(StudyCell {
                plan: sim_plan(c, &met, chequer, strategy(model, x)?, b, length),
                symmetric: false,
            });
        }
    }
    let unit = if money { "ppg" } else { "ppm" };
    let luck = c.luck;
    let label = |cell: &StudyCell, s: &SimStats| {
        let (v, se) = value(s, luck);
        let x = cell.plan.a.to_string();
        let at = if money {
            String::new()
        } else {
            format!("{}-point, ", cell.plan.length)
        };
        format!(
            "{at}A {x}: {unit} {v:+.4} ± {se:.4} ({} matches)",
            s.matches
        )
    };
    let stats = run_cells(c, name, cells, &label)?;
    let cells: Vec<Cell> = grid
        .into_iter()
        .zip(stats)
        .map(|((length, x), stats)| Cell { length, x, stats })
        .collect();
    let setup = Setup {
        baseline,
        model,
        fit,
    };
    report(lengths, &xs, &setup, c, prefix, &cells)
}

/// What the grid compares and how it is fitted.
struct Setup<'a> {
    /// B's cube life index.
    baseline: f64,
    model: &'a str,
    fit: &'a FitOptions,
}

/// The CSV, the table with its fits and the SVG plot of finished `cells`.
fn report(
    lengths: &[u32],
    xs: &[f64],
    setup: &Setup<'_>,
    c: &Common,
    prefix: &str,
    cells: &[Cell],
) -> Result<(), CliError> {
    let Setup {
        baseline,
        model,
        fit,
    } = *setup;
    let money = lengths == [0];
    let unit = if money { "ppg" } else { "ppm" };
    // CSV.
    let mut csv = format!("length,x,baseline,{STATS_CSV_HEADER}\n");
    for cell in cells {
        let _ = writeln!(
            csv,
            "{},{},{baseline},{}",
            cell.length,
            cell.x,
            stats_csv(&cell.stats, c.luck)
        );
    }
    // Table and fits.
    let what = if c.luck {
        format!("{unit}, luck-adjusted")
    } else {
        unit.to_string()
    };
    let mut txt = format!(
        "{model}: A at x against B at x = {baseline}; A's {what} ± SE; {} {} per cell, seed {}\n\n",
        c.matches,
        if money { "games" } else { "matches" },
        c.seed
    );
    let _ = write!(txt, "{:>8}", "x");
    for &l in lengths {
        let _ = write!(
            txt,
            " {:>18}",
            if money {
                "money".to_string()
            } else {
                format!("{l}-point")
            }
        );
    }
    txt.push('\n');
    for &x in xs {
        let _ = write!(txt, "{x:>8}");
        for &l in lengths {
            if let Some(cell) = cells.iter().find(|k| k.length == l && k.x == x) {
                let (v, se) = cell.value(c.luck);
                let _ = write!(txt, " {:>18}", format!("{v:+.4} ± {se:.4}"));
            }
        }
        txt.push('\n');
    }
    txt.push('\n');
    let mut series = Vec::new();
    for &l in lengths {
        let pts: Vec<(f64, f64, f64)> = cells
            .iter()
            .filter(|k| k.length == l)
            .map(|k| {
                let (v, se) = k.value(c.luck);
                (k.x, v, se)
            })
            .collect();
        let name = if money {
            "money".to_string()
        } else {
            format!("{l}-point")
        };
        let fits = fit_lines(&name, &pts, baseline, fit);
        for f in &fits {
            let _ = writeln!(txt, "{}", f.line);
        }
        // The first form asked for is drawn.
        let curve = fits.into_iter().next().map(|f| f.curve).unwrap_or_default();
        series.push(Series {
            name,
            points: pts,
            curve,
        });
    }
    let svg = chart(
        &format!("{model}: A at x vs B at x = {baseline}"),
        "cube life index x of A",
        &format!("A's {what}"),
        &series,
    );
    write_report(&c.out, prefix, &csv, &txt, &svg)
}
