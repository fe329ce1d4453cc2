//! `bgfarm rollout POS [--dice 31] [--moves all|top:N|"24/18 13/10",...] ...`: the
//! main job. Runs on an embedded coordinator: the trials are cut into batches of
//! whole trial ranges, run on every core, and folded exactly, so the output is
//! bit-identical for any thread count (see `bgfarm_engine::rollout`).

use super::input::parse_position;
use super::nets::load_evaluator;
use super::CliError;
use bgfarm_coordinator::stop::{after_wave, wave_batches, StopRules};
use bgfarm_engine::cube::Cube;
use bgfarm_engine::eval::after_move;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::met::MatchScore;
use bgfarm_engine::notation::{format_move, parse_move};
use bgfarm_engine::rollout::{
    run_batch, Candidate, CubeRules, CubeStart, FirstPlyCache, Luck, RolloutJob, RolloutStats,
    TrialScratch, TrialSettings, MAX_TRIAL_PLY,
};
use bgfarm_engine::{Dice, MoveGenerator};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// Output index of the cubeless equity in the rollout statistics.
const EQUITY: usize = 5;
/// Output index of the cubeful result (money points or MWC).
const CUBEFUL: usize = 6;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    pub position: String,
    /// Roll out the moves of this roll instead of the position before the roll.
    #[arg(long)]
    pub dice: Option<String>,
    /// With --dice: `all`, `top:N` (best N at 0-ply), or moves in notation separated
    /// by commas (`"24/18 13/10,8/5 6/5"`).
    #[arg(long, default_value = "top:5")]
    pub moves: String,
    /// Trials per candidate (a multiple of 36 keeps the dice stratified).
    #[arg(long, default_value_t = 1296)]
    pub trials: u64,
    /// Chequer play: ply of the move choice (0 = the net's best move; 1-2 = an
    /// n-ply search with the normal move filter, as `bgfarm hint`). The luck estimate
    /// stays at 0-ply, which keeps the rollout unbiased and cheap.
    #[arg(long, default_value_t = 0)]
    pub ply: u8,
    /// The opponent's chequer ply, when it should differ from --ply (GNU
    /// Backgammon's per-player settings): the opponent of the player on roll in a
    /// position rollout, of the mover in a move rollout. The results stay those of
    /// the player on roll / the mover.
    #[arg(long)]
    pub opponent_ply: Option<u8>,
    /// With --cubeful: cube decisions of both players by an n-ply cubeful lookahead
    /// (as `bgfarm cube --ply N`; Janowski at its leaves) instead of 0-ply Janowski.
    /// 1 ply costs about 21 x 20 evaluations per cube decision.
    #[arg(long, default_value_t = 0)]
    pub cube_ply: u8,
    /// Late evaluation: from this ply of each trial on (0-based, both players
    /// counted), play at --late-ply instead of --ply.
    #[arg(long, requires = "late_ply")]
    pub late_from: Option<u32>,
    /// Chequer-play ply from --late-from on.
    #[arg(long, requires = "late_from")]
    pub late_ply: Option<u8>,
    /// Stop each trial after this many plies and use the evaluation there.
    #[arg(long)]
    pub truncate: Option<u32>,
    /// Variance reduction (luck adjustment): on or off.
    #[arg(long, default_value = "on")]
    pub vr: String,
    /// Value function for the luck estimate: full (the net's best move for each roll,
    /// as GNU Backgammon) or ranked (the net's linearized equity ranks each roll's
    /// moves, the net values the best 4 and the best of those counts). Either keeps the rollout unbiased.
    /// Ranked is the default: it measured the best precision per CPU-second on the
    /// opening position (1296 trials, one thread, as 1/(SE^2 s): ranked SE 0.0113
    /// in 8.3 s = 944, full 0.0101 in 13.8 s = 716, off 0.0351 in 1.8 s = 454;
    /// `scripts/bench-rollout-precision.sh`).
    #[arg(long, default_value = "ranked")]
    pub luck: String,
    /// Play endgames out instead of stopping in the exact bear-off tables.
    #[arg(long)]
    pub no_bearoff_truncation: bool,
    /// Cubeful rollout: money play (cube from the match ID or XGID, centred 1
    /// otherwise), or match play when the position carries a match score (`ID:MATCHID`,
    /// an XGID or --match-id; Kazaross-XG2 table). Cube actions by 0-ply Janowski
    /// with the position class's cube life (or an n-ply lookahead: --cube-ply).
    /// Without --dice this rolls out the cube decision: no double against
    /// double/take, with double/pass as the cash value.
    #[arg(long, conflicts_with = "cubeless")]
    pub cubeful: bool,
    /// Cubeless rollout (the default).
    #[arg(long)]
    pub cubeless: bool,
    /// With --cubeful in money play: the Jacoby rule (gammons count only after a double).
    #[arg(long)]
    pub jacoby: bool,
    /// GNU Backgammon match ID giving the cube and the score (instead of `ID:MATCHID`).
    #[arg(long)]
    pub match_id: Option<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop once every remaining candidate's equity SE is at most this.
    #[arg(long)]
    pub se_target: Option<f64>,
    /// Stop rolling out candidates more than --jsd-k combined standard errors behind
    /// the best, once they have --jsd-min trials (GNU Backgammon's JSD stop).
    #[arg(long)]
    pub jsd: bool,
    #[arg(long, default_value_t = 324)]
    pub jsd_min: u64,
    #[arg(long, default_value_t = 2.33)]
    pub jsd_k: f64,
    /// Threads (default: one per core). Does not change the results.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Trials per batch (a multiple of 36). Does not change the results.
    #[arg(long, default_value_t = 144)]
    pub batch: u64,
    /// Nets: `default`, a .safetensors bundle, or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Run on the coordinator at this URL (`http://host:port`) instead of in-process;
    /// the result is bit-identical.
    #[arg(long)]
    pub coordinator: Option<String>,
    /// With --coordinator: file holding the client token.
    #[arg(long)]
    pub token_file: Option<std::path::PathBuf>,
    /// With an https:// --coordinator: the CA certificate (PEM) that signed its
    /// certificate (default: the system's roots).
    #[arg(long)]
    pub tls_ca: Option<std::path::PathBuf>,
}

