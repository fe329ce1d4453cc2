//! A finished study's result on its job page: one row per cell (length, the two
//! strategies, matches, A's points per match with its SE, win rate, games per
//! match) and the study's plot, drawn by the same chart code as the CLI's reports
//! (`bgfarm_report::study_cells`). The CLI's `--out` files add the fits, which need
//! what only the command line knows (the baseline, the fit window).

use super::html::{escape, table, Cell};
use bgfarm_engine::matchsim::{SimStats, StudyCell};
use bgfarm_report::study_cells::{plot, rows};

/// The table and plot of study `name`.
pub fn study(name: &str, cells: &[StudyCell], totals: &[SimStats]) -> String {
    let headers = [
        ("#", false),
        ("length", false),
        ("A", true),
        ("B", true),
        ("matches", false),
        ("A ppm", false),
        ("SE", false),
        ("A wins", false),
        ("games/match", false),
    ];
    let body: Vec<Vec<Cell>> = rows(cells, totals)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            vec![
                Cell::num(&(i + 1).to_string()),
                Cell::num(&if r.length == 0 {
                    "money".to_string()
                } else {
                    r.length.to_string()
                }),
                Cell::text(&r.a),
                Cell::text(&r.b),
                Cell::num(&r.matches.to_string()),
                Cell::num(&format!("{:+.4}", r.ppm)),
                Cell::num(&r.se.map_or_else(|| "–".into(), |e| format!("{e:.4}"))),
                Cell::num(&format!("{:.1}%", 100.0 * r.win_rate)),
                Cell::num(&format!("{:.3}", r.avg_games)),
            ]
        })
        .collect();
    format!(
        "<h2>Study {}</h2>\n<p>{} cells.</p>\n{}<div class=\"plot\">{}</div>\n",
        escape(name),
        cells.len(),
        table(&headers, &body),
        plot(name, cells, totals)
    )
}
