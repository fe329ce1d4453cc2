//! What a rollout rolled out, for the coordinator's job page: the position as it
//! was asked (its board diagram, GNU Backgammon position and match IDs, XGID), the
//! roll and the candidates, and the settings (trials, seed, plies, truncation,
//! cube, variance reduction, stop rules) as labelled lines.
//!
//! The position comes from the rollout's query label (what the user typed, kept
//! with the job), not from the candidates: a move rollout's candidates are the
//! positions after each move, seen by the opponent, and a board of one of them
//! would not be the position the user asked about.

use crate::board_svg::{Board, CubeOwner};
use bgfarm_engine::ids::match_id::{self, GameState, MatchState, Resignation};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::ids::xgid::{XgDice, Xgid};
use bgfarm_engine::rollout::{CubeRules, Luck, RolloutPlan};
use bgfarm_engine::Position;

/// The position a rollout was asked about, from the player on roll's side: what
/// the typed input (`ID`, `ID:MATCHID` or an XGID) holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub position: Position,
    pub cube_value: u32,
    pub cube_owner: CubeOwner,
    /// 0 for money play.
    pub match_length: u32,
    /// The player on roll's score, then the opponent's.
    pub score: [u32; 2],
    pub crawford: bool,
    pub jacoby: bool,
    pub dice: Option<[u8; 2]>,
}

impl Setup {
    /// Reads `input` as the CLI does (an XGID, or a position ID with an optional
    /// `:MATCHID`); `None` when it is none of them (a spec submitted without a
    /// readable query label).
    pub fn parse(input: &str) -> Option<Setup> {
        let t = input.trim();
        if t.starts_with("XGID=") || t.matches(':').count() == 9 {
            return Xgid::parse(t).ok().map(|x| from_xgid(&x));
        }
        let (pos, mid) = match t.split_once(':') {
            Some((p, m)) => (p, Some(m)),
            None => (t, None),
        };
        let position = position_id::decode(pos).ok()?;
        let m = match mid {
            Some(m) => MatchState::decode(m).ok()?,
            None => MatchState::default(),
        };
        let me = m.dice_owner.min(1) as usize;
        Some(Setup {
            position,
            cube_value: m.cube,
            cube_owner: match m.cube_owner {
                match_id::CubeOwner::Centered => CubeOwner::Centred,
                match_id::CubeOwner::Player(p) if usize::from(p) == me => CubeOwner::OnRoll,
                match_id::CubeOwner::Player(_) => CubeOwner::Opponent,
            },
            match_length: m.match_length,
            score: [m.score[me], m.score[1 - me]],
            crawford: m.crawford,
            jacoby: false,
            dice: m.dice.map(|(a, b)| [a, b]),
        })
    }

    /// The GNU Backgammon match ID of this setup (the player on roll as player 0).
    pub fn match_id(&self) -> String {
        let owner = match self.cube_owner {
            CubeOwner::Centred => match_id::CubeOwner::Centered,
            CubeOwner::OnRoll => match_id::CubeOwner::Player(0),
            CubeOwner::Opponent => match_id::CubeOwner::Player(1),
        };
        MatchState {
            cube: self.cube_value,
            cube_owner: owner,
            dice_owner: 0,
            crawford: self.crawford,
            game_state: GameState::Playing,
            turn: 0,
            doubled: false,
            resignation: Resignation::None,
            dice: self.dice.map(|[a, b]| (a, b)),
            match_length: self.match_length,
            score: self.score,
        }
        .encode()
    }

    /// The XGID of this setup (the player on roll as X).
    pub fn xgid(&self) -> String {
        let mut x = Xgid::money(self.position);
        x.cube_log2 = self.cube_value.max(1).ilog2() as u8;
        x.cube_position = match self.cube_owner {
            CubeOwner::Centred => 0,
            CubeOwner::OnRoll => 1,
            CubeOwner::Opponent => -1,
        };
        x.dice = self
            .dice
            .map_or(XgDice::NotRolled, |[a, b]| XgDice::Rolled(a, b));
        [x.score_x, x.score_o] = self.score;
        x.match_length = self.match_length;
        x.flags = if self.match_length > 0 {
            u8::from(self.crawford)
        } else {
            u8::from(self.jacoby)
        };
        x.to_string()
    }

    /// The board diagram, with `dice` (the roll rolled out) when given.
    pub fn board(&self, dice: Option<[u8; 2]>) -> Board {
        Board {
            position: self.position,
            names: ["on roll".into(), "opponent".into()],
            cube_value: self.cube_value,
            cube_owner: self.cube_owner,
            match_length: self.match_length,
            score: self.score,
            crawford: self.crawford,
            dice: dice.or(self.dice),
        }
    }
}

