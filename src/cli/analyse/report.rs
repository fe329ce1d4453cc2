//! Per-player statistics of an analysed match, printed as text (laid out like GNU
//! Backgammon's match statistics) or as one JSON object.
//!
//! - Chequer play: moves (rolls with a legal play), unforced moves (more than one
//!   legal play: the only ones rated), the error total and the error rate in mEMG
//!   per unforced move.
//! - Cube: the counted cube decisions (doubles, takes, drops and close no-doubles,
//!   see `rate::cube`), their error total and rate.
//! - Overall: the error rate per counted decision (unforced moves plus cube
//!   decisions) and eXtreme Gammon's PR, 500 times the mean error in EMG of the same
//!   decisions (so PR is half the overall rate in mEMG).
//! - Marks, GNU Backgammon's thresholds in EMG, as disjoint classes: doubtful from
//!   0.04, bad from 0.08, very bad from 0.16.
//! - Luck: rolls, luck total and rate, marked rolls, the actual and the
//!   luck-adjusted result (`luck.rs`).

use super::{Decision, Kind};
use bgfarm_engine::matchfile::Match;
use serde::Serialize;
use std::fmt::Write;

pub use bgfarm_engine::analysis::rate::{BAD, DOUBTFUL, VERY_BAD};

/// What the report says about the run.
pub struct Info<'a> {
    pub file: &'a str,
    pub format: &'static str,
    pub m: &'a Match,
    pub ply: u8,
    pub filter: String,
    pub met: Option<String>,
    pub seconds: f64,
    pub threads: usize,
    /// `--rollout-threshold`'s rollouts (empty without it).
    pub rollouts: &'a [super::rollouts::RolledOut],
    /// The cube errors rolled out (`--rollout-threshold`), cubeful.
    pub cube_rollouts: &'a [super::rollouts::CubeRolledOut],
    /// Each player's luck and result.
    pub luck: &'a [super::luck::LuckStats; 2],
    /// The ply of the luck's plays, and the seconds the luck took.
    pub luck_ply: u8,
    pub luck_seconds: f64,
}

/// One player's statistics.
#[derive(Serialize, Default, Clone)]
pub struct PlayerStats {
    pub name: String,
    pub moves: u32,
    pub unforced: u32,
    pub chequer_error: f64,
    /// mEMG per unforced move.
    pub chequer_error_rate: f64,
    pub chequer_error_mwc: Option<f64>,
    pub cube_decisions: u32,
    pub doubles: u32,
    pub takes: u32,
    pub drops: u32,
    pub cube_error: f64,
    /// mEMG per cube decision.
    pub cube_error_rate: f64,
    pub cube_error_mwc: Option<f64>,
    /// mEMG per decision (unforced moves and cube decisions).
    pub error_rate: f64,
    /// eXtreme Gammon's performance rating: 500 x mean EMG error per decision.
    pub pr: f64,
    pub doubtful: u32,
    pub bad: u32,
    pub very_bad: u32,
    #[serde(flatten)]
    pub luck: super::luck::LuckStats,
}

pub fn mark(e: f64) -> Option<&'static str> {
    if e >= VERY_BAD {
        Some("very bad")
    } else if e >= BAD {
        Some("bad")
    } else if e >= DOUBTFUL {
        Some("doubtful")
    } else {
        None
    }
}

fn per(total: f64, n: u32, scale: f64) -> f64 {
    if n == 0 {
        0.0
    } else {
        scale * total / f64::from(n)
    }
}

