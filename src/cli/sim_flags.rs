//! The flags every match simulation shares, `match-sim` and each `study` alike: the
//! match equity table, the chequer player's nets, how it plays its chequers and the
//! threads. One struct, flattened into both commands, so their flags cannot drift.

use super::sim_table::sim_table;
use super::CliError;
use bgfarm_engine::matchsim::ChequerPlay;
use bgfarm_engine::met::MatchEquityTable;

#[derive(clap::Args, Clone, Debug)]
pub struct SimFlags {
    /// Match equity table for match-aware strategies: kazaross-xg2, keith:G=0.26,
    /// keith:measured (Keith's live-cube table for the chequer player's own gammon
    /// rate, measured on 10,000 self-play games first) or a GNU Backgammon MET XML
    /// file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub met: String,
    /// Chequer player's nets: `default`, a .safetensors bundle or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Chequer play: `cubeless` (the best cubeless equity, whatever the score),
    /// `match` (the best cubeful match-winning chance at the score and cube, with the
    /// mover's cube life index: gammons count only as much as the score makes them
    /// worth) or `own` (each side by its own cube model: a money model by money
    /// cubeful equity, blind to the score; a match-aware one as `match`). Default:
    /// `own` for `study match-vs-money`, else `cubeless`.
    #[arg(long)]
    pub chequer: Option<String>,
    /// Worker threads (default: one per core). Does not change the results.
    #[arg(long)]
    pub threads: Option<usize>,
}

impl SimFlags {
    /// The chequer play of `--chequer`, else the command's `default`.
    pub fn chequer(&self, default: ChequerPlay) -> Result<ChequerPlay, CliError> {
        match &self.chequer {
            Some(c) => ChequerPlay::parse(c).map_err(|e| CliError::msg(format!("--chequer: {e}"))),
            None => Ok(default),
        }
    }

    /// The table of `--met` (measuring the gammon rate on `pool` where asked).
    pub fn table(&self, pool: &rayon::ThreadPool) -> Result<MatchEquityTable, CliError> {
        sim_table(&self.met, &self.net, pool)
    }
}
