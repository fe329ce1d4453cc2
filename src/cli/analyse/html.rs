//! `bgfarm analyse FILE --html OUT.html`: the analysis as one self-contained HTML
//! page: the statistics table (the text report's rows), then every decision marked
//! doubtful or worse (an error of 0.04 EMG or more) and every rolled-out one, each
//! with a board diagram of the position before it (`bgfarm_report::board_svg`), the
//! played and the best choice with their errors, the luck of the roll and the
//! rollout figures where there are some.
//!
//! Self-contained: the style sheet is inline, the boards are inline SVG, there is no
//! script and no link to anything outside the file, so the page can be mailed or
//! archived. Every text from the match file (player names) or computed from it
//! (moves, position IDs) is escaped.

use super::report::{mark, sections, stats, Info, DOUBTFUL};
use super::rollouts::{CubeRolledOut, RolledOut};
use super::{CubeChoice, Decision, Kind};
use bgfarm_report::board_svg::{self, Board};
use bgfarm_report::markup::escape;
use std::fmt::Write;

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:60em}\
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.6em}h3{font-size:1.05em}\
table{border-collapse:collapse;margin:.5em 0}\
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}\
th{background:#f0f0f0}td.l,th.l{text-align:left}td{font-family:monospace}\
tr.section th{text-align:left;background:#e4e4e4}\
section.decision{border-top:1px solid #bbb;margin-top:1.2em;padding-top:.4em}\
.note{color:#666}.very-bad{color:#a00}.bad{color:#c50}.doubtful{color:#875}";

/// The page.
pub fn page(info: &Info<'_>, decisions: &[Decision]) -> String {
    let m = info.m;
    let s = stats(info, decisions);
    let names = [escape(&m.players[0]), escape(&m.players[1])];
    let play = if m.length > 0 {
        format!("{}-point match", m.length)
    } else {
        "money session".to_string()
    };
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{} vs {}: match analysis</title><style>{STYLE}</style></head><body>\n",
        names[0], names[1]
    );
    let _ = write!(
        o,
        "<h1>{} vs {}: {play}, {} games</h1>\n<p class=\"note\">{} ({}). Chequer play {}-ply \
         (filter {}), cube actions {}-ply cubeful lookahead{}; errors in EMG; luck with the \
         best plays at {}-ply.</p>\n",
        names[0],
        names[1],
        m.games.len(),
        escape(info.file),
        info.format,
        info.ply,
        escape(&info.filter),
        info.ply,
        info.met
            .as_ref()
            .map_or(String::new(), |t| format!(", MET {}", escape(t))),
        info.luck_ply
    );
    let _ = write!(
        o,
        "<h2>Statistics</h2>\n<table id=\"stats\"><tr><th class=\"l\"></th><th>{}</th><th>{}</th></tr>\n",
        names[0], names[1]
    );
    for (title, rows) in sections(info, &s) {
        let _ = writeln!(
            o,
            "<tr class=\"section\"><th colspan=\"3\">{}</th></tr>",
            escape(&title)
        );
        for (label, a, b) in rows {
            let _ = writeln!(
                o,
                "<tr class=\"stat\"><td class=\"l\">{}</td><td>{}</td><td>{}</td></tr>",
                escape(label),
                escape(&a),
                escape(&b)
            );
        }
    }
    o.push_str("</table>\n");
    let shown: Vec<&Decision> = decisions
        .iter()
        .filter(|d| {
            d.rated.error.is_some_and(|e| e >= DOUBTFUL)
                || rollout_of(info.rollouts, d).is_some()
                || cube_rollout_of(info.cube_rollouts, d).is_some()
        })
        .collect();
    let rolled = if info.rollouts.is_empty() && info.cube_rollouts.is_empty() {
        ""
    } else {
        " or rolled out"
    };
    let _ = writeln!(
        o,
        "<h2>Decisions marked doubtful or worse{rolled} ({})</h2>",
        shown.len()
    );
    for d in shown {
        decision(&mut o, info, d);
    }
    let _ = writeln!(
        o,
        "<p class=\"note\">{:.1} s on {} threads.</p></body></html>",
        info.seconds, info.threads
    );
    o
}

fn rollout_of<'a>(rollouts: &'a [RolledOut], d: &Decision) -> Option<&'a RolledOut> {
    if d.kind != Kind::Chequer {
        return None;
    }
    rollouts
        .iter()
        .find(|r| (r.game, r.move_no, &r.position) == (d.game, d.move_no, &d.position))
}

fn cube_rollout_of<'a>(rollouts: &'a [CubeRolledOut], d: &Decision) -> Option<&'a CubeRolledOut> {
    let Kind::Cube(choice) = d.kind else {
        return None;
    };
    rollouts.iter().find(|r| {
        (r.game, r.move_no, r.player, r.played) == (d.game, d.move_no, d.player, choice.as_str())
    })
}

