//! `bgfarm results list|show POSITION (--coordinator URL | --data DIR)`: the stored
//! rollouts of a position, from a coordinator (`ListResults`) or from a local store
//! written by `rollout --data DIR` (read by the coordinator's own code on that
//! store). A rollout is listed under the position it was asked about, with any roll
//! and any cube or score: `list` gives one line each (settings, trials, the best
//! candidate's equity and SE), `show` the full tables as `bgfarm rollout` prints
//! them.

use super::input::parse_position;
use super::local_store::open_store;
use super::rollout::{match_score, report, settings_line, Finished};
use super::runtime::{pem, print_line, runtime, token};
use super::CliError;
use bgfarm_client::connect::job_client;
use bgfarm_client::{ClientError, RemoteArgs};
use bgfarm_coordinator::{Config, Core};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::rollout::{RolloutJob, RolloutStats};
use bgfarm_engine::Dice;
use bgfarm_proto::convert::{plan_from_wire, stats_from_wire};
use bgfarm_proto::v1;
use bgfarm_report::rollout_rows::{ranked, JsonCandidate};
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// One line per stored rollout of POSITION: job, settings, trials and the best
    /// candidate's equity with its standard error (JSON: one object per rollout).
    List(Lookup),
    /// The stored rollouts of POSITION as `bgfarm rollout` prints them.
    Show {
        #[command(flatten)]
        lookup: Lookup,
        /// Only the rollout of this job.
        #[arg(long)]
        job: Option<u64>,
    },
}

/// Which position, and where its rollouts are stored.
#[derive(clap::Args)]
pub struct Lookup {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID. Its
    /// rollouts are listed with any roll, cube and score.
    pub position: String,
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// Read the local store in this directory (written by `rollout --data DIR`)
    /// instead of a coordinator.
    #[arg(long, conflicts_with = "coordinator")]
    pub data: Option<PathBuf>,
    /// Print JSON instead of text (one object per line).
    #[arg(long)]
    pub json: bool,
}

/// A stored rollout, decoded.
struct Stored {
    id: u64,
    input: String,
    dice: Option<Dice>,
    job: RolloutJob,
    total: RolloutStats,
    fingerprint: String,
}

/// One line of `results list --json`.
#[derive(Serialize)]
struct JsonListed {
    job: u64,
    position: String,
    dice: Option<[u8; 2]>,
    seed: u64,
    trials: u64,
    fingerprint: String,
    /// The settings line of the rollout's table.
    settings: String,
    /// The best candidate (the first row of the table).
    best: JsonCandidate,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let (lookup, job, show) = match &args.action {
        Action::List(l) => (l, None, false),
        Action::Show { lookup, job } => (lookup, *job, true),
    };
    let pid = position_id::encode(&parse_position(&lookup.position)?.position);
    let mut found = fetch(lookup, &pid)?
        .into_iter()
        .map(decode)
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(id) = job {
        found.retain(|s| s.id == id);
        if found.is_empty() {
            return Err(CliError::msg(format!(
                "no stored rollout of {pid} with job ID {id}"
            )));
        }
    }
    for s in &found {
        match show {
            false => list_line(s, lookup.json)?,
            true => report(
                lookup.json,
                &Finished {
                    position: &s.input,
                    job: &s.job,
                    total: &s.total,
                    dice: s.dice,
                    fingerprint: &s.fingerprint,
                    timing: None,
                },
            )?,
        }
    }
    Ok(())
}

/// The finished rollouts asked about position `pid`, from the coordinator or the
/// local store of `args`.
fn fetch(args: &Lookup, pid: &str) -> Result<Vec<v1::GetJobResponse>, CliError> {
    if let Some(dir) = &args.data {
        if !dir.is_dir() {
            return Err(CliError::msg(format!(
                "--data {}: no store there (a directory written by rollout --data)",
                dir.display()
            )));
        }
        let core = Core::open(open_store(dir)?, Config::default())
            .map_err(|e| CliError::msg(format!("store {}: {e}", dir.display())))?;
        return runtime()?.block_on(async {
            core.results_of(pid)
                .await
                .map_err(|e| CliError::msg(format!("store {}: {}", dir.display(), e.message())))
        });
    }
    let Some(url) = &args.remote.coordinator else {
        return Err(CliError::msg(
            "say where the results are: --coordinator URL or --data DIR",
        ));
    };
    let token = token(args.remote.token_file.as_deref())?;
    let ca = pem(args.remote.tls_ca.as_deref())?;
    runtime()?.block_on(async move {
        let mut client = job_client(url, token.as_deref(), ca.as_deref())?;
        let r = client
            .list_results(v1::ListResultsRequest {
                position_id: pid.to_string(),
            })
            .await
            .map_err(ClientError::from)?;
        Ok(r.into_inner().results)
    })
}

/// A listed job as a rollout and its totals.
fn decode(r: v1::GetJobResponse) -> Result<Stored, CliError> {
    let id = r.status.as_ref().map_or(0, |s| s.job_id);
    let bad = |why: String| CliError::msg(format!("stored rollout {id}: {why}"));
    let Some(v1::job_spec::Kind::Rollout(spec)) = r.spec.and_then(|s| s.kind) else {
        return Err(bad("not a rollout".into()));
    };
    let plan = plan_from_wire(&spec).map_err(|e| bad(e.0))?;
    let total = stats_from_wire(&r.aggregate.unwrap_or_default()).map_err(|e| bad(e.0))?;
    if total.per_candidate.len() != plan.job.candidates.len() {
        return Err(bad("another number of candidates than its spec".into()));
    }
    let query = spec.query.unwrap_or_default();
    let dice = match query.dice.as_slice() {
        [a, b] => Dice::new(*a as u8, *b as u8),
        _ => None,
    };
    Ok(Stored {
        id,
        input: query.input,
        dice,
        job: plan.job,
        total,
        fingerprint: spec.fingerprint,
    })
}

/// Prints the line (or JSON object) of `s` in `results list`.
fn list_line(s: &Stored, json: bool) -> Result<(), CliError> {
    let rows = ranked(&s.job, &s.total);
    let trials = rows.first().map_or(0, |r| r.trials);
    let settings = settings_line(&s.job, match_score(&s.job, s.dice.is_some()), trials);
    let Some(best) = rows.into_iter().next() else {
        return Ok(());
    };
    let dice_text = s.dice.map(|d| format!(" {d}")).unwrap_or_default();
    if json {
        let out = JsonListed {
            job: s.id,
            position: s.input.clone(),
            dice: s.dice.map(|d| [d.values().0, d.values().1]),
            seed: s.job.seed,
            trials,
            fingerprint: s.fingerprint.clone(),
            settings: settings.trim().to_string(),
            best,
        };
        return print_line(&serde_json::to_string(&out)?);
    }
    let (equity, se, unit) = match (best.cubeful_equity, best.cubeful_se) {
        (Some(e), Some(se)) => (e, se, "cubeful"),
        _ => (best.equity, best.equity_se, "cubeless"),
    };
    print_line(&format!(
        "job {}: {}{dice_text}; best {} {equity:+.4} ± {se:.4} ({unit})\n{settings}",
        s.id,
        s.input,
        best.notation.as_deref().unwrap_or("(position)"),
    ))
}
