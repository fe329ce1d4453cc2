//! `bgfarm study match-vs-money --lengths 3,5,7,9 --x 0,0.25,0.5,0.75,1 --matches N
//! [--model janowski-match-capped|janowski-match] [--luck] --out DIR`: what knowing
//! the score is worth to the cube. Each (length, x) cell plays match-aware Janowski
//! (A, `MODEL:x=X`, the match equity table's take and cash points) against money
//! Janowski with the same x (B: `janowski-capped` for the capped model,
//! `janowski-money` for the uncapped one), so the two players differ only in whether
//! their cube decisions know the score. A's points per match with its standard
//! error (luck-adjusted with `--luck`, which cuts the SE about threefold) go to
//! `match_vs_money.csv`, a table (`match_vs_money.txt`, also printed) and a plot of
//! A's result against x per length (`match_vs_money.svg`).
//!
//! The study is an ordered list of cells (length-major, x cycling within a length),
//! each the deterministic `match-sim` job of its [`SimPlan`], and the report is a
//! function of the cells and their [`SimStats`] alone ([`report`]): how the cells
//! are run (here, or elsewhere) does not enter it. Timing goes to stderr only.

use super::runner::run_cells;
use super::values::{stats_csv, value, STATS_CSV_HEADER};
use super::{parse_lengths, parse_xs, sim_plan, table, write_report, Common};
use crate::cli::CliError;
use bgfarm_engine::matchsim::{ChequerPlay, CubeStrategy, SimStats, StudyCell};
use bgfarm_engine::met::MAX_AWAY;
use bgfarm_report::svg::{chart, Series};
use std::fmt::Write as _;

#[derive(clap::Args)]
pub struct MatchVsMoneyArgs {
    /// Match lengths (1 to 64): `3,5,7,9` or a range `3..9`.
    #[arg(long)]
    pub lengths: String,
    /// Cube life indices, the same for both players: `0,0.25,0.5,0.75,1`.
    #[arg(long)]
    pub x: String,
    /// A's match-aware model: janowski-match-capped (against janowski-capped: both
    /// with the live curve capped at the cash) or janowski-match (against
    /// janowski-money: both uncapped).
    #[arg(long, default_value = "janowski-match-capped")]
    pub model: String,
    #[command(flatten)]
    pub common: Common,
}

/// Output files' stem.
const PREFIX: &str = "match_vs_money";

/// One cell of the grid: a length and a cube life index, with the two strategies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub length: u32,
    pub x: f64,
    /// Match-aware.
    pub a: CubeStrategy,
    /// Money, the same x.
    pub b: CubeStrategy,
}

/// The money model matched with a match-aware `model`.
fn money_model(model: &str) -> Result<&'static str, CliError> {
    match model.trim() {
        "janowski-match-capped" => Ok("janowski-capped"),
        "janowski-match" => Ok("janowski-money"),
        m => Err(CliError::msg(format!(
            "bad --model {m:?}: use janowski-match-capped or janowski-match"
        ))),
    }
}

/// The cells of the study, length-major, every argument checked.
pub fn cells(args: &MatchVsMoneyArgs) -> Result<Vec<Cell>, CliError> {
    let lengths = parse_lengths(&args.lengths)?;
    if let Some(&bad) = lengths.iter().find(|&&l| !(1..=MAX_AWAY).contains(&l)) {
        return Err(CliError::msg(format!(
            "--lengths must be 1 to {MAX_AWAY}, got {bad}"
        )));
    }
    let xs = parse_xs(&args.x)?;
    let money = money_model(&args.model)?;
    let strategy = |model: &str, x: f64| {
        CubeStrategy::parse(&format!("{}:x={x}", model.trim()))
            .map_err(|e| CliError::msg(format!("--model: {e}")))
    };
    let mut out = Vec::with_capacity(lengths.len() * xs.len());
    for &length in &lengths {
        for &x in &xs {
            out.push(Cell {
                length,
                x,
                a: strategy(&args.model, x)?,
                b: strategy(money, x)?,
            });
        }
    }
    Ok(out)
}

/// What the study writes.
#[derive(Debug, PartialEq)]
pub struct Report {
    pub csv: String,
    pub txt: String,
    pub svg: String,
}

/// The report of `cells` with their results `stats` (in the same order); `what`
/// names the settings for the table's header (table, chequer play).
pub fn report(args: &MatchVsMoneyArgs, cells: &[Cell], stats: &[SimStats], what: &str) -> Report {
    let luck = args.common.luck;
    let mut csv = format!("length,x,a,b,{STATS_CSV_HEADER}\n");
    for (c, s) in cells.iter().zip(stats) {
        let _ = writeln!(
            csv,
            "{},{},{},{},{}",
            c.length,
            c.x,
            c.a,
            c.b,
            stats_csv(s, luck)
        );
    }
    let mut lengths: Vec<u32> = Vec::new();
    let mut xs: Vec<f64> = Vec::new();
    for c in cells {
        if !lengths.contains(&c.length) {
            lengths.push(c.length);
        }
        if !xs.contains(&c.x) {
            xs.push(c.x);
        }
    }
    let unit = if luck { "ppm, luck-adjusted" } else { "ppm" };
    let (a_name, b_name) = cells.first().map_or(("?".into(), "?".into()), |c| {
        let name = |s: &CubeStrategy| s.to_string().split(':').next().unwrap_or("").to_string();
        (name(&c.a), name(&c.b))
    });
    let mut txt = format!(
        "{a_name} (A) against {b_name} (B) with the same x; A's {unit} ± SE; {} matches \
         per cell, seed {}; {what}\n\n{:>8}",
        args.common.matches, args.common.seed, "x"
    );
    for l in &lengths {
        let _ = write!(txt, " {:>18}", format!("{l}-point"));
    }
    txt.push('\n');
    let at = |l: u32, x: f64| {
        cells
            .iter()
            .zip(stats)
            .find(|(c, _)| c.length == l && c.x == x)
            .map(|(_, s)| value(s, luck))
    };
    for &x in &xs {
        let _ = write!(txt, "{x:>8}");
        for &l in &lengths {
            let cell = at(l, x).map_or_else(String::new, |(v, se)| format!("{v:+.4} ± {se:.4}"));
            let _ = write!(txt, " {cell:>18}");
        }
        txt.push('\n');
    }
    let series: Vec<Series> = lengths
        .iter()
        .map(|&l| {
            let points: Vec<(f64, f64, f64)> = xs
                .iter()
                .filter_map(|&x| at(l, x).map(|(v, se)| (x, v, se)))
                .collect();
            Series {
                name: format!("{l}-point"),
                curve: points.iter().map(|&(x, v, _)| (x, v)).collect(),
                points,
            }
        })
        .collect();
    let svg = chart(
        &format!("{a_name} (A) vs {b_name} (B), same x"),
        "cube life index x (both players)",
        &format!("A's {unit}"),
        &series,
    );
    Report { csv, txt, svg }
}