#[derive(Serialize)]
struct JsonCandidate {
    #[serde(rename = "move")]
    notation: Option<String>,
    result: Option<String>,
    trials: u64,
    probs: [f64; 5],
    probs_se: [f64; 5],
    equity: f64,
    equity_se: f64,
    cubeful_equity: Option<f64>,
    cubeful_se: Option<f64>,
}

/// The cube decision a cubeful rollout of a position before the roll measures.
#[derive(Serialize)]
struct JsonCubeDecision {
    no_double: f64,
    no_double_se: f64,
    double_take: f64,
    double_take_se: f64,
    double_pass: f64,
    /// `no_double`, `double_take`, `double_pass` or `too_good`.
    action: &'static str,
    /// Cubeful equity of the proper action (money points per cube, or MWC).
    equity: f64,
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

pub fn run(args: Args) -> Result<(), CliError> {
    if [
        Some(args.ply),
        args.late_ply,
        args.opponent_ply,
        Some(args.cube_ply),
    ]
    .iter()
    .any(|p| p.is_some_and(|p| p > MAX_TRIAL_PLY))
    {
        return Err(CliError::msg(format!(
            "--ply, --opponent-ply, --late-ply and --cube-ply go from 0 to {MAX_TRIAL_PLY} in rollouts"
        )));
    }
    if args.trials == 0 || args.trials > 100_000_000 {
        return Err(CliError::msg("--trials must be between 1 and 100,000,000"));
    }
    if args.batch == 0 || !args.batch.is_multiple_of(36) {
        return Err(CliError::msg("--batch must be a positive multiple of 36"));
    }
    let luck = match (args.vr.as_str(), args.luck.as_str()) {
        ("off", _) => Luck::Off,
        ("on", "full") => Luck::Full,
        ("on", "ranked") => Luck::Ranked,
        ("on", other) => {
            return Err(CliError::msg(format!(
                "--luck {other:?}: use full or ranked"
            )))
        }
        (other, _) => return Err(CliError::msg(format!("--vr {other:?}: use on or off"))),
    };
    if let Some(t) = args.se_target {
        if !(t.is_finite() && t > 0.0) {
            return Err(CliError::msg("--se-target must be a positive number"));
        }
    }
    let input = parse_position(&args.position)?;
    let pos = input.position;
    if pos.game_over() {
        return Err(CliError::msg(
            "the game in this position is over: nothing to roll out",
        ));
    }
    let eval = load_evaluator(&args.net)?;
    let dice = match &args.dice {
        Some(d) => Some(Dice::parse(d)?),
        None => None,
    };
    let cube = cube_setup(&args, &input)?;
    let mut candidates = build_candidates(&eval, &pos, dice, &args.moves)?;
    let rules = cube.map(|c| {
        if dice.is_some() {
            // Move candidates start with the opponent on roll.
            for cand in &mut candidates {
                cand.cube = CubeStart {
                    cube: c.cube.flip(),
                    unit: c.cube.value,
                    no_double_first: false,
                };
            }
            c.rules.flipped()
        } else {
            candidates = cube_decision_candidates(&pos, &c);
            c.rules
        }
    });
    if args.cube_ply > 0 && rules.is_none() {
        return Err(CliError::msg(
            "--cube-ply sets the cube decisions of a cubeful rollout: add --cubeful",
        ));
    }
    let settings = TrialSettings {
        luck,
        truncate: args.truncate,
        bearoff_truncation: !args.no_bearoff_truncation,
        cube: rules,
        chequer_ply: args.ply,
        opponent_ply: args.opponent_ply.filter(|&p| p != args.ply),
        cube_ply: args.cube_ply,
        late: args.late_from.zip(args.late_ply),
    };
    let job = RolloutJob {
        candidates,
        seed: args.seed,
        settings,
    };
    if let Some(url) = &args.coordinator {
        let (fp, start) = (fingerprint(&eval).to_string(), Instant::now());
        let (total, threads) = super::remote::rollout(url, &args, &job, &fp)?;
        let secs = start.elapsed().as_secs_f64();
        return report(&args, &job, &total, dice, &fp, secs, threads);
    }
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if threads == 0 {
        return Err(CliError::msg("--threads must be at least 1"));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::msg(format!("cannot start {threads} threads: {e}")))?;

    let n_batches = args.trials.div_ceil(args.batch);
    // Stop rules are checked after each wave of a fixed number of batches (about 324
    // trials), so where a rollout stops does not depend on the thread count, nor on
    // whether it runs here or on a cluster (the coordinator runs the same rules).
    let rules = stop_rules(&args);
    let wave = wave_batches(args.batch);
    let mut active = vec![true; job.candidates.len()];
    let cache = FirstPlyCache::default();
    let bar = if args.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(args.trials)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} trials {per_sec} ETA {eta} {msg}")
            .map_err(|e| CliError::msg(e.to_string()))?,
    );
    let start = Instant::now();
    let mut total = RolloutStats::new(job.candidates.len());
    let mut done = 0u64;
    while done < n_batches {
        let this = wave.min(n_batches - done);
        let results: Vec<RolloutStats> = pool.install(|| {
            (done..done + this)
                .into_par_iter()
                .map_init(
                    || TrialScratch::new(&eval),
                    |scratch, b| {
                        let range = b * args.batch..((b + 1) * args.batch).min(args.trials);
                        let range_len = range.end - range.start;
                        let r = run_batch(&job, &eval, None, range, &active, Some(&cache), scratch);
                        bar.inc(range_len);
                        r
                    },
                )
                .collect()
        });
        for r in &results {
            total.merge(r);
        }
        done += this;
        bar.set_message(leaders(&job, &total));
        if rules.any() && after_wave(&rules, &total, &mut active) {
            break;
        }
    }
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    report(
        &args,
        &job,
        &total,
        dice,
        &fingerprint(&eval).to_string(),
        secs,
        threads,
    )
}