/// The statistics of both players.
pub fn stats(info: &Info<'_>, decisions: &[Decision]) -> [PlayerStats; 2] {
    let m = info.m;
    let is_match = m.length > 0;
    let mut s: [PlayerStats; 2] = Default::default();
    for (p, st) in s.iter_mut().enumerate() {
        st.name = m.players[p].clone();
        st.luck = info.luck[p].clone();
        if is_match {
            st.chequer_error_mwc = Some(0.0);
            st.cube_error_mwc = Some(0.0);
        }
    }
    for d in decisions {
        let st = &mut s[d.player as usize];
        let e = d.rated.error.unwrap_or(0.0);
        let e_mwc = d.rated.error_mwc.unwrap_or(0.0);
        match d.kind {
            Kind::Chequer => {
                st.moves += 1;
                if !d.forced {
                    st.unforced += 1;
                }
                st.chequer_error += e;
                if let Some(t) = st.chequer_error_mwc.as_mut() {
                    *t += e_mwc;
                }
            }
            Kind::Cube(c) => {
                st.cube_decisions += 1;
                match c {
                    super::CubeChoice::Double => st.doubles += 1,
                    super::CubeChoice::Take => st.takes += 1,
                    super::CubeChoice::Drop => st.drops += 1,
                    super::CubeChoice::NoDouble => {}
                }
                st.cube_error += e;
                if let Some(t) = st.cube_error_mwc.as_mut() {
                    *t += e_mwc;
                }
            }
        }
        match mark(e) {
            Some("very bad") => st.very_bad += 1,
            Some("bad") => st.bad += 1,
            Some(_) => st.doubtful += 1,
            None => {}
        }
    }
    for st in &mut s {
        st.chequer_error_rate = per(st.chequer_error, st.unforced, 1000.0);
        st.cube_error_rate = per(st.cube_error, st.cube_decisions, 1000.0);
        let n = st.unforced + st.cube_decisions;
        st.error_rate = per(st.chequer_error + st.cube_error, n, 1000.0);
        st.pr = per(st.chequer_error + st.cube_error, n, 500.0);
    }
    s
}

#[derive(Serialize)]
struct JsonDecision<'a> {
    game: u32,
    #[serde(rename = "move")]
    move_no: u32,
    player: &'a str,
    kind: &'static str,
    position: &'a str,
    dice: Option<[u8; 2]>,
    played: &'a str,
    best: &'a str,
    /// EMG lost; `null` when not rated (forced moves, dead cubes).
    error: Option<f64>,
    error_mwc: Option<f64>,
    forced: bool,
    mark: Option<&'static str>,
    /// The luck of the roll (chequer decisions), EMG.
    #[serde(skip_serializing_if = "Option::is_none")]
    luck: Option<f64>,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    file: &'a str,
    format: &'static str,
    match_length: u32,
    games: usize,
    ply: u8,
    filter: &'a str,
    met: Option<&'a str>,
    units: &'static str,
    /// The unit of the players' `actual_result` and `luck_adjusted_result`.
    result_units: &'static str,
    luck_ply: u8,
    players: [PlayerStats; 2],
    decisions: Vec<JsonDecision<'a>>,
    /// The errors rolled out (`--rollout-threshold`), cubeless equities.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    rollouts: &'a [super::rollouts::RolledOut],
    /// The cube errors rolled out, cubeful: money equity per cube or MWC.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    cube_rollouts: Vec<JsonCubeRollout<'a>>,
    seconds: f64,
}

/// A cube rollout with the decider's name.
#[derive(Serialize)]
struct JsonCubeRollout<'a> {
    #[serde(flatten)]
    rolled: &'a super::rollouts::CubeRolledOut,
    player: &'a str,
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Chequer => "chequer",
        Kind::Cube(c) => c.as_str(),
    }
}