/// Runs the study (here or on `--coordinator`, reusing the cells kept in `--out`)
/// and writes its report.
pub fn run(args: &MatchVsMoneyArgs) -> Result<(), CliError> {
    let cells = cells(args)?;
    let c = &args.common;
    let (met, chequer) = table(c, ChequerPlay::Own)?;
    let study: Vec<StudyCell> = cells
        .iter()
        .map(|k| StudyCell {
            plan: sim_plan(c, &met, chequer, k.a, k.b, k.length),
            symmetric: false,
        })
        .collect();
    let luck = c.luck;
    let label = |cell: &StudyCell, s: &SimStats| {
        let (v, se) = value(s, luck);
        format!(
            "{}-point, {}: ppm {v:+.4} ± {se:.4} ({} matches)",
            cell.plan.length, cell.plan.a, s.matches
        )
    };
    let stats = run_cells(c, "match-vs-money", study, &label)?;
    let what = format!("table {}, chequer play {chequer}", met.name());
    let r = report(args, &cells, &stats, &what);
    write_report(&c.out, PREFIX, &r.csv, &r.txt, &r.svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::sim_flags::SimFlags;
    use bgfarm_client::RemoteArgs;
    use std::path::PathBuf;

    fn args(lengths: &str, x: &str, model: &str, luck: bool) -> MatchVsMoneyArgs {
        MatchVsMoneyArgs {
            lengths: lengths.into(),
            x: x.into(),
            model: model.into(),
            common: Common {
                matches: 4,
                out: PathBuf::from("unused"),
                seed: 1,
                luck,
                sim: SimFlags {
                    met: "kazaross-xg2".into(),
                    net: "default".into(),
                    chequer: Some("cubeless".into()),
                    threads: None,
                },
                remote: RemoteArgs::default(),
                batch: 64,
            },
        }
    }

    #[test]
    fn cells_and_bad_input() {
        let cs = cells(&args("3,5", "0,1", "janowski-match-capped", false)).unwrap();
        assert_eq!(cs.len(), 4);
        assert_eq!((cs[1].length, cs[1].x), (3, 1.0));
        assert_eq!(cs[1].a.to_string(), "janowski-match-capped:x=1");
        assert_eq!(cs[1].b.to_string(), "janowski-capped:x=1");
        let un = cells(&args("7", "0.5", "janowski-match", false)).unwrap();
        assert_eq!(un[0].b.to_string(), "janowski-money:x=0.5");
        let err = |l: &str, x: &str, m: &str| cells(&args(l, x, m, false)).unwrap_err().to_string();
        assert!(err("0,3", "0.5", "janowski-match").contains("1 to 64, got 0"));
        assert!(err("65", "0.5", "janowski-match").contains("1 to 64, got 65"));
        assert!(err("3", "1.5", "janowski-match").contains("0 to 1"));
        assert!(err("3", "", "janowski-match").contains("at least one"));
        assert!(err("", "0.5", "janowski-match").contains("--lengths"));
        assert!(err("3", "0.5", "jump").contains("janowski-match-capped or janowski-match"));
    }

    #[test]
    fn report_is_a_function_of_cells_and_stats() {
        let a = args("3,5", "0,1", "janowski-match-capped", true);
        let cs = cells(&a).unwrap();
        let stats: Vec<SimStats> = (0..4)
            .map(|i| SimStats {
                matches: 4,
                pairs: 2,
                points: i - 1,
                pair_points_sq: 4,
                wins: 2,
                games: 10,
                adjusted: 0.25 * i as f64,
                pair_adjusted_sq: 1.0,
                ..SimStats::default()
            })
            .collect();
        let r = report(&a, &cs, &stats, "table T");
        assert_eq!(r, report(&a, &cs, &stats, "table T"));
        let rows: Vec<&str> = r.csv.lines().collect();
        assert_eq!(rows.len(), 5);
        assert!(
            rows[2].starts_with("3,1,janowski-match-capped:x=1,janowski-capped:x=1,4,"),
            "{}",
            rows[2]
        );
        assert!(!r.csv.contains("seconds"));
        assert!(
            r.txt.contains("3-point") && r.txt.contains("5-point"),
            "{}",
            r.txt
        );
        assert!(r.txt.contains("luck-adjusted") && r.txt.contains("table T"));
        assert_eq!(r.svg.matches("<circle").count(), 4);
    }
}
