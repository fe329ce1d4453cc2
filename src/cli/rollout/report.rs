//! The results of a rollout: one row per candidate (rounded to 6 decimals, best
//! first), the cube decision of a cubeful rollout before the roll, printed as one
//! JSON object or as the table of [`super::table`].

use super::args::Args;
use super::table::print_table;
use crate::cli::CliError;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::met::MatchScore;
use bgfarm_engine::rollout::{CubeRules, Luck, RolloutJob, RolloutStats};
use bgfarm_engine::Dice;
use serde::Serialize;

/// Output index of the cubeless equity in the rollout statistics.
const EQUITY: usize = 5;
/// Output index of the cubeful result (money points or MWC).
const CUBEFUL: usize = 6;

/// A finished rollout and how it ran.
pub struct Finished<'a> {
    pub job: &'a RolloutJob,
    pub total: &'a RolloutStats,
    pub dice: Option<Dice>,
    /// The engine fingerprint.
    pub fingerprint: &'a str,
    pub seconds: f64,
    pub threads: usize,
}

/// What the table prints besides the rows.
pub struct Summary<'a> {
    pub run: &'a Finished<'a>,
    /// The score for the player on roll in the input position (match play).
    pub match_score: Option<[u32; 2]>,
    pub decision: Option<JsonCubeDecision>,
}

#[derive(Serialize)]
pub struct JsonCandidate {
    #[serde(rename = "move")]
    pub notation: Option<String>,
    result: Option<String>,
    pub trials: u64,
    pub probs: [f64; 5],
    probs_se: [f64; 5],
    pub equity: f64,
    pub equity_se: f64,
    pub cubeful_equity: Option<f64>,
    pub cubeful_se: Option<f64>,
}

/// The cube decision a cubeful rollout of a position before the roll measures.
#[derive(Serialize)]
pub struct JsonCubeDecision {
    pub no_double: f64,
    pub no_double_se: f64,
    pub double_take: f64,
    pub double_take_se: f64,
    pub double_pass: f64,
    /// `no_double`, `double_take`, `double_pass` or `too_good`.
    pub action: &'static str,
    /// Cubeful equity of the proper action (money points per cube, or MWC).
    pub equity: f64,
}

#[derive(Serialize)]
struct JsonOut {
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

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The cube decision of a cubeful rollout before the roll (both branches rolled
/// out), by the rule of `bgfarm_engine::cube::decision`.
fn cube_decision(
    job: &RolloutJob,
    rows: &[JsonCandidate],
    dice: Option<Dice>,
) -> Option<JsonCubeDecision> {
    let rules = job.settings.cube?;
    if dice.is_some() {
        return None;
    }
    let find = |l: &str| rows.iter().find(|r| r.notation.as_deref() == Some(l));
    let (nd, dt) = (find("no double")?, find("double/take")?);
    let (nd_v, dt_v) = (nd.cubeful_equity?, dt.cubeful_equity?);
    let dp = match rules {
        CubeRules::Match { score } => {
            let cube = job.candidates.first().map_or(1, |c| c.cube.cube.value);
            score.mwc_after(bgfarm_engine::rollout::cubeful::met(), true, cube)
        }
        CubeRules::Money { .. } => 1.0,
    };
    let decision = bgfarm_engine::cube::CubeDecision::from_equities(nd_v, dt_v, dp);
    use bgfarm_engine::cube::CubeDecision as D;
    let (action, equity) = match decision {
        D::DoubleTake => ("double_take", dt_v),
        D::DoublePass => ("double_pass", dp),
        D::TooGood => ("too_good", nd_v),
        _ => ("no_double", nd_v),
    };
    Some(JsonCubeDecision {
        no_double: nd_v,
        no_double_se: nd.cubeful_se.unwrap_or(0.0),
        double_take: dt_v,
        double_take_se: dt.cubeful_se.unwrap_or(0.0),
        double_pass: round6(dp),
        action,
        equity,
    })
}


/// One row per candidate, in candidate order.
fn rows(job: &RolloutJob, total: &RolloutStats) -> Vec<JsonCandidate> {
    let cubeful = job.settings.cube.is_some();
    job.candidates
        .iter()
        .enumerate()
        .map(|(c, cand)| {
            let acc = &total.per_candidate[c];
            let mut probs = [0.0; 5];
            let mut probs_se = [0.0; 5];
            for k in 0..5 {
                probs[k] = round6(acc[k].mean());
                probs_se[k] = round6(acc[k].se().unwrap_or(0.0));
            }
            JsonCandidate {
                notation: cand.label.clone(),
                result: cand
                    .label
                    .as_ref()
                    .map(|_| position_id::encode(&cand.start)),
                trials: acc[0].count,
                probs,
                probs_se,
                equity: round6(acc[EQUITY].mean()),
                equity_se: round6(acc[EQUITY].se().unwrap_or(0.0)),
                cubeful_equity: cubeful.then(|| round6(acc[CUBEFUL].mean())),
                cubeful_se: cubeful.then(|| round6(acc[CUBEFUL].se().unwrap_or(0.0))),
            }
        })
        .collect()
}

/// The settings of `job` as the JSON reports them.
fn json_settings(args: &Args, job: &RolloutJob, match_score: Option<[u32; 2]>) -> JsonSettings {
    let s = &job.settings;
    JsonSettings {
        ply: args.ply,
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

/// Prints the results of `run` as `args` asks: JSON or a table.
pub fn report(args: &Args, run: &Finished<'_>) -> Result<(), CliError> {
    let job = run.job;
    let mut rows = rows(job, run.total);
    let decision = cube_decision(job, &rows, run.dice);
    if job.settings.cube.is_some() {
        // Best first by the cubeful value, which is what the cube play is about.
        rows.sort_by(|a, b| {
            b.cubeful_equity
                .unwrap_or(0.0)
                .total_cmp(&a.cubeful_equity.unwrap_or(0.0))
        });
    } else {
        rows.sort_by(|a, b| b.equity.total_cmp(&a.equity));
    }
    let match_score = match job.settings.cube {
        Some(CubeRules::Match { score }) => {
            // Reported for the player on roll in the input position.
            let s: MatchScore = if run.dice.is_some() { score.flip() } else { score };
            Some([s.away, s.opp_away])
        }
        _ => None,
    };
    if !args.json {
        let summary = Summary {
            run,
            match_score,
            decision,
        };
        print_table(args, &rows, &summary);
        return Ok(());
    }
    let out = JsonOut {
        position: args.position.trim().to_string(),
        dice: run.dice.map(|d| [d.values().0, d.values().1]),
        candidates: rows,
        seed: args.seed,
        fingerprint: run.fingerprint.to_string(),
        settings: json_settings(args, job, match_score),
        cube_decision: decision,
    };
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}
