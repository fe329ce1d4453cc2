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
            luck: Luck::Ranked,
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
