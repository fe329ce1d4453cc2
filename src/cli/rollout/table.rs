//! The text table of a rollout: one line of settings, one row per candidate (best
//! first, with its difference to the best) and the cube decision, if any.

use super::args::Args;
use super::rows::{JsonCandidate, Summary};
use bgfarm_engine::rollout::CubeRules;

/// Prints `rows` (best first) and the rest of `s` as a table.
pub fn print_table(args: &Args, rows: &[JsonCandidate], s: &Summary<'_>) {
    let run = s.run;
    let job = run.job;
    let cubeful = job.settings.cube.is_some();
    let what = match run.dice {
        Some(d) => format!("moves of {d} in {}", args.position.trim()),
        None => format!("{} (player on roll, before the roll)", args.position.trim()),
    };
    println!("Rollout of {what}");
    let cube_text = match (job.settings.cube, s.match_score) {
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
    println!(
        "  {} trials/candidate, seed {}, {}-ply chequer play{}{}, {cube_text}, VR {:?}{}",
        rows.first().map_or(0, |r| r.trials),
        args.seed,
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
    );
    let extra = if cubeful {
        format!(" {:>9} {:>8}", "cubeful", "SE")
    } else {
        String::new()
    };
    println!(
        "  {:>3} {:<22} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9} {:>8}{extra}",
        "#", "move", "win", "w.g", "w.bg", "lose", "l.g", "l.bg", "equity", "SE"
    );
    let key = |r: &JsonCandidate| r.cubeful_equity.unwrap_or(r.equity);
    let best = rows.first().map_or(0.0, key);
    for (i, r) in rows.iter().enumerate() {
        let p = r.probs;
        let cube_cols = match (r.cubeful_equity, r.cubeful_se) {
            (Some(c), Some(cs)) => format!(" {c:>+9.4} {cs:>8.4}"),
            _ => String::new(),
        };
        println!(
            "  {:>3} {:<22} {:>7.4} {:>7.4} {:>7.4} {:>7.4} {:>7.4} {:>7.4} {:>+9.4} {:>8.4}{cube_cols}{}",
            i + 1,
            r.notation.clone().unwrap_or_else(|| "(position)".into()),
            p[0],
            p[1],
            p[2],
            1.0 - p[0],
            p[3],
            p[4],
            r.equity,
            r.equity_se,
            if i > 0 {
                format!("  ({:+.4})", key(r) - best)
            } else {
                String::new()
            }
        );
    }
    if let Some(d) = &s.decision {
        println!(
            "  cube: no double {:+.4} ± {:.4}, double/take {:+.4} ± {:.4}, double/pass {:+.4} \
             -> {} ({:+.4})",
            d.no_double,
            d.no_double_se,
            d.double_take,
            d.double_take_se,
            d.double_pass,
            d.action.replace('_', " "),
            d.equity
        );
    }
    println!(
        "  {:.1} s on {} threads; engine {}",
        run.seconds, run.threads, run.fingerprint
    );
}
