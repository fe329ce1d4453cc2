//! The results of a finished rollout, one row per candidate (rounded to 6
//! decimals), and the cube decision a cubeful rollout before the roll measures:
//! what the CLI's JSON and table and the coordinator's page all print.

use bgfarm_engine::ids::position_id;
use bgfarm_engine::rollout::{CubeRules, RolloutJob, RolloutStats};
use bgfarm_engine::Dice;
use serde::Serialize;

/// Output index of the cubeless equity in the rollout statistics.
const EQUITY: usize = 5;
/// Output index of the cubeful result (money points or MWC).
const CUBEFUL: usize = 6;

/// One candidate's results: its move (none for a position), the position after it
/// as an ID, trials, the five outcome probabilities, equities and their SEs.
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
#[derive(Serialize, Clone, Debug)]
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

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The cube decision of a cubeful rollout before the roll (both branches rolled
/// out), by the rule of `bgfarm_engine::cube::decision`.
pub fn cube_decision(
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

/// The rows best first: by the cubeful value when the rollout is cubeful (which is
/// what the cube play is about), else by the cubeless equity.
pub fn ranked(job: &RolloutJob, total: &RolloutStats) -> Vec<JsonCandidate> {
    let mut rows = rows(job, total);
    if job.settings.cube.is_some() {
        rows.sort_by(|a, b| {
            b.cubeful_equity
                .unwrap_or(0.0)
                .total_cmp(&a.cubeful_equity.unwrap_or(0.0))
        });
    } else {
        rows.sort_by(|a, b| b.equity.total_cmp(&a.equity));
    }
    rows
}

/// One row per candidate, in candidate order.
pub fn rows(job: &RolloutJob, total: &RolloutStats) -> Vec<JsonCandidate> {
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
