//! `bgfarm analyse FILE [--ply N] [--filter F] [--json] [--threads N]`: every
//! decision of a recorded match (GNU Backgammon `.sgf` or `.mat` match text) rated
//! against the engine, and per-player statistics like GNU Backgammon's match
//! statistics, with eXtreme Gammon's PR.
//!
//! The file is read whole and replayed through the move generator before anything
//! is evaluated (`bgfarm_engine::matchfile`), so a bad file fails at once with one
//! line naming the file and its line, and prints nothing else. Chequer plays are
//! ranked at `--ply` through the move filter, as `bgfarm hint` ranks them; cube
//! actions are valued by the cubeful lookahead of `bgfarm cube --ply` at the same
//! depth. Units and the cube-decision rules: see `analyse/rate.rs`; statistics and
//! thresholds: `analyse/report.rs`. The rates on the test matches next to GNU
//! Backgammon's own analysis: tests/data/matches/README.md. Luck per roll and the
//! luck-adjusted result: `analyse/luck.rs`. `--html OUT.html`: one self-contained
//! page with a board for every marked decision (`analyse/html.rs`).

mod form;
mod html;
mod luck;
mod remote;
mod report;
mod rollouts;
mod units;

use super::met::load_table;
use super::search_args::{check_ply, parse_filter, CacheArgs, EvalArgs};
use super::CliError;
pub use bgfarm_engine::analysis::rate::{CubeChoice, Rated};
pub use bgfarm_engine::analysis::units::Kind;
use bgfarm_engine::analysis::AnalysisPlan;
use bgfarm_engine::matchfile::{self, CubeState, Format, Match};
use bgfarm_engine::Position;
pub use form::planner;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The match: a GNU Backgammon .sgf file or .mat match text (the format is
    /// recognised from the content).
    pub file: String,
    /// Search depth of chequer plays and of the cubeful lookahead of cube actions
    /// (GNU Backgammon's plies, 0 = the raw nets), 0 to 3.
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Move filter, as for `bgfarm hint` (normal = `0:8:0.16,1:8:0.06,2:2:0.04`).
    #[arg(long, default_value = "normal")]
    pub filter: String,
    /// Match equity table for match play: kazaross-xg2, keith:G=0.26 or a GNU
    /// Backgammon MET XML file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub met: String,
    /// Print one JSON object: the players' statistics and every decision.
    #[arg(long)]
    pub json: bool,
    /// Search depth at which the best play of each roll is chosen for the luck of a
    /// roll (0 to 3). On the 5-point test match 0 takes 0.3-0.6 s (3% of a 2-ply
    /// analysis), 1 about 8 s, 2 about 280 s (docs/research-log.md).
    #[arg(long, default_value_t = 0)]
    pub luck_ply: u8,
    /// Also write one self-contained HTML page: the statistics and a board diagram of
    /// every decision marked doubtful or worse or rolled out.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub eval: EvalArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
    #[command(flatten)]
    pub rollouts: rollouts::RolloutFlags,
}