/// The JSON report.
pub fn json(info: &Info<'_>, decisions: &[Decision]) -> Result<String, serde_json::Error> {
    let out = JsonOut {
        file: info.file,
        format: info.format,
        match_length: info.m.length,
        games: info.m.games.len(),
        ply: info.ply,
        filter: &info.filter,
        met: info.met.as_deref(),
        units: "emg",
        result_units: if info.m.length > 0 { "mwc" } else { "points" },
        luck_ply: info.luck_ply,
        players: stats(info, decisions),
        decisions: decisions
            .iter()
            .map(|d| JsonDecision {
                game: d.game,
                move_no: d.move_no,
                player: &info.m.players[d.player as usize],
                kind: kind_name(d.kind),
                position: &d.position,
                dice: d.dice,
                played: &d.rated.played,
                best: &d.rated.best,
                error: d.rated.error,
                error_mwc: d.rated.error_mwc,
                forced: d.forced,
                mark: d.rated.error.and_then(mark),
                luck: d.luck,
            })
            .collect(),
        rollouts: info.rollouts,
        cube_rollouts: info
            .cube_rollouts
            .iter()
            .map(|r| JsonCubeRollout {
                rolled: r,
                player: &info.m.players[usize::from(r.player)],
            })
            .collect(),
        seconds: info.seconds,
    };
    serde_json::to_string(&out)
}

