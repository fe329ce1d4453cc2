//! `bgfarm bench`: the cluster-sizing benchmarks ([`super::bench_cluster`]).

use super::CliError;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

#[derive(clap::Subcommand)]
pub enum What {
    /// Coordinator capacity (no-op batch results per second, durable) and cluster
    /// efficiency (one rollout on 2 workers x 1 thread vs 1 worker x 1 thread).
    Cluster(super::bench_cluster::ClusterArgs),
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.what {
        What::Cluster(a) => super::bench_cluster::cluster(a),
    }
}