/// One rated decision.
#[derive(Clone, Debug)]
pub struct Decision {
    /// 1-based game number.
    pub game: u32,
    /// 1-based roll of the game the decision belongs to (a cube action: the roll it
    /// came before).
    pub move_no: u32,
    /// Who decided.
    pub player: u8,
    pub kind: Kind,
    /// GNU Backgammon ID `POSITION:MATCH` of the decision (the position seen by the
    /// player on roll, the match ID with the score, cube and dice).
    pub position: String,
    pub dice: Option<[u8; 2]>,
    pub rated: Rated,
    /// A chequer play with one legal choice.
    pub forced: bool,
    /// Counted in the statistics (chequer plays always; cube actions see `rate`).
    pub counted: bool,
    /// The luck of the roll of a chequer decision (EMG; see `luck`).
    pub luck: Option<f64>,
    /// The board seen by the player on roll, the cube before the decision, the score
    /// at the game's start (player 0 first) and the Crawford flag: the HTML board.
    pub board: Position,
    pub cube: CubeState,
    pub score: [u32; 2],
    pub crawford: bool,
    /// The player on roll (the doubler at a take or drop).
    pub on_roll: u8,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let ply = check_ply(args.ply)?;
    let luck_ply = check_ply(args.luck_ply)
        .map_err(|_| CliError::msg(format!("--luck-ply {}: use 0 to 3", args.luck_ply)))?;
    let filter = parse_filter(&args.filter)?;
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::msg(format!("{}: cannot read: {e}", args.file)))?;
    let (format, m) = read_match(&args.file, &text)?;
    // Created before the analysis, so a path that cannot be written fails at once.
    let html_out = match &args.html {
        Some(path) => Some((
            path,
            std::fs::File::create(path)
                .map_err(|e| CliError::msg(format!("{}: cannot write: {e}", path.display())))?,
        )),
        None => None,
    };
    let met = if m.length > 0 {
        Some(load_table(&args.met)?)
    } else {
        None
    };
    let start = Instant::now();
    let plan = AnalysisPlan::new(
        &m,
        (ply, filter.ladder(ply)),
        (luck_ply, filter.ladder(luck_ply)),
        met.as_ref(),
    )
    .map_err(|e| CliError::msg(format!("{}: {e}", args.file)))?;
    let done = match args.rollouts.remote.coordinator.as_deref() {
        Some(url) => remote::run(url, &args, &text, &plan, met.as_ref())?,
        None => units::run(&args.eval.engine(args.cache.cache_mib)?, &plan)?,
    };
    let (luck_seconds, threads) = (done.luck_seconds, done.threads);
    let (mut decisions, rolls) = units::assemble(&plan, done.results)?;
    decisions.retain(|d| d.counted);
    for d in decisions.iter_mut().filter(|d| d.kind == Kind::Chequer) {
        d.luck = rolls
            .iter()
            .find(|r| (r.game, r.move_no, r.player) == (d.game, d.move_no, d.player))
            .map(|r| r.emg);
    }
    let luck_stats = luck::stats(&m, &rolls, met.as_ref());
    let rolled = rollouts::roll_out(&args.rollouts, &args.eval.net, &m, &decisions)?;
    let seconds = start.elapsed().as_secs_f64();
    let info = report::Info {
        file: &args.file,
        format: format.as_str(),
        m: &m,
        ply,
        filter: filter.to_string(),
        met: met.as_ref().map(|t| t.name().to_string()),
        seconds,
        threads,
        rollouts: &rolled.plays,
        cube_rollouts: &rolled.cubes,
        luck: &luck_stats,
        luck_ply,
        luck_seconds,
    };
    if let Some((path, mut file)) = html_out {
        use std::io::Write;
        file.write_all(html::page(&info, &decisions).as_bytes())
            .map_err(|e| CliError::msg(format!("{}: cannot write: {e}", path.display())))?;
    }
    if args.json {
        println!("{}", report::json(&info, &decisions)?);
    } else {
        print!("{}", report::text(&info, &decisions));
    }
    Ok(())
}

/// The match in `text` (read from `name`, named in errors), checked as a whole:
/// every move legal, and no game after the match was won.
fn read_match(name: &str, text: &str) -> Result<(Format, Match), CliError> {
    let (format, m) = matchfile::parse(text).map_err(|e| CliError::msg(format!("{name}: {e}")))?;
    if let Some(g) = m
        .games
        .iter()
        .find(|g| m.length > 0 && g.score.iter().any(|&s| s >= m.length))
    {
        let line = g.actions.first().map_or(0, |a| a.line);
        return Err(CliError::msg(format!(
            "{name}: line {line}: game {} starts after the {}-point match was won",
            g.number, m.length
        )));
    }
    Ok((format, m))
}
