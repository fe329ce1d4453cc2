//! Command-line parsing and dispatch. Each subcommand lives in its own module; every
//! failure on user input comes back as a [`CliError`] and leaves with exit code 2.

mod analyse;
mod bench;
mod bench_cluster;
mod bench_coordinator;
mod bench_scaling;
mod bench_throughput;
mod cube;
mod duel;
mod eval;
mod external;
mod hint;
mod input;
mod jobs;
mod local_store;
mod matchsim;
mod met;
mod met_compare;
mod moves;
mod plan_errors;
mod players;
mod position_list;
mod remote_sim;
mod results;
mod rollout;
mod runtime;
mod serve;
mod show;
mod sim_flags;
mod sim_memo;
mod sim_table;
mod store;
mod study;
mod threads;
mod work;

pub use bgfarm_cli_common::engine_args::{nets, race_args, search_args};
pub use bgfarm_cli_common::CliError;
use clap::{Parser, Subcommand};

/// bgfarm: backgammon rollouts and match simulations, from one laptop to a cluster.
#[derive(Parser)]
#[command(name = "bgfarm", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a position (0-ply): outcome probabilities and cubeless equity.
    Eval(eval::Args),
    /// The cube decision of the player on roll (0-ply, Janowski money or match):
    /// cubeful equities for no double, double/take, double/pass, and take/cash points.
    Cube(cube::Args),
    /// Print a match equity table (Kazaross-XG2, Keith's live-cube computation, or a
    /// GNU Backgammon MET XML file): pre-Crawford square and post-Crawford row.
    Met(met::Args),
    /// List every legal move of a roll, with the resulting position IDs.
    Moves(moves::Args),
    /// Rank the plays of a roll by an n-ply search with a move filter (cubeless):
    /// probabilities, equity and difference to the best, like GNU Backgammon's hint.
    Hint(hint::Args),
    /// Analyse a recorded match (GNU Backgammon .sgf or .mat match text): every
    /// chequer play and cube action rated at n-ply, per-player error rates (mEMG),
    /// marked errors and eXtreme Gammon's PR.
    Analyse(analyse::Args),
    /// Benchmarks of the cluster: coordinator capacity and scaling over workers.
    Bench(bench::Args),
    /// Play cubeless money games between two players with duplicate dice and report
    /// points per game with its standard error.
    Duel(duel::Args),
    /// Simulate complete matches (or cubeful money games) between two cube strategies
    /// with duplicate dice: points per match with its standard error, games per match.
    MatchSim(matchsim::Args),
    /// Roll out a position or the candidate moves of a roll (the main job).
    Rollout(rollout::Args),
    /// Draw a position as text, with pip counts.
    Show(show::Args),
    /// Studies: grids of match simulations with tables, parabola fits and SVG plots
    /// (cube-life, money-cube-life, games-per-match, match-vs-money), in-process or
    /// on a coordinator, resumable from their output directory.
    Study(study::Args),
    /// Run a coordinator: gRPC for clients and workers, jobs stored in sled.
    Serve(serve::Args),
    /// Run a worker: pull trial batches from a coordinator and run them on every core.
    Work(work::Args),
    /// List, show, watch or cancel the jobs on a coordinator.
    Jobs(jobs::Args),
    /// The stored rollouts of a position (on a coordinator or in a `--data` store):
    /// settings, trials, equities and SE, or the full tables.
    Results(results::Args),
    /// A coordinator's store of computed work (first-move tables, batch results):
    /// entries per engine, and pruning those of other engines (stop the coordinator
    /// first).
    Store(store::Args),
    /// Play as GNU Backgammon's external player: FIBS board lines in over TCP, one
    /// move, roll, double, take, drop or beaver line out.
    External(external::Args),
}

/// Parses the command line and runs the command.
pub fn run() -> Result<(), CliError> {
    let cli = Cli::parse();
    match cli.command {
        Command::Eval(a) => eval::run(a),
        Command::Cube(a) => cube::run(a),
        Command::Met(a) => met::run(a),
        Command::Moves(a) => moves::run(a),
        Command::Hint(a) => hint::run(a),
        Command::Analyse(a) => analyse::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Duel(a) => duel::run(a),
        Command::MatchSim(a) => matchsim::run(a),
        Command::Rollout(a) => rollout::run(a),
        Command::Show(a) => show::run(a),
        Command::Study(a) => study::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Work(a) => work::run(a),
        Command::Jobs(a) => jobs::run(a),
        Command::Results(a) => results::run(a),
        Command::Store(a) => store::run(a),
        Command::External(a) => external::run(a),
    }
}
