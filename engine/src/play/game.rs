//! One cubeless money game between two players.

use crate::eval::{terminal_probs, Player};
use crate::movegen::MoveGenerator;
use crate::position::Position;
use crate::rng::Rng;

/// How a game ended, from player A's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameResult {
    /// Points won by A: +1/+2/+3 for a single game, gammon or backgammon won by A, the
    /// negatives when B won (cubeless, so never more than 3).
    pub points: i32,
    /// The loser had borne off no checker (also set for backgammons).
    pub gammon: bool,
    /// A gammon where the loser still had a checker on the bar or in the winner's home
    /// board.
    pub backgammon: bool,
    /// Turns played, forfeited turns (no legal move) included.
    pub turns: u32,
}

impl GameResult {
    /// True when A won.
    pub fn a_won(&self) -> bool {
        self.points > 0
    }
}

/// Plays one cubeless money game from the starting position and returns the result
/// from A's side.
///
/// The dice come only from `rng`, one roll per turn (forfeited turns included), so
/// the sequence of rolls does not depend on who plays: playing the same `rng` stream
/// twice with `a_first` flipped gives each player the other's dice (duplicate dice).
/// The opening roll is re-rolled while it is a double, as in real backgammon, and is
/// played by A when `a_first`, else by B. Each turn the mover picks one of the legal
/// moves with [`Player::choose`]; a turn with no legal move is skipped. The game ends
/// when a side has borne off its last checker; gammon and backgammon follow
/// [`terminal_probs`].
///
/// # Panics
/// If a player returns an index outside the move list (a bug in that player).
pub fn play_game(a: &dyn Player, b: &dyn Player, rng: &mut Rng, a_first: bool) -> GameResult {
    let mut gen = MoveGenerator::new();
    let mut pos = Position::STARTING;
    let mut a_to_move = a_first;
    let mut dice = loop {
        let d = rng.roll();
        if !d.is_double() {
            break d;
        }
    };
    let mut turns = 0u32;
    loop {
        turns += 1;
        let player = if a_to_move { a } else { b };
        let moves = gen.generate(&pos, dice);
        if moves.is_empty() {
            pos = pos.switch_sides();
        } else {
            let i = player.choose(&pos, dice, moves);
            assert!(
                i < moves.len(),
                "player {} chose move {i} of {}",
                player.name(),
                moves.len()
            );
            pos = moves[i].next_position();
            // `pos` is now seen by the side that did not just move: the game can only
            // have ended in the mover's favour.
            if let Some(probs) = terminal_probs(&pos) {
                let [_, _, _, lose_g, lose_bg] = probs.0;
                let gammon = lose_g > 0.5;
                let backgammon = lose_bg > 0.5;
                let mover_points = 1 + i32::from(gammon) + i32::from(backgammon);
                return GameResult {
                    points: if a_to_move {
                        mover_points
                    } else {
                        -mover_points
                    },
                    gammon,
                    backgammon,
                    turns,
                };
            }
        }
        a_to_move = !a_to_move;
        dice = rng.roll();
    }
}

/// Game `g` of a duplicate-dice duel with `seed`: dice stream `g / 2`, seats swapped
/// for odd `g` (B opens where A opened in game `g - 1`). The result is from A's side.
pub fn play_indexed(a: &dyn Player, b: &dyn Player, seed: u64, g: u64) -> GameResult {
    let mut rng = Rng::for_stream(seed, g / 2);
    play_game(a, b, &mut rng, g.is_multiple_of(2))
}
