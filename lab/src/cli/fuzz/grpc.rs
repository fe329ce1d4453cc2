//! The coordinator's gRPC requests as fuzz targets, as raw protobuf bytes: what a
//! client or a worker with a valid token could send. A job spec is decoded and
//! validated as `SubmitJob` does (the memo identity decodes and checks every kind's
//! plan); worker requests go to a real [`Core`] on a sled store in a temporary
//! directory, holding a match simulation and a registered worker, so that leases,
//! results and heartbeats reach the code behind the first checks.

use bgfarm_coordinator::{memo_identity, Config, Core};
use bgfarm_engine::label::{LabelMethod, LabelPlan};
use bgfarm_engine::matchsim::{CubeStrategy, SimPlan};
use bgfarm_engine::met::MatchEquityTable;
use bgfarm_engine::rollout::{Candidate, RolloutJob, RolloutPlan, StopRules, TrialSettings};
use bgfarm_engine::search::{MoveFilter, Pruning};
use bgfarm_engine::Position;
use bgfarm_proto::analysis::analysis_to_wire;
use bgfarm_proto::convert::plan_to_wire;
use bgfarm_proto::label::label_plan_to_wire;
use bgfarm_proto::matchsim::sim_plan_to_wire;
use bgfarm_proto::{v1, PROTOCOL_VERSION};
use bgfarm_storage::Store;
use prost::Message;
use std::path::PathBuf;
use std::sync::Arc;

/// The fingerprint of the fuzz job and worker (any text: no batch is computed).
const FINGERPRINT: &str = "fuzz";

/// The worker id the corpus names. A coordinator's worker ids carry its start time,
/// so each [`Cluster`] has another; [`Cluster::send`] puts its own in place of this
/// one, so the mutated requests reach the registered worker's code, not only the
/// "unknown worker" refusal.
const SEED_WORKER: &str = "fuzz-worker";

pub fn job_spec(input: &[u8]) -> bool {
    match v1::SubmitJobRequest::decode(input) {
        Ok(v1::SubmitJobRequest { spec: Some(spec) }) => memo_identity(&spec).is_ok(),
        _ => false,
    }
}

/// A small match simulation: 80 pairs in batches of 16.
fn sim_spec() -> v1::JobSpec {
    let plan = SimPlan {
        a: CubeStrategy::parse("janowski-match").unwrap_or_else(|e| panic!("{e}")),
        b: CubeStrategy::parse("janowski-money").unwrap_or_else(|e| panic!("{e}")),
        length: 5,
        met: MatchEquityTable::kazaross_xg2(),
        own_mets: [None, None],
        jacoby: false,
        luck: false,
        seed: 1,
        chequer: Default::default(),
        pairs: 80,
        batch: 16,
    };
    sim_plan_to_wire(&plan, FINGERPRINT)
}

/// A coordinator with one job and one registered worker.
pub struct Cluster {
    rt: tokio::runtime::Runtime,
    core: Arc<Core>,
    pub worker: String,
    dir: PathBuf,
}