/// The board before a decision, from the side of the player on roll.
pub fn board(info: &Info<'_>, d: &Decision) -> Board {
    Board::of_decision(
        &info.m.players,
        d.on_roll,
        d.board,
        d.cube,
        info.m.length,
        d.score,
        d.crawford,
        d.dice,
    )
}

fn decision(o: &mut String, info: &Info<'_>, d: &Decision) {
    let who = escape(&info.m.players[usize::from(d.player)]);
    let what = match d.kind {
        Kind::Chequer => match d.dice {
            Some([a, b]) => format!("plays {a}{b}"),
            None => "plays".to_string(),
        },
        Kind::Cube(CubeChoice::Take | CubeChoice::Drop) => format!(
            "answers a double to {} (the board before it)",
            2 * d.cube.value
        ),
        Kind::Cube(_) => "decides on the cube".to_string(),
    };
    let e = d.rated.error.unwrap_or(0.0);
    let class = mark(e).unwrap_or("").replace(' ', "-");
    let _ = writeln!(
        o,
        "<section class=\"decision\" id=\"g{}m{}-{}\"><h3>Game {}, move {}: {who} {what} \
         <span class=\"{class}\">{}</span></h3>",
        d.game,
        d.move_no,
        match d.kind {
            Kind::Chequer => "chequer",
            Kind::Cube(c) => c.as_str(),
        },
        d.game,
        d.move_no,
        mark(e).unwrap_or("")
    );
    o.push_str(&board_svg::svg(&board(info, d)));
    let mwc = |x: Option<f64>| x.map_or(String::new(), |x| format!(" ({:.2}% MWC)", 100.0 * x));
    let _ = write!(
        o,
        "\n<table class=\"choices\"><tr><th class=\"l\"></th><th class=\"l\">choice</th>\
         <th>error EMG</th></tr>\
         <tr class=\"played\"><td class=\"l\">played</td><td class=\"l\">{}</td><td>{:.3}{}</td></tr>\
         <tr class=\"best\"><td class=\"l\">best</td><td class=\"l\">{}</td><td>0</td></tr></table>\n",
        escape(&d.rated.played),
        -e,
        mwc(d.rated.error_mwc.map(|x| -x)),
        escape(&d.rated.best)
    );
    let mut notes = Vec::new();
    if let Some(l) = d.luck {
        notes.push(format!("luck of the roll {l:+.3} EMG"));
    }
    notes.push(format!("position {}", escape(&d.position)));
    let _ = writeln!(o, "<p class=\"note\">{}</p>", notes.join("; "));
    if let Some(r) = rollout_of(info.rollouts, d) {
        let _ = writeln!(
            o,
            "<table class=\"rollout\"><tr><th class=\"l\">rolled out ({} trials)</th>\
             <th class=\"l\">play</th><th>cubeless equity</th><th>SE</th></tr>\
             <tr><td class=\"l\">played</td><td class=\"l\">{}</td><td>{:+.3}</td><td>{:.3}</td></tr>\
             <tr><td class=\"l\">best at {}-ply</td><td class=\"l\">{}</td><td>{:+.3}</td><td>{:.3}</td></tr>",
            r.trials,
            escape(&r.played.notation),
            r.played.equity,
            r.played.equity_se,
            info.ply,
            escape(&r.best.notation),
            r.best.equity,
            r.best.equity_se
        );
        for (i, p) in r.others.iter().enumerate() {
            let _ = writeln!(
                o,
                "<tr><td class=\"l\">#{} at {}-ply</td><td class=\"l\">{}</td><td>{:+.3}</td>\
                 <td>{:.3}</td></tr>",
                i + 2,
                info.ply,
                escape(&p.notation),
                p.equity,
                p.equity_se
            );
        }
        o.push_str("</table>\n");
    }
    if let Some(r) = cube_rollout_of(info.cube_rollouts, d) {
        let units = if info.m.length > 0 {
            "MWC"
        } else {
            "equity per cube"
        };
        let _ = writeln!(
            o,
            "<table class=\"rollout\"><tr><th class=\"l\">rolled out ({} trials, cubeful)</th>\
             <th>{units}</th><th>SE</th></tr>\
             <tr><td class=\"l\">no double</td><td>{:+.4}</td><td>{:.4}</td></tr>\
             <tr><td class=\"l\">double/take</td><td>{:+.4}</td><td>{:.4}</td></tr>\
             <tr><td class=\"l\">double/pass</td><td>{:+.4}</td><td></td></tr></table>\n\
             <p class=\"note\">By the rollout: {}; played {}, best {}: error {:.3} EMG{}.</p>",
            r.trials,
            r.decision.no_double,
            r.decision.no_double_se,
            r.decision.double_take,
            r.decision.double_take_se,
            r.decision.double_pass,
            r.decision.action.replace('_', " "),
            r.played,
            r.best,
            r.error,
            mwc(r.error_mwc),
        );
    }
    o.push_str("</section>\n");
}