/// The stop rules of the command line.
pub fn stop_rules(args: &Args) -> StopRules {
    StopRules {
        se_target: args.se_target,
        jsd: args.jsd.then_some((args.jsd_min, args.jsd_k)),
    }
}

/// The candidates: the position itself, or the chosen moves of `dice`.
fn build_candidates(
    eval: &bgfarm_engine::eval::neural::NeuralEvaluator<'_>,
    pos: &bgfarm_engine::Position,
    dice: Option<Dice>,
    spec: &str,
) -> Result<Vec<Candidate>, CliError> {
    let Some(dice) = dice else {
        return Ok(vec![Candidate {
            label: None,
            start: *pos,
            report_for_opponent: false,
            cube: CubeStart::default(),
        }]);
    };
    let mut gen = MoveGenerator::new();
    let legal = gen.generate(pos, dice).to_vec();
    if legal.is_empty() {
        return Err(CliError::msg(format!(
            "no legal move with {dice}: nothing to compare"
        )));
    }
    let chosen = if spec == "all" {
        legal
    } else if let Some(n) = spec.strip_prefix("top:") {
        let n: usize = n.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
            CliError::msg(format!("--moves {spec:?}: N must be a positive number"))
        })?;
        let mut ranked: Vec<(f32, bgfarm_engine::Move)> = legal
            .iter()
            .map(|m| (after_move(eval, m).equity(), *m))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        ranked.into_iter().take(n).map(|(_, m)| m).collect()
    } else {
        let mut out: Vec<bgfarm_engine::Move> = Vec::new();
        for text in spec.split(',') {
            let m = parse_move(pos, dice, text)?;
            if !out.iter().any(|o| o.result() == m.result()) {
                out.push(m);
            }
        }
        out
    };
    Ok(chosen
        .iter()
        .map(|m| Candidate {
            label: Some(format_move(m)),
            start: m.next_position(),
            report_for_opponent: true,
            cube: CubeStart::default(),
        })
        .collect())
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