fn from_xgid(x: &Xgid) -> Setup {
    let x_on_roll = x.turn == 1;
    let owner = match (x.cube_position, x_on_roll) {
        (0, _) => CubeOwner::Centred,
        (1, true) | (-1, false) => CubeOwner::OnRoll,
        _ => CubeOwner::Opponent,
    };
    let score = if x_on_roll {
        [x.score_x, x.score_o]
    } else {
        [x.score_o, x.score_x]
    };
    Setup {
        position: x.position_on_roll(),
        cube_value: 1u32 << x.cube_log2.min(15),
        cube_owner: owner,
        match_length: x.match_length,
        score,
        crawford: x.match_length > 0 && x.flags & 1 == 1,
        jacoby: x.match_length == 0 && x.flags & 1 == 1,
        dice: match x.dice {
            XgDice::Rolled(a, b) => Some([a, b]),
            _ => None,
        },
    }
}

/// The settings of `plan` as (name, value) lines, the CLI's flags in words.
pub fn settings(plan: &RolloutPlan) -> Vec<(&'static str, String)> {
    let s = &plan.job.settings;
    let mut out = vec![
        ("trials", format!("{} per candidate", plan.trials)),
        ("seed", plan.job.seed.to_string()),
    ];
    let mut ply = format!("{}-ply", s.chequer_ply);
    if let Some(p) = s.opponent_ply {
        ply.push_str(&format!(", {p}-ply for the opponent"));
    }
    if let Some((from, p)) = s.late {
        ply.push_str(&format!(", {p}-ply from ply {from} of each trial"));
    }
    out.push(("chequer play", ply));
    let mut trunc = match s.truncate {
        Some(t) => format!("after {t} plies"),
        None => "none: games played to the end".into(),
    };
    if s.bearoff_truncation {
        trunc.push_str("; stops in the exact bear-off tables");
    }
    out.push(("truncation", trunc));
    out.push((
        "cube",
        match s.cube {
            None => "cubeless".into(),
            Some(CubeRules::Money { jacoby }) => format!(
                "cubeful money{}, {}-ply cube decisions",
                if jacoby { " (Jacoby)" } else { "" },
                s.cube_ply
            ),
            Some(CubeRules::Match { .. }) => {
                format!("cubeful match play, {}-ply cube decisions", s.cube_ply)
            }
        },
    ));
    out.push((
        "variance reduction",
        match s.luck {
            Luck::Off => "off".into(),
            Luck::Full => "on (full luck estimate)".into(),
            Luck::Ranked => "on (ranked luck estimate)".into(),
            Luck::Searched => "on (full luck estimate valued at 1 ply)".into(),
            Luck::Auto => "on (ranked luck estimate below 2 plies, valued at 1 ply from 2)".into(),
        },
    ));
    let mut stops = Vec::new();
    if let Some(t) = plan.stop.se_target {
        stops.push(format!("every equity SE at most {t}"));
    }
    if let Some((min, k)) = plan.stop.jsd {
        stops.push(format!(
            "candidates {k} SEs behind the best dropped after {min} trials (JSD)"
        ));
    }
    out.push((
        "stop rules",
        if stops.is_empty() {
            "none: every trial runs".into()
        } else {
            stops.join("; ")
        },
    ));
    out.push(("batch", format!("{} trials", plan.batch)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::rollout::{Candidate, RolloutJob, StopRules, TrialSettings};

    #[test]
    fn inputs_give_their_setup_and_ids() {
        let s = Setup::parse("4HPwATDgc/ABMA").expect("a position ID");
        assert_eq!(s.position, Position::STARTING);
        assert_eq!((s.cube_value, s.match_length), (1, 0));
        assert_eq!(
            s.xgid(),
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
        );
        let x =
            Setup::parse("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:2:3:0:7:10").expect("an XGID");
        // O is on roll: O's score first, and O owns the cube.
        assert_eq!(x.score, [3, 2]);
        assert_eq!(x.cube_owner, CubeOwner::OnRoll);
        assert_eq!((x.cube_value, x.match_length), (2, 7));
        assert_eq!(x.dice, Some([5, 2]));
        let back = Setup::parse(&format!("4HPwATDgc/ABMA:{}", x.match_id())).expect("round trip");
        assert_eq!(
            back,
            Setup {
                jacoby: false,
                ..x.clone()
            }
        );
        assert_eq!(Setup::parse(&x.xgid()), Some(x));
        assert_eq!(Setup::parse("nonsense"), None);
    }

    #[test]
    fn settings_read_as_words() {
        let plan = RolloutPlan {
            job: RolloutJob {
                candidates: vec![Candidate::position(Position::STARTING)],
                seed: 7,
                settings: TrialSettings {
                    truncate: Some(11),
                    ..TrialSettings::default()
                },
            },
            trials: 1296,
            batch: 144,
            stop: StopRules {
                se_target: Some(0.01),
                jsd: None,
            },
        };
        let lines = settings(&plan);
        let find = |n: &str| {
            lines
                .iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        assert_eq!(find("trials"), "1296 per candidate");
        assert_eq!(find("seed"), "7");
        assert!(find("truncation").starts_with("after 11 plies"));
        assert_eq!(find("cube"), "cubeless");
        assert!(find("variance reduction").starts_with("on"));
        assert!(find("stop rules").contains("0.01"));
    }
}
