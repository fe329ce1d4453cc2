//! The text table of a rollout: one line of settings, one row per candidate (best
//! first, with its difference to the best) and the cube decision, if any.

use super::finished::Summary;
use bgfarm_engine::rollout::{CubeRules, RolloutJob};
use bgfarm_report::rollout_rows::JsonCandidate;
use bgfarm_report::rollout_table::{cells, columns, decision_text, text_line};

/// Prints `rows` (best first) and the rest of `s` as a table.
pub fn print_table(rows: &[JsonCandidate], s: &Summary<'_>) {
    let run = s.run;
    let job = run.job;
    let cubeful = job.settings.cube.is_some();
    let what = match run.dice {
        Some(d) => format!("moves of {d} in {}", run.position.trim()),
        None => format!("{} (player on roll, before the roll)", run.position.trim()),
    };
    println!("Rollout of {what}");
    println!(
        "{}",
        settings_line(job, s.match_score, rows.first().map_or(0, |r| r.trials))
    );
    let columns = columns(cubeful);
    let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
    println!("{}", text_line(&columns, &names));
    for row in cells(rows) {
        let vs_best = row.vs_best.map(|d| format!("  ({d})")).unwrap_or_default();
        println!("{}{vs_best}", text_line(&columns, &row.cells));
    }
    if let Some(d) = &s.decision {
        println!("  cube: {}", decision_text(d));
    }
    match run.timing {
        Some((seconds, threads)) => println!(
            "  {seconds:.1} s on {threads} threads; engine {}",
            run.fingerprint
        ),
        None => println!("  stored result; engine {}", run.fingerprint),
    }
}

/// The settings line of a rollout of `job` with `trials` trials per candidate
/// (`match_score` for the player on roll in the input position, in match play).
pub fn settings_line(job: &RolloutJob, match_score: Option<[u32; 2]>, trials: u64) -> String {
    let cube_text = match (job.settings.cube, match_score) {
        (None, _) => "cubeless".to_string(),
        (Some(CubeRules::Money { jacoby }), _) => {
            format!("cubeful money{}", if jacoby { ", Jacoby" } else { "" })
        }
        (Some(_), Some([a, b])) => format!("cubeful match, {a}-away/{b}-away (MWC)"),
        (Some(_), None) => "cubeful".to_string(),
    };
    let cube_text = if job.settings.cube.is_some() {
        format!("{cube_text}, {}-ply cube decisions", job.settings.cube_ply)
    } else {
        cube_text
    };
    format!(
        "  {} trials/candidate, seed {}, {}-ply chequer play{}{}, {cube_text}, VR {:?}{}",
        trials,
        job.seed,
        job.settings.chequer_ply,
        job.settings
            .opponent_ply
            .map(|p| format!(" ({p}-ply for the opponent)"))
            .unwrap_or_default(),
        job.settings
            .late
            .map(|(from, p)| format!(" ({p}-ply from ply {from})"))
            .unwrap_or_default(),
        job.settings.luck,
        job.settings
            .truncate
            .map(|t| format!(", truncated at {t} plies"))
            .unwrap_or_default()
    )
}
