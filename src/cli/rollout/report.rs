//! The report of a rollout: its rows sorted best first and printed as one JSON
//! object (with the settings) or as the table of [`super::table`].

use super::finished::{Finished, Summary};
use super::table::print_table;
use crate::cli::CliError;
use bgfarm_engine::met::MatchScore;
use bgfarm_engine::rollout::{CubeRules, Luck, RolloutJob};
use bgfarm_report::rollout_rows::{cube_decision, ranked, JsonCandidate, JsonCubeDecision};
use serde::Serialize;

/// One rollout as `--json` prints it.
#[derive(Serialize)]
pub struct JsonOut {
    position: String,
    dice: Option<[u8; 2]>,
    candidates: Vec<JsonCandidate>,
    seed: u64,
    fingerprint: String,
    settings: JsonSettings,
    #[serde(skip_serializing_if = "Option::is_none")]
    cube_decision: Option<JsonCubeDecision>,
}

#[derive(Serialize)]
struct JsonSettings {
    ply: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    opponent_ply: Option<u8>,
    cube_ply: u8,
    /// `[from ply, chequer ply]` of the late evaluation.
    #[serde(skip_serializing_if = "Option::is_none")]
    late: Option<[u32; 2]>,
    vr: bool,
    luck: String,
    truncate: Option<u32>,
    bearoff_truncation: bool,
    cubeful: bool,
    /// `points` (money, per unit of the cube) or `mwc` (match), for cubeful values.
    #[serde(skip_serializing_if = "Option::is_none")]
    cubeful_units: Option<&'static str>,
    jacoby: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    match_score: Option<[u32; 2]>,
}

/// The settings of `job` as the JSON reports them.
fn json_settings(job: &RolloutJob, match_score: Option<[u32; 2]>) -> JsonSettings {
    let s = &job.settings;
    JsonSettings {
        ply: s.chequer_ply,
        opponent_ply: s.opponent_ply,
        cube_ply: s.cube_ply,
        late: s.late.map(|(f, p)| [f, u32::from(p)]),
        vr: s.luck != Luck::Off,
        luck: format!("{:?}", s.luck).to_lowercase(),
        truncate: s.truncate,
        bearoff_truncation: s.bearoff_truncation,
        cubeful: s.cube.is_some(),
        cubeful_units: s.cube.map(|c| if c.is_match() { "mwc" } else { "points" }),
        jacoby: matches!(s.cube, Some(CubeRules::Money { jacoby: true })),
        match_score,
    }
}

/// The match score of `job` (a match-play rollout) for the player on roll in the
/// input position (`moves`: a rollout of the moves of a roll, whose candidates
/// start with the opponent on roll).
pub fn match_score(job: &RolloutJob, moves: bool) -> Option<[u32; 2]> {
    match job.settings.cube {
        Some(CubeRules::Match { score }) => {
            let s: MatchScore = if moves { score.flip() } else { score };
            Some([s.away, s.opp_away])
        }
        _ => None,
    }
}

/// Prints the results of `run` as one JSON object (`json`) or a table.
pub fn report(json: bool, run: &Finished<'_>) -> Result<(), CliError> {
    if let Some(out) = report_value(json, run)? {
        println!("{}", serde_json::to_string(&out)?);
    }
    Ok(())
}

/// Prints the table of `run` (and returns `None`), or returns its JSON object.
pub fn report_value(json: bool, run: &Finished<'_>) -> Result<Option<JsonOut>, CliError> {
    let job = run.job;
    let rows = ranked(job, run.total);
    let decision = cube_decision(job, &rows, run.dice);
    let match_score = match_score(job, run.dice.is_some());
    if !json {
        let summary = Summary {
            run,
            match_score,
            decision,
        };
        print_table(&rows, &summary);
        return Ok(None);
    }
    let out = JsonOut {
        position: run.position.trim().to_string(),
        dice: run.dice.map(|d| [d.values().0, d.values().1]),
        candidates: rows,
        seed: job.seed,
        fingerprint: run.fingerprint.to_string(),
        settings: json_settings(job, match_score),
        cube_decision: decision,
    };
    Ok(Some(out))
}