/// A titled group of rows: a label and each player's cell.
pub type Section = (String, Vec<(&'static str, String, String)>);

/// The statistics as titled rows, shared by the text and the HTML report.
pub fn sections(info: &Info<'_>, s: &[PlayerStats; 2]) -> Vec<Section> {
    let both = |f: &dyn Fn(&PlayerStats) -> String| (f(&s[0]), f(&s[1]));
    let total = |e: f64, mwc: Option<f64>| match mwc {
        Some(x) => format!("{:.3} ({:.2}%)", e, 100.0 * x),
        None => format!("{e:.3}"),
    };
    let row = |label: &'static str, (a, b): (String, String)| (label, a, b);
    let chequer = vec![
        row("Total moves", both(&|p| p.moves.to_string())),
        row("Unforced moves", both(&|p| p.unforced.to_string())),
        row(
            "Error total EMG (MWC)",
            both(&|p| total(p.chequer_error, p.chequer_error_mwc)),
        ),
        row(
            "Error rate mEMG per unforced move",
            both(&|p| format!("{:.1}", p.chequer_error_rate)),
        ),
    ];
    let cube = vec![
        row(
            "Close or actual cube decisions",
            both(&|p| p.cube_decisions.to_string()),
        ),
        row(
            "Doubles / takes / drops",
            both(&|p| format!("{} / {} / {}", p.doubles, p.takes, p.drops)),
        ),
        row(
            "Error total EMG (MWC)",
            both(&|p| total(p.cube_error, p.cube_error_mwc)),
        ),
        row(
            "Error rate mEMG per cube decision",
            both(&|p| format!("{:.1}", p.cube_error_rate)),
        ),
    ];
    let overall = vec![
        row(
            "Decisions marked doubtful",
            both(&|p| p.doubtful.to_string()),
        ),
        row("Decisions marked bad", both(&|p| p.bad.to_string())),
        row(
            "Decisions marked very bad",
            both(&|p| p.very_bad.to_string()),
        ),
        row(
            "Error rate mEMG per decision",
            both(&|p| format!("{:.1}", p.error_rate)),
        ),
        row("PR (eXtreme Gammon)", both(&|p| format!("{:.1}", p.pr))),
    ];
    vec![
        ("Chequer play".to_string(), chequer),
        ("Cube decisions".to_string(), cube),
        ("Overall".to_string(), overall),
        (
            format!("Luck (best plays at {}-ply)", info.luck_ply),
            super::luck::rows(info.m.length > 0, &s[0].luck, &s[1].luck),
        ),
    ]
}

/// The text report.
pub fn text(info: &Info<'_>, decisions: &[Decision]) -> String {
    let m = info.m;
    let s = stats(info, decisions);
    let mut o = String::new();
    let play = if m.length > 0 {
        format!("{}-point match", m.length)
    } else {
        "money session".to_string()
    };
    let _ = writeln!(
        o,
        "{} ({}): {play}, {} vs {}, {} games",
        info.file,
        info.format,
        s[0].name,
        s[1].name,
        m.games.len()
    );
    let _ = writeln!(
        o,
        "Chequer play {}-ply (filter {}), cube actions {}-ply cubeful lookahead{}; errors in EMG",
        info.ply,
        info.filter,
        info.ply,
        info.met
            .as_ref()
            .map_or(String::new(), |t| format!(", MET {t}"))
    );
    let w = s.iter().map(|p| p.name.len()).max().unwrap_or(0).max(16);
    let _ = writeln!(o);
    let _ = writeln!(o, "  {:<34} {:>w$} {:>w$}", "", s[0].name, s[1].name);
    for (title, rows) in sections(info, &s) {
        let _ = writeln!(o, "{title}");
        for (label, a, b) in rows {
            let _ = writeln!(o, "  {label:<34} {a:>w$} {b:>w$}");
        }
    }
    let marked: Vec<&Decision> = decisions
        .iter()
        .filter(|d| d.rated.error.is_some_and(|e| e >= DOUBTFUL))
        .collect();
    if !marked.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "Decisions marked doubtful or worse:");
        for d in marked {
            let e = d.rated.error.unwrap_or(0.0);
            let dice = d.dice.map_or(String::new(), |[x, y]| format!(" {x}{y}"));
            let _ = writeln!(
                o,
                "  game {} move {} {}{dice}: played {}, best {}: -{e:.3} ({})  {}",
                d.game,
                d.move_no,
                m.players[d.player as usize],
                d.rated.played,
                d.rated.best,
                mark(e).unwrap_or(""),
                d.position
            );
        }
    }
    if !info.rollouts.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "Rolled out ({} trials a play, cubeless equity of the mover, ± SE; cubeful: \
             money equity per cube or MWC):",
            info.rollouts[0].trials
        );
        for r in info.rollouts {
            if let (Some(p), Some(b)) = (r.played.cubeful, r.best.cubeful) {
                let _ = writeln!(
                    o,
                    "  game {} move {} {}{}: cubeful, played {} {:+.4} ± {:.4}, best {} {:+.4} ± {:.4}: {:+.4}",
                    r.game,
                    r.move_no,
                    r.dice[0],
                    r.dice[1],
                    r.played.notation,
                    p,
                    r.played.cubeful_se.unwrap_or(f64::NAN),
                    r.best.notation,
                    b,
                    r.best.cubeful_se.unwrap_or(f64::NAN),
                    p - b,
                );
            }
            let _ = writeln!(
                o,
                "  game {} move {} {}{}: played {} {:+.3} ± {:.3}, best {} {:+.3} ± {:.3}: {:+.3}",
                r.game,
                r.move_no,
                r.dice[0],
                r.dice[1],
                r.played.notation,
                r.played.equity,
                r.played.equity_se,
                r.best.notation,
                r.best.equity,
                r.best.equity_se,
                r.played.equity - r.best.equity,
            );
            for p in &r.others {
                let _ = writeln!(
                    o,
                    "    also {} {:+.3} ± {:.3}",
                    p.notation, p.equity, p.equity_se
                );
            }
        }
    }
    if let Some(first) = info.cube_rollouts.first() {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "Cube actions rolled out ({} trials a branch, cubeful: the doubler's money \
             equity per cube or MWC, ± SE):",
            first.trials
        );
        for r in info.cube_rollouts {
            let mwc = r
                .error_mwc
                .map_or(String::new(), |x| format!(", {:.2}% MWC", 100.0 * x));
            let _ = writeln!(
                o,
                "  game {} move {} {}: {}; played {}, best {}: -{:.3}{mwc}",
                r.game,
                r.move_no,
                info.m.players[usize::from(r.player)],
                bgfarm_report::rollout_table::decision_text(&r.decision),
                r.played,
                r.best,
                r.error,
            );
        }
    }
    let _ = writeln!(
        o,
        "\n{:.1} s on {} threads (luck {:.1} s)",
        info.seconds, info.threads, info.luck_seconds
    );
    o
}
