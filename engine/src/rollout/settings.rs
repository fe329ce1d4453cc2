//! How trials are played: the luck estimate's value function and the search
//! settings of chequer play and cube decisions ([`TrialSettings`]). Apart from
//! the trial code so that what depends on the settings alone (the first-move
//! cache's keys, [`super::first_ply`]) need not depend on how trials run.

use super::cubeful::CubeRules;

/// Which value function measures luck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Luck {
    /// No variance reduction.
    Off,
    /// Best move for every roll at 0-ply by the net.
    Full,
    /// Best move for every roll among the best few by a linear ranking, valued by
    /// the net.
    Ranked,
    /// [`Luck::Full`]'s play of every roll, valued by a 1-ply search (21 replies
    /// each) instead of the net: closer to what a game played by a searching
    /// player brings, so a searched rollout's luck is measured with less noise.
    Searched,
    /// [`Luck::Ranked`] where the mover's chequer play searches less than
    /// [`SEARCHED_FROM_PLY`] plies, [`Luck::Searched`] from there on: each state
    /// takes the estimate that gives the most precision per CPU-second at its
    /// depth ([`Luck::at`]).
    Auto,
}

/// The chequer-play depth from which [`Luck::Auto`] takes the searched estimate.
///
/// The ranked estimate saves the full one's move values (about 15 s of CPU per
/// 1296 trials of the opening) for 30% more variance; that pays where the play is
/// cheap, not where a 2-ply search dwarfs it. Valuing those plays at 1 ply costs
/// five times the trial at 1-ply rollouts, 11% more at 2 plies, where the play's
/// own search has valued most of them already. Opening before the roll, one
/// thread, `bgfarm rollout --luck ranked|full|searched` (mean SE^2 over seeds,
/// median CPU; precision 1 / (SE^2 s), relative to ranked):
///
/// | ply | trials x seeds | ranked: SE, CPU s | full: SE, CPU s, precision | searched: SE, CPU s, precision |
/// |---|---|---|---|---|
/// | 0 | 1296 x 3 | 0.00786, 3.47 | 0.00708, 18.6, 0.23 | |
/// | 1 | 648 x 3 (searched: x 2) | 0.01144, 12.3 | 0.00980, 20.1, 0.83 | 0.00811, 62.7, 0.37 |
/// | 2 | 144 x 4 | 0.02378, 33.7 | 0.02150, 35.0, 1.18 | 0.01878, 38.8, 1.42 |
pub const SEARCHED_FROM_PLY: u8 = 2;

impl Luck {
    /// The estimate a state whose mover plays at `depth` plies takes: this one,
    /// or for [`Luck::Auto`] the ranked or the searched one. Any choice made before
    /// the roll keeps the luck's mean at zero, so the rollout stays unbiased.
    pub fn at(self, depth: u8) -> Luck {
        match self {
            Luck::Auto if depth >= SEARCHED_FROM_PLY => Luck::Searched,
            Luck::Auto => Luck::Ranked,
            l => l,
        }
    }
}

/// How trials are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrialSettings {
    pub luck: Luck,
    /// Stop after this many plies and use the static evaluation there.
    pub truncate: Option<u32>,
    /// Stop as soon as the exact bear-off tables cover the position.
    pub bearoff_truncation: bool,
    /// Play with the doubling cube under these rules (`None`: cubeless).
    pub cube: Option<CubeRules>,
    /// Chequer play: the ply of each move choice (0 = the net's best move; n > 0 =
    /// an n-ply search with the normal move filter, as `bgfarm hint --ply n`).
    pub chequer_ply: u8,
    /// The opponent's chequer ply when it differs (GNU Backgammon's per-player
    /// settings): the opponent of the side the results are for, i.e. of the player
    /// on roll in a position rollout and of the mover in a move rollout. `None`:
    /// `chequer_ply` for both.
    pub opponent_ply: Option<u8>,
    /// Cube decisions in cubeful trials: 0 = Janowski on the 0-ply evaluation; n =
    /// an n-ply cubeful lookahead (`bgfarm cube --ply n`), both players.
    pub cube_ply: u8,
    /// From this ply of a trial on (0-based, both players counted), play at
    /// `.1` plies instead: GNU Backgammon's "late evaluation", the usual way to make
    /// deep rollouts affordable (the early moves decide most).
    pub late: Option<(u32, u8)>,
}

impl TrialSettings {
    /// The chequer-play ply at `ply` of a trial, for the side the results are for
    /// (`player`) or its opponent. Late evaluation applies to both sides.
    pub fn chequer_ply_at(&self, ply: u32, player: bool) -> u8 {
        match self.late {
            Some((from, late)) if ply >= from => late,
            _ if player => self.chequer_ply,
            _ => self.opponent_ply.unwrap_or(self.chequer_ply),
        }
    }
}

impl Default for TrialSettings {
    fn default() -> Self {
        TrialSettings {
            luck: Luck::Auto,
            truncate: None,
            bearoff_truncation: true,
            cube: None,
            chequer_ply: 0,
            opponent_ply: None,
            cube_ply: 0,
            late: None,
        }
    }
}
