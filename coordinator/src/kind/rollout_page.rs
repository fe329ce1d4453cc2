//! A rollout on its job page: what was rolled out ([`describe`]: the board of the
//! position as it was asked, its IDs, the roll, the candidates and the settings),
//! shown from submission on, and the result table when it is done ([`table`]).

use crate::html::{escape, facts, table as html_table, Cell};
use bgfarm_engine::rollout::{RolloutJob, RolloutPlan, RolloutStats};
use bgfarm_proto::v1;
use bgfarm_report::board_svg;
use bgfarm_report::rollout_rows::{cube_decision, ranked};
use bgfarm_report::rollout_setup::{settings, Setup};
use bgfarm_report::rollout_table::{cells, columns, decision_text};
use std::fmt::Write;

/// What `plan` rolls out, asked as `query` (the board when the query's input
/// can be read: specs submitted without one show the candidates and settings).
pub(super) fn describe(plan: &RolloutPlan, query: Option<&v1::RolloutQuery>) -> String {
    let mut s = String::from("<h2>What is rolled out</h2>\n");
    let dice = query.and_then(|q| match q.dice[..] {
        [a, b] => Some([a as u8, b as u8]),
        _ => None,
    });
    let setup = query.and_then(|q| Setup::parse(&q.input));
    let mut rows: Vec<(&str, String)> = Vec::new();
    if let Some(q) = query {
        rows.push(("input", format!("<code>{}</code>", escape(&q.input))));
        if !q.position_id.is_empty() {
            rows.push((
                "position ID",
                format!("<code>{}</code>", escape(&q.position_id)),
            ));
        }
    }
    if let Some(setup) = &setup {
        let shown = Setup {
            dice: dice.or(setup.dice),
            ..setup.clone()
        };
        rows.push((
            "match ID",
            format!("<code>{}</code>", escape(&shown.match_id())),
        ));
        rows.push(("XGID", format!("<code>{}</code>", escape(&shown.xgid()))));
        let _ = writeln!(
            s,
            "<div class=\"diagram\">{}</div>",
            board_svg::svg(&setup.board(dice))
        );
    }
    rows.push((
        "roll",
        match dice {
            Some([a, b]) => format!("{a}{b}: its moves are rolled out"),
            None => "none: the position before the roll".into(),
        },
    ));
    let labels: Vec<String> = plan
        .job
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let label = c
                .label
                .clone()
                .unwrap_or_else(|| format!("the position ({})", i + 1));
            format!("<li>{}</li>", escape(&label))
        })
        .collect();
    rows.push((
        "candidates",
        format!("<ol class=\"candidates\">{}</ol>", labels.concat()),
    ));
    for (name, value) in settings(plan) {
        rows.push((name, escape(&value)));
    }
    s.push_str(&facts(&rows));
    s
}

/// A rollout's table, best first, with the CLI's columns and numbers.
pub(super) fn table(job: &RolloutJob, total: &RolloutStats) -> String {
    let rows = ranked(job, total);
    let cubeful = job.settings.cube.is_some();
    let cols = columns(cubeful);
    let mut headers: Vec<(&str, bool)> = cols.iter().map(|c| (c.name, c.left)).collect();
    headers.push(("vs best", false));
    let table_rows: Vec<Vec<Cell>> = cells(&rows)
        .into_iter()
        .map(|c| {
            let mut out: Vec<Cell> = c
                .cells
                .iter()
                .zip(&cols)
                .map(|(t, col)| {
                    if col.left {
                        Cell::text(t)
                    } else {
                        Cell::num(t)
                    }
                })
                .collect();
            out.push(Cell::num(c.vs_best.as_deref().unwrap_or("")));
            out
        })
        .collect();
    let trials = rows.first().map_or(0, |r| r.trials);
    let mut s = format!(
        "<h2>Rollout</h2>\n<p>{trials} trials per candidate, seed {}, {}-ply chequer play, {}.</p>\n",
        job.seed,
        job.settings.chequer_ply,
        if cubeful { "cubeful" } else { "cubeless" }
    );
    s.push_str(&html_table(&headers, &table_rows));
    if let Some(d) = cube_decision(job, &rows, None) {
        s.push_str(&format!("<p>cube: {}</p>\n", escape(&decision_text(&d))));
    }
    s
}
