//! A study's cells as rows and one plot, from the cells' plans and their folded
//! totals alone: what the coordinator's page shows of a finished study job. (The
//! CLI's study reports add what only the command line knows, such as the baseline
//! of a cube-life fit.)
//!
//! The plot follows the study's shape: cells whose players differ are plotted as
//! A's points per match (or game) against A's cube life index, one series per match
//! length (cube-life, money-cube-life, match-vs-money); cells that play one
//! strategy against itself, where points are zero by symmetry, as average games
//! per match against the length, one series per cube life index (games-per-match).

use crate::svg::{chart, Series};
use bgfarm_engine::matchsim::{SimStats, StudyCell};

/// One cell's row: what was played and what came out.
#[derive(Clone, Debug, PartialEq)]
pub struct CellRow {
    /// Match length; 0 for cubeful money games.
    pub length: u32,
    pub a: String,
    pub b: String,
    pub matches: u64,
    /// A's points per match (luck-adjusted when the cell measured luck) and its SE.
    pub ppm: f64,
    pub se: Option<f64>,
    pub win_rate: f64,
    pub avg_games: f64,
}

/// The rows of `cells` with their totals, in cell order.
pub fn rows(cells: &[StudyCell], totals: &[SimStats]) -> Vec<CellRow> {
    cells
        .iter()
        .zip(totals)
        .map(|(c, s)| {
            let (ppm, se) = if c.plan.luck {
                (s.adjusted_ppm(), s.adjusted_se())
            } else {
                (s.ppm(), s.se())
            };
            CellRow {
                length: c.plan.length,
                a: c.plan.a.to_string(),
                b: c.plan.b.to_string(),
                matches: s.matches,
                ppm,
                se,
                win_rate: s.win_rate(),
                avg_games: s.avg_games(),
            }
        })
        .collect()
}

/// The study's plot as an SVG document (see the module docs for its axes).
pub fn plot(name: &str, cells: &[StudyCell], totals: &[SimStats]) -> String {
    let symmetric = cells.iter().all(|c| c.symmetric);
    let mut series: Vec<Series> = Vec::new();
    for (c, s) in cells.iter().zip(totals) {
        let x = c.plan.a.life_index();
        let (key, point) = if symmetric {
            let se = s.avg_games_se().unwrap_or(0.0);
            (
                format!("x = {x}"),
                (c.plan.length as f64, s.avg_games(), se),
            )
        } else {
            let (ppm, se) = if c.plan.luck {
                (s.adjusted_ppm(), s.adjusted_se())
            } else {
                (s.ppm(), s.se())
            };
            let key = if c.plan.length == 0 {
                "money".to_string()
            } else {
                format!("{} points", c.plan.length)
            };
            (key, (x, ppm, se.unwrap_or(0.0)))
        };
        match series.iter_mut().find(|s| s.name == key) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name: key,
                points: vec![point],
                curve: Vec::new(),
            }),
        }
    }
    // Join each series' points in x order, so the shape reads at a glance.
    for s in &mut series {
        s.points.sort_by(|p, q| p.0.total_cmp(&q.0));
        s.curve = s.points.iter().map(|&(x, y, _)| (x, y)).collect();
    }
    let (x_label, y_label) = if symmetric {
        ("match length", "games per match")
    } else {
        ("A's cube life index x", "A's points per match")
    };
    chart(&format!("study {name}"), x_label, y_label, &series)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::matchsim::{CubeStrategy, SimPlan};
    use bgfarm_engine::met::MatchEquityTable;

    fn cell(a: &str, b: &str, length: u32, symmetric: bool) -> StudyCell {
        StudyCell {
            plan: SimPlan {
                a: CubeStrategy::parse(a).expect("a"),
                b: CubeStrategy::parse(b).expect("b"),
                length,
                met: MatchEquityTable::kazaross_xg2(),
                own_mets: [None, None],
                jacoby: false,
                luck: false,
                seed: 1,
                chequer: Default::default(),
                pairs: 2,
                batch: 16,
            },
            symmetric,
        }
    }

    #[test]
    fn rows_and_plot_follow_the_cells() {
        let cells = [
            cell("janowski-match:x=0.5", "janowski-match:x=0.7", 3, false),
            cell("janowski-match:x=0.9", "janowski-match:x=0.7", 3, false),
        ];
        let totals = [SimStats::default(), SimStats::default()];
        let r = rows(&cells, &totals);
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].a, "janowski-match:x=0.9");
        assert_eq!(r[0].length, 3);
        let svg = plot("cube-life", &cells, &totals);
        assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{svg}");
        assert!(svg.contains("3 points"), "{svg}");
        assert!(svg.contains("cube life index"), "{svg}");
    }
}
