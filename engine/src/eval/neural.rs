//! The full static evaluator: exact endgame tables where they apply, a race net once
//! contact is broken, the contact net otherwise.

use super::net::{Net, Scratch, OUTPUTS};
use super::{terminal_probs, Evaluator, Probs};
use crate::position::Position;

/// Exact values for some endgames (the bear-off databases).
pub trait Endgame: Send + Sync {
    /// Probabilities for the player on roll, when `pos` is covered.
    fn probs(&self, pos: &Position) -> Option<Probs>;

    /// A hash of the tables, for the engine fingerprint.
    fn checksum(&self) -> u64;
}

impl Endgame for super::bearoff::BearoffDb {
    fn probs(&self, pos: &Position) -> Option<Probs> {
        super::bearoff::BearoffDb::probs(self, pos)
    }

    fn checksum(&self) -> u64 {
        super::bearoff::BearoffDb::checksum(self)
    }
}

/// Which part of the evaluator answers for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Over,
    Endgame,
    Race,
    Contact,
}

/// Contact and race nets plus optional exact endgames.
#[derive(Clone)]
pub struct NeuralEvaluator<'a> {
    pub contact: Net,
    pub race: Net,
    pub endgame: Option<&'a dyn Endgame>,
}

impl NeuralEvaluator<'_> {
    /// Which source evaluates `pos`.
    pub fn class(&self, pos: &Position) -> Class {
        if pos.game_over() {
            Class::Over
        } else if pos.has_contact() {
            Class::Contact
        } else if self.endgame.is_some_and(|e| e.probs(pos).is_some()) {
            Class::Endgame
        } else {
            Class::Race
        }
    }

    /// Probabilities with caller-held scratch buffers (one per net), for hot loops.
    pub fn evaluate_with(&self, pos: &Position, scratch: &mut EvalScratch) -> Probs {
        if let Some(p) = terminal_probs(pos) {
            return p;
        }
        if pos.has_contact() {
            return Probs(self.contact.forward(pos, &mut scratch.contact)).sanitized();
        }
        if let Some(p) = self.endgame.and_then(|e| e.probs(pos)) {
            return p;
        }
        Probs(self.race.forward(pos, &mut scratch.race)).sanitized()
    }

    /// Scratch buffers for [`NeuralEvaluator::evaluate_with`].
    pub fn scratch(&self) -> EvalScratch {
        EvalScratch {
            contact: self.contact.scratch(),
            race: self.race.scratch(),
        }
    }

    /// Hash of the nets and tables: part of the engine fingerprint.
    pub fn hash(&self) -> u64 {
        let mut h = self.contact.hash() ^ self.race.hash().rotate_left(21);
        if let Some(e) = self.endgame {
            h ^= e.checksum().rotate_left(42);
        }
        h
    }
}

/// Per-thread scratch for a [`NeuralEvaluator`].
#[derive(Clone)]
pub struct EvalScratch {
    pub contact: Scratch,
    pub race: Scratch,
}

impl Evaluator for NeuralEvaluator<'_> {
    fn evaluate(&self, pos: &Position) -> Probs {
        if let Some(p) = terminal_probs(pos) {
            return p;
        }
        if pos.has_contact() {
            return self.contact.evaluate(pos);
        }
        if let Some(p) = self.endgame.and_then(|e| e.probs(pos)) {
            return p;
        }
        self.race.evaluate(pos)
    }

    fn name(&self) -> String {
        self.contact
            .metadata
            .get("name")
            .cloned()
            .unwrap_or_else(|| "nets".into())
    }
}

/// Raw outputs as an array, for training code.
pub fn to_array(p: Probs) -> [f32; OUTPUTS] {
    p.0
}