impl Cluster {
    pub fn new(tag: u64) -> Result<Cluster, String> {
        let dir = std::env::temp_dir().join(format!("bgfarm-fuzz-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&dir).map_err(|e| format!("fuzz store: {e}"))?;
        let core = Core::open(store, Config::default()).map_err(|e| format!("fuzz core: {e}"))?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("fuzz runtime: {e}"))?;
        rt.block_on(core.submit(sim_spec()))
            .map_err(|e| format!("fuzz job: {e}"))?;
        let worker = core
            .register(register())
            .map_err(|e| format!("fuzz worker: {e}"))?
            .worker_id;
        Ok(Cluster {
            rt,
            core,
            worker,
            dir,
        })
    }

    /// One request: the first byte names it (register, exchange, heartbeat, job
    /// nets), the rest is its protobuf encoding.
    pub fn send(&self, input: &[u8]) -> bool {
        let Some((&which, body)) = input.split_first() else {
            return false;
        };
        let worker = |id: String| {
            if id == SEED_WORKER {
                self.worker.clone()
            } else {
                id
            }
        };
        match which % 4 {
            0 => v1::RegisterRequest::decode(body).is_ok_and(|r| self.core.register(r).is_ok()),
            1 => v1::ExchangeRequest::decode(body).is_ok_and(|mut r| {
                r.worker_id = worker(r.worker_id);
                self.rt.block_on(self.core.exchange(r)).is_ok()
            }),
            2 => v1::HeartbeatRequest::decode(body).is_ok_and(|mut r| {
                r.worker_id = worker(r.worker_id);
                self.core.heartbeat(r).is_ok()
            }),
            _ => v1::GetJobNetsRequest::decode(body).is_ok_and(|mut r| {
                r.worker_id = worker(r.worker_id);
                self.core.job_nets(r).is_ok()
            }),
        }
    }
}

/// Valid requests of every kind from the worker [`SEED_WORKER`], the corpus the
/// worker-request mutations start from.
pub fn worker_seeds() -> Vec<Vec<u8>> {
    let w = SEED_WORKER.to_string();
    let batch = |i: u64| v1::BatchRef {
        job_id: 1,
        batch_index: i,
    };
    let tagged = |tag: u8, m: &dyn Fn() -> Vec<u8>| {
        let mut v = vec![tag];
        v.extend(m());
        v
    };
    let sim_result = |i: u64| v1::BatchResult {
        batch: Some(batch(i)),
        match_sim: Some(v1::MatchSimStats::default()),
        ..Default::default()
    };
    vec![
        tagged(0, &|| register().encode_to_vec()),
        tagged(1, &|| {
            v1::ExchangeRequest {
                worker_id: w.clone(),
                want: 2,
                ..Default::default()
            }
            .encode_to_vec()
        }),
        tagged(1, &|| {
            v1::ExchangeRequest {
                worker_id: w.clone(),
                results: vec![sim_result(0), sim_result(4)],
                want: 1,
                released: vec![batch(1)],
            }
            .encode_to_vec()
        }),
        tagged(2, &|| {
            v1::HeartbeatRequest {
                worker_id: w.clone(),
                held: vec![batch(0), batch(2)],
            }
            .encode_to_vec()
        }),
        tagged(3, &|| {
            v1::GetJobNetsRequest {
                worker_id: w.clone(),
                job_id: 1,
            }
            .encode_to_vec()
        }),
    ]
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn register() -> v1::RegisterRequest {
    v1::RegisterRequest {
        protocol_version: PROTOCOL_VERSION,
        fingerprint: FINGERPRINT.to_string(),
        threads: 2,
        user_agent: "bgfarm-lab fuzz".to_string(),
    }
}

/// Valid job specs of the kinds a client submits, the job-spec target's corpus.
pub fn spec_seeds() -> Vec<Vec<u8>> {
    let rollout = RolloutPlan {
        job: RolloutJob {
            candidates: vec![Candidate::position(Position::STARTING)],
            seed: 1,
            settings: TrialSettings::default(),
        },
        trials: 1296,
        batch: 144,
        stop: StopRules::default(),
    };
    let label = LabelPlan {
        positions: vec![Position::STARTING],
        method: LabelMethod::Rollout {
            trials: 36,
            seed: 1,
        },
        batch: 1,
    };
    // A match analysis: mutations reach the match readers through the wire.
    let filter = MoveFilter::normal();
    let analysis = analysis_to_wire(
        include_str!("../../../../tests/data/matches/three-point.mat"),
        (0, &filter, 0, Pruning::DEFAULT),
        Some(&MatchEquityTable::kazaross_xg2()),
        8,
        FINGERPRINT,
    );
    [
        sim_spec(),
        plan_to_wire(&rollout, FINGERPRINT),
        label_plan_to_wire(&label, &[], FINGERPRINT),
        analysis,
    ]
    .into_iter()
    .map(|spec| v1::SubmitJobRequest { spec: Some(spec) }.encode_to_vec())
    .collect()
}
