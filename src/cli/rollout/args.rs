//! The command line of `bgfarm rollout`.

use super::preset::{Preset, Values, DEFAULT_TRIALS};
use bgfarm_client::RemoteArgs;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    #[arg(required_unless_present = "positions")]
    pub position: Option<String>,
    /// Roll out every position of FILE as one job instead: one line each, `POSITION
    /// [DICE [MOVES]]` (a GNU Backgammon ID or an XGID, whose dice are played when
    /// DICE is left out; MOVES as --moves), `#` for comments; one table per line, or
    /// one JSON object with a `positions` array. With --cubeful each line keeps its own
    /// cube, and all lines must be at one score (or all money play).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["position", "dice", "match_id"])]
    pub positions: Option<std::path::PathBuf>,
    /// Roll out the moves of this roll instead of the position before the roll.
    #[arg(long)]
    pub dice: Option<String>,
    /// With --dice: `all`, `top:N` (best N at 0-ply), or moves in notation separated
    /// by commas (`"24/18 13/10,8/5 6/5"`).
    #[arg(long, default_value = "top:5")]
    pub moves: String,
    /// Settings named for other programs' levels: xg-roller, xg-roller+,
    /// xg-roller++ (eXtreme Gammon's Roller levels) or gnubg (GNU Backgammon's
    /// default rollout). They set the trials, --ply, --truncate and --cubeful;
    /// flags given explicitly win. Approximations: our nets and move filters
    /// differ from those programs', so the same settings play other games.
    #[arg(long, value_enum)]
    pub preset: Option<Preset>,
    /// Trials per candidate (a multiple of 36 keeps the dice stratified) [default:
    /// 1296, or the preset's].
    #[arg(long)]
    pub trials: Option<u64>,
    /// Chequer play: ply of the move choice (0 = the net's best move; 1-2 = an
    /// n-ply search with the normal move filter, as `bgfarm hint`). The luck estimate
    /// chooses each roll's play at 0-ply, which keeps the rollout unbiased and cheap
    /// (see --luck) [default: 0, or the preset's].
    #[arg(long)]
    pub ply: Option<u8>,
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
    /// Stop each trial after this many plies and use the evaluation there
    /// [default: none, or the preset's].
    #[arg(long)]
    pub truncate: Option<u32>,
    /// Variance reduction (luck adjustment): on or off.
    #[arg(long, default_value = "on")]
    pub vr: String,
    /// Value function for the luck estimate: full (the net's best move for each roll,
    /// as GNU Backgammon), ranked (the net's linearized equity ranks each roll's
    /// moves and the net values only the best few), searched (full's moves, each
    /// valued by a 1-ply search), or auto: ranked where the mover plays at 0 or 1
    /// ply, searched where it searches 2 plies, which gives the most precision per
    /// CPU-second at each depth (measured in docs/research-log.md, "Rollouts: speed
    /// and variance"). All keep the rollout unbiased.
    #[arg(long, default_value = "auto")]
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
    /// Cubeless rollout (the default without a preset; overrides a preset's
    /// cubeful setting).
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
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// Embedded run: keep batch results in the store in this directory (created
    /// when missing). The same rollout again is answered from it at once, one with
    /// more --trials (and the same --batch) computes only the new batches,
    /// bit-identical to a fresh run, and `bgfarm results list POS --data DIR` lists
    /// it. Off by default.
    #[arg(long, conflicts_with = "coordinator")]
    pub data: Option<std::path::PathBuf>,
}

impl Args {
    fn preset_values(&self) -> Option<Values> {
        self.preset.map(Preset::values)
    }

    /// Trials per candidate: `--trials`, else the preset's, else 1296.
    pub fn trials(&self) -> u64 {
        self.trials
            .or(self.preset_values().map(|v| v.trials))
            .unwrap_or(DEFAULT_TRIALS)
    }

    /// Chequer ply: `--ply`, else the preset's, else 0.
    pub fn ply(&self) -> u8 {
        self.ply
            .or(self.preset_values().map(|v| v.ply))
            .unwrap_or(0)
    }

    /// Truncation: `--truncate`, else the preset's, else none.
    pub fn truncate(&self) -> Option<u32> {
        self.truncate
            .or(self.preset_values().and_then(|v| v.truncate))
    }

    /// Cubeful: `--cubeful`, or a cubeful preset without `--cubeless`.
    pub fn cubeful(&self) -> bool {
        self.cubeful || !self.cubeless && self.preset_values().is_some_and(|v| v.cubeful)
    }
}