/// The cube and rules of a cubeful rollout, from the player on roll.
#[derive(Clone, Copy)]
struct CubeSetup {
    cube: Cube,
    rules: CubeRules,
}

impl CubeSetup {
    /// May the player on roll double now?
    fn may_double(&self) -> bool {
        self.rules.spot(self.cube).may_double()
    }
}

/// The cube setting of `--cubeful` (None for a cubeless rollout).
fn cube_setup(
    args: &Args,
    input: &super::input::PositionInput,
) -> Result<Option<CubeSetup>, CliError> {
    if !args.cubeful {
        if args.jacoby || args.match_id.is_some() {
            return Err(CliError::msg(
                "--jacoby and --match-id apply to cubeful rollouts: add --cubeful",
            ));
        }
        return Ok(None);
    }
    let s = super::cube::setting_from(&args.position, args.match_id.as_deref(), input.match_state)?;
    let rules = match s.score {
        Some((_, score)) => {
            if args.jacoby {
                return Err(CliError::msg(
                    "the Jacoby rule is for money play, not matches",
                ));
            }
            CubeRules::Match { score }
        }
        None => CubeRules::Money {
            jacoby: args.jacoby || s.jacoby,
        },
    };
    Ok(Some(CubeSetup {
        cube: s.cube,
        rules,
    }))
}

/// A cube decision rolled out: "no double" (the cube held for the first turn) and,
/// when the player may double, "double/take" (cube turned, owned by the opponent).
fn cube_decision_candidates(pos: &bgfarm_engine::Position, c: &CubeSetup) -> Vec<Candidate> {
    let mut out = vec![Candidate {
        label: Some("no double".into()),
        start: *pos,
        report_for_opponent: false,
        cube: CubeStart {
            cube: c.cube,
            unit: c.cube.value,
            no_double_first: true,
        },
    }];
    if c.may_double() {
        out.push(Candidate {
            label: Some("double/take".into()),
            start: *pos,
            report_for_opponent: false,
            cube: CubeStart {
                cube: c.cube.doubled(),
                unit: c.cube.value,
                no_double_first: false,
            },
        });
    }
    out
}

fn leaders(job: &RolloutJob, total: &RolloutStats) -> String {
    let mut v: Vec<(f64, f64, String)> = job
        .candidates
        .iter()
        .enumerate()
        .map(|(c, cand)| {
            let a = &total.per_candidate[c][5];
            (
                a.mean(),
                a.se().unwrap_or(f64::NAN),
                cand.label.clone().unwrap_or_else(|| "position".into()),
            )
        })
        .collect();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    v.iter()
        .take(2)
        .map(|(e, se, l)| format!("{l} {e:+.3}±{se:.3}"))
        .collect::<Vec<_>>()
        .join("  ")
}

fn report(
    args: &Args,
    job: &RolloutJob,
    total: &RolloutStats,
    dice: Option<Dice>,
    fp: &str,
    secs: f64,
    threads: usize,
) -> Result<(), CliError> {
    let cubeful = job.settings.cube.is_some();
    let mut rows: Vec<JsonCandidate> = job
        .candidates
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
        .collect();
    let decision = cube_decision(job, &rows, dice);
    if cubeful {
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
            let s: MatchScore = if dice.is_some() { score.flip() } else { score };
            Some([s.away, s.opp_away])
        }
        _ => None,
    };
    if args.json {
        let out = JsonOut {
            position: args.position.trim().to_string(),
            dice: dice.map(|d| [d.values().0, d.values().1]),
            candidates: rows,
            seed: args.seed,
            fingerprint: fp.to_string(),
            settings: JsonSettings {
                ply: args.ply,
                opponent_ply: job.settings.opponent_ply,
                cube_ply: job.settings.cube_ply,
                late: job.settings.late.map(|(f, p)| [f, u32::from(p)]),
                vr: job.settings.luck != Luck::Off,
                luck: format!("{:?}", job.settings.luck).to_lowercase(),
                truncate: job.settings.truncate,
                bearoff_truncation: job.settings.bearoff_truncation,
                cubeful,
                cubeful_units: job
                    .settings
                    .cube
                    .map(|c| if c.is_match() { "mwc" } else { "points" }),
                jacoby: matches!(job.settings.cube, Some(CubeRules::Money { jacoby: true })),
                match_score,
            },
            cube_decision: decision,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let what = match dice {
        Some(d) => format!("moves of {d} in {}", args.position.trim()),
        None => format!("{} (player on roll, before the roll)", args.position.trim()),
    };
    println!("Rollout of {what}");
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
    if let Some(d) = cube_decision(job, &rows, dice) {
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
    println!("  {secs:.1} s on {threads} threads; engine {fp}");
    Ok(())
}
