//! The full static evaluator: exact endgame tables where they apply, a race net once
//! contact is broken, the contact net otherwise.
//!
//! A contact net with two hidden layers chooses better but costs about 1.7 times a
//! one-layer net per candidate (its second layer is dense, so the incremental first
//! layer saves less). An evaluator may carry a cheaper *screen* net for contact
//! ([`NeuralEvaluator::screen`]): where a rollout or self-play game only needs the
//! 0-ply choice ([`NeuralEvaluator::best_successor`], [`Evaluator::choose_index`],
//! the rollouts' luck estimate), the screen values every contact candidate and the
//! contact net only the screen's best few ([`SCREEN_KEEP`] within [`SCREEN_MARGIN`]).
//! On GNU Backgammon's bench the built-in deep net's choice survives the one-layer
//! net's screen in all 670 contact decisions, for 2.5 contact-net evaluations per
//! decision instead of 4.7; everywhere else (`eval`, `hint`, the n-ply search)
//! every candidate gets the contact net.
//!
//! In a rollout (the opening, 1296 trials, one thread, seeds 1-4, leg 37's deep
//! net) the screen took the deep nets' CPU from 9.47 s to 6.48 s, against 5.69 s
//! for the one-layer nets alone; the luck estimate's values by the screen instead of the deeper net cost
//! about 3% more variance (RMS SE 0.00805 against 0.00793). Head to head over
//! 100,000 games (seed 4) the screened deep nets score +0.001 +- 0.003 ppg against
//! the one-layer nets, as the unscreened ones did.
//!
//! An evaluator with a screen screens races too: where the endgame layer refines
//! the race net (a race not in the bear-off tables), the race net's own outputs
//! are the screen's value and the refined value is computed only for the screen's
//! best few ([`NeuralEvaluator::race_screened`]). The endgame layer (one-sided nets
//! per side, escape tables) took about 15% of a rollout trial from the opening
//! while races hold 1.5% of its variance; screened, the opening rollout (1296
//! trials, one thread, seeds 11-14) takes 3.76-3.78 s of CPU against 4.20-4.29 s,
//! RMS SE 0.00795 against 0.00792: 11% more precision per CPU-second. The screen
//! changed no choice of the 250 bench races nor of the test set's 500
//! (`bgfarm-lab bench hint --ply 0 --class race`: the play loss is the 0-ply loss).

use super::crashed::is_crashed;
use super::endgame::Endgame;
use super::net::encode::INPUTS;
use super::net::inference::{Base, Scratch};
use super::net::{Net, OUTPUTS};
use super::{best_move_index, terminal_probs, Evaluator, Probs};
use crate::dice::Dice;
use crate::movegen::{Move, MoveGenerator};
use crate::position::Position;

/// Which part of the evaluator answers for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Over,
    Endgame,
    Race,
    Contact,
}

/// Most contact candidates the screen passes to the contact net in a 0-ply choice
/// ([`NeuralEvaluator::screen`]): its best, and those of the next best within
/// [`SCREEN_MARGIN`] of it.
///
/// On GNU Backgammon's bench (leg 37's deep net with the one-layer contact net as screen;
/// the kept 5 within 0.08 are `bgfarm-lab bench hint --ply 0`'s "play loss"; loss
/// x1000 per decision by GNU 2-ply's values, share of the deep net's own choice,
/// contact candidates the deep net values), 670 contact decisions: keep 3, no margin:
/// 5.69, 99.4%, 2.9; keep 5: 5.54, 100%, 4.7; keep 5 within 0.08: 5.54, 100%, 2.5;
/// within 0.04: 5.48, 99.1%, 1.9. Of 80 crashed ones, keep 5 within 0.08: 8.14
/// (8.65 unscreened), 97.5%. The deep net alone: 5.54 and 8.65; the screen alone 6.89
/// and 12.33.
pub const SCREEN_KEEP: usize = 5;

/// How far below the screen's best (cubeless equity) a contact candidate may be and
/// still be valued by the contact net: see [`SCREEN_KEEP`].
pub const SCREEN_MARGIN: f32 = 0.08;

/// Contact and race nets plus optional exact endgames.
#[derive(Clone)]
pub struct NeuralEvaluator<'a> {
    pub contact: Net,
    pub race: Net,
    pub endgame: Option<&'a dyn Endgame>,
    /// A cheaper contact net that screens 0-ply choices and values the rollouts'
    /// luck estimate (see the module docs), with the race net screening the
    /// races the endgame layer refines; `None`: the contact net and the full race
    /// evaluation do both.
    pub screen: Option<Net>,
    /// The net of crashed positions ([`crate::eval::crashed`]), which answers for
    /// them instead of the contact net and the screen; `None`: the contact net
    /// answers every contact position.
    pub crashed: Option<Net>,
}

impl NeuralEvaluator<'_> {
    /// The crashed net when it answers for `pos` (a contact position).
    #[inline]
    fn crashed_net(&self, pos: &Position) -> Option<&Net> {
        self.crashed.as_ref().filter(|_| is_crashed(pos))
    }

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
            if let Some(net) = self.crashed_net(pos) {
                return Probs(net.forward(pos, &mut scratch.crashed)).sanitized();
            }
            return Probs(self.contact.forward(pos, &mut scratch.contact)).sanitized();
        }
        if let Some(p) = self.endgame.and_then(|e| e.probs(pos)) {
            return p;
        }
        self.refined(pos, Probs(self.race.forward(pos, &mut scratch.race)))
    }

    /// The race net's outputs for `pos`, made consistent and refined by the
    /// endgame tables (exact backgammon chances).
    #[inline]
    fn refined(&self, pos: &Position, probs: Probs) -> Probs {
        match self.endgame {
            Some(e) => e.refine_race(pos, probs.sanitized()),
            None => probs.sanitized(),
        }
    }

    /// Scratch buffers for [`NeuralEvaluator::evaluate_with`] and
    /// [`NeuralEvaluator::evaluate_moves`].
    pub fn scratch(&self) -> EvalScratch {
        let screen = self.screen.as_ref().unwrap_or(&self.contact);
        let crashed = self.crashed.as_ref().unwrap_or(&self.contact);
        EvalScratch {
            contact: self.contact.scratch(),
            race: self.race.scratch(),
            screen: screen.scratch(),
            crashed: crashed.scratch(),
            contact_base: self.contact.base(),
            race_base: self.race.base(),
            screen_base: screen.base(),
            crashed_base: crashed.base(),
            parent: Position::STARTING,
            contact_ready: false,
            race_ready: false,
            screen_ready: false,
            crashed_ready: false,
        }
    }

    /// Every candidate of one roll at once: `out[i]` (cleared first) is what
    /// [`NeuralEvaluator::evaluate_with`]`(&moves[i].next_position())` returns, up to
    /// float rounding (a few 1e-7): probabilities for the player who rolls next,
    /// finished games, bear-off tables and the contact/race switch decided per
    /// candidate. `moves` should be moves from `parent` (other positions are still
    /// right, only slower).
    ///
    /// Speed: each net's first layer is computed once for `parent` seen by the next
    /// player (only when some candidate needs that net) and each candidate adds only
    /// the rows of the inputs its move changed: 6.3 instead of 30.4 on average over
    /// the oracle benchmark. The hidden sigmoid and the output layer stay per
    /// candidate, so the gain is 1.35x: 1.86M against 1.38M candidates/s one by one
    /// with the 198-128-5 nets (`benches/eval.rs`; CPU-time medians on one core).
    pub fn evaluate_moves(
        &self,
        parent: &Position,
        moves: &[Move],
        scratch: &mut EvalScratch,
        out: &mut Vec<Probs>,
    ) {
        out.clear();
        out.reserve(moves.len());
        self.prepare_children(parent, scratch);
        for m in moves {
            out.push(self.evaluate_child(&m.next_position(), scratch));
        }
    }

    /// Makes `scratch` ready for [`NeuralEvaluator::evaluate_child`] on the
    /// positions after moves from `parent`, for as many rolls as the caller likes:
    /// the rollouts' luck estimate values candidates of all 21 rolls from one
    /// parent, and computing the first layers once per parent instead of once per
    /// roll saved ~4% of a rollout trial. Each net's base is still computed only
    /// when a child first needs that net.
    pub fn prepare_children(&self, parent: &Position, scratch: &mut EvalScratch) {
        scratch.parent = parent.switch_sides();
        scratch.contact_ready = false;
        scratch.race_ready = false;
        scratch.screen_ready = false;
        scratch.crashed_ready = false;
    }

    /// A position after a move from the parent last given to
    /// [`NeuralEvaluator::prepare_children`] (`next`: seen by the player who rolls
    /// next), as [`NeuralEvaluator::evaluate_moves`] values it: bit for bit the
    /// same whatever else is evaluated from the same parent, and in what order.
    #[inline]
    pub fn evaluate_child(&self, next: &Position, scratch: &mut EvalScratch) -> Probs {
        if let Some(p) = terminal_probs(next) {
            p
        } else if let Some(net) = self.crashed_net(next) {
            scratch.ready_crashed(net);
            Probs(net.forward_from(&scratch.crashed_base, next, &mut scratch.crashed)).sanitized()
        } else if next.has_contact() {
            scratch.ready_contact(&self.contact);
            Probs(
                self.contact
                    .forward_from(&scratch.contact_base, next, &mut scratch.contact),
            )
            .sanitized()
        } else if let Some(p) = self.endgame.and_then(|e| e.probs(next)) {
            p
        } else {
            scratch.ready_race(&self.race);
            let p = self
                .race
                .forward_from(&scratch.race_base, next, &mut scratch.race);
            self.refined(next, Probs(p))
        }
    }

    /// [`NeuralEvaluator::evaluate_child`] with the screen net in place of the contact
    /// net when there is one: what the screen and the rollouts' luck estimate value
    /// children with. Without a screen it is `evaluate_child`, bit for bit. Crashed
    /// positions get the crashed net when there is one, not the screen.
    #[inline]
    pub fn screen_child(&self, next: &Position, scratch: &mut EvalScratch) -> Probs {
        match &self.screen {
            Some(screen) if next.has_contact() && self.crashed_net(next).is_none() => {
                scratch.ready_screen(screen);
                Probs(screen.forward_from(&scratch.screen_base, next, &mut scratch.screen))
                    .sanitized()
            }
            // A race: the tables where they answer, else the race net's own
            // outputs (one table look-up; without an endgame layer that is what
            // `evaluate_child` gives too).
            Some(_) if !next.has_contact() && !next.game_over() => {
                match self.endgame.and_then(|e| e.probs(next)) {
                    Some(p) => p,
                    None => {
                        scratch.ready_race(&self.race);
                        Probs(
                            self.race
                                .forward_from(&scratch.race_base, next, &mut scratch.race),
                        )
                        .sanitized()
                    }
                }
            }
            _ => self.evaluate_child(next, scratch),
        }
    }

    /// Whether the screen values `next` and the evaluator re-values the screen's
    /// best: a contact position the crashed net does not answer for, or a race
    /// ([`NeuralEvaluator::race_screened`]).
    #[inline]
    fn screened(&self, next: &Position) -> bool {
        (next.has_contact() && self.crashed_net(next).is_none()) || self.race_screened(next)
    }

    /// Whether `next` is a race the endgame layer refines (not over, no contact,
    /// not in the bear-off tables), which an evaluator with a screen screens with
    /// the race net's own outputs (see the module docs).
    #[inline]
    fn race_screened(&self, next: &Position) -> bool {
        self.screen.is_some()
            && !next.has_contact()
            && !next.game_over()
            && self.endgame.is_some_and(|e| e.probs(next).is_none())
    }

    /// The 0-ply choice among `moves` (from the parent last given to
    /// [`NeuralEvaluator::prepare_children`]) whose values by
    /// [`NeuralEvaluator::screen_child`] are `screened` (the next player's view): the
    /// best screened candidates by the screen ([`SCREEN_KEEP`] within [`SCREEN_MARGIN`]), valued again by the
    /// contact net or the refined race evaluation, and every other candidate
    /// (crashed positions, bear-offs, finished games: the screen's values are the
    /// evaluator's own there) compete; the best cubeless
    /// equity for the mover wins, the first on ties. Returns its index and its value
    /// (next player's view). Without a screen it is [`best_move_index`] of
    /// `screened`.
    pub fn screened_choice(
        &self,
        moves: &[Move],
        screened: &[Probs],
        scratch: &mut EvalScratch,
    ) -> Option<(usize, Probs)> {
        if self.screen.is_none() {
            return best_move_index(screened).map(|i| (i, screened[i]));
        }
        // The screen's best SCREEN_KEEP screened candidates, best first, equal
        // equities in move order.
        let mut kept = [(f32::NEG_INFINITY, usize::MAX); SCREEN_KEEP];
        let mut in_screen = 0usize;
        let mut best: Option<(f32, usize, Probs)> = None;
        let offer = |best: &mut Option<(f32, usize, Probs)>, i: usize, p: Probs| {
            let eq = p.flip().equity();
            if best.is_none_or(|(b, j, _)| eq > b || (eq == b && i < j)) {
                *best = Some((eq, i, p));
            }
        };
        for (i, (m, p)) in moves.iter().zip(screened).enumerate() {
            if !self.screened(&m.next_position()) {
                offer(&mut best, i, *p);
                continue;
            }
            in_screen += 1;
            let eq = p.flip().equity();
            let mut k = SCREEN_KEEP;
            while k > 0 && eq > kept[k - 1].0 {
                k -= 1;
            }
            if k < SCREEN_KEEP {
                kept.copy_within(k..SCREEN_KEEP - 1, k + 1);
                kept[k] = (eq, i);
            }
        }
        let floor = kept[0].0 - SCREEN_MARGIN;
        for &(_, i) in kept
            .iter()
            .take(in_screen.min(SCREEN_KEEP))
            .take_while(|(eq, _)| *eq >= floor)
        {
            let p = self.evaluate_child(&moves[i].next_position(), scratch);
            offer(&mut best, i, p);
        }
        best.map(|(_, i, p)| (i, p))
    }

    /// The 0-ply choice among `moves` from `parent` and its value (next player's
    /// view): every candidate valued by [`NeuralEvaluator::screen_child`] into
    /// `probs` (a reusable buffer), then [`NeuralEvaluator::screened_choice`].
    /// Without a screen that is the best of [`NeuralEvaluator::evaluate_moves`], bit
    /// for bit.
    pub fn choose_move(
        &self,
        parent: &Position,
        moves: &[Move],
        scratch: &mut EvalScratch,
        probs: &mut Vec<Probs>,
    ) -> Option<(usize, Probs)> {
        self.prepare_children(parent, scratch);
        probs.clear();
        probs.extend(
            moves
                .iter()
                .map(|m| self.screen_child(&m.next_position(), scratch)),
        );
        self.screened_choice(moves, probs, scratch)
    }

    /// The gradient of the net that values the children of the parent last given to
    /// [`NeuralEvaluator::prepare_children`] (for `contact`, the screen net when there
    /// is one, since it values the luck estimate's candidates, else the contact net;
    /// otherwise the race net), taken at that parent as the next player sees it, with respect
    /// to the inputs in `rows` ([`Net::input_gradient`]). It shares (and if needed makes)
    /// the first-layer base [`NeuralEvaluator::evaluate_child`] uses, so the
    /// children's values are bit for bit what they would be without it.
    pub fn children_gradient(
        &self,
        scratch: &mut EvalScratch,
        contact: bool,
        rows: &[u16],
        out: &mut [f32; INPUTS],
    ) {
        if let (true, Some(screen)) = (contact, &self.screen) {
            scratch.ready_screen(screen);
            screen.input_gradient(&scratch.screen_base, rows, out);
        } else if contact {
            scratch.ready_contact(&self.contact);
            self.contact
                .input_gradient(&scratch.contact_base, rows, out);
        } else {
            scratch.ready_race(&self.race);
            self.race.input_gradient(&scratch.race_base, rows, out);
        }
    }

    /// The greedy 0-ply successor of `dice` in `pos`: the position after the move
    /// with the best cubeless equity, with its probabilities from the mover's side.
    /// With no legal move the position passes unchanged to the opponent. `gen` and
    /// `probs` are reusable buffers; self-play training and rollout trials both play
    /// with this.
    pub fn best_successor(
        &self,
        gen: &mut MoveGenerator,
        scratch: &mut EvalScratch,
        probs: &mut Vec<Probs>,
        pos: &Position,
        dice: Dice,
    ) -> (Position, Probs) {
        let moves = gen.generate(pos, dice);
        match self.choose_move(pos, moves, scratch, probs) {
            Some((i, p)) => (moves[i].next_position(), p.flip()),
            None => {
                let next = pos.switch_sides();
                (next, self.evaluate_with(&next, scratch).flip())
            }
        }
    }

    /// Hash of the nets and tables: part of the engine fingerprint.
    pub fn hash(&self) -> u64 {
        let mut h = self.contact.hash() ^ self.race.hash().rotate_left(21);
        if let Some(s) = &self.screen {
            h ^= s.hash().rotate_left(7);
        }
        if let Some(c) = &self.crashed {
            h ^= c.hash().rotate_left(35);
        }
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
    /// First-layer bases for the children of `parent` (seen by the next player),
    /// each valid once its flag is set: see [`NeuralEvaluator::prepare_children`].
    /// The screen net's buffers (sized for the contact net when there is none).
    screen: Scratch,
    /// The crashed net's buffers (sized for the contact net when there is none).
    crashed: Scratch,
    contact_base: Base,
    race_base: Base,
    screen_base: Base,
    crashed_base: Base,
    parent: Position,
    contact_ready: bool,
    race_ready: bool,
    screen_ready: bool,
    crashed_ready: bool,
}

impl EvalScratch {
    /// Makes the contact net's base for the current parent's children, once.
    #[inline]
    fn ready_contact(&mut self, net: &Net) {
        if !self.contact_ready {
            net.set_base(&self.parent, &mut self.contact_base, &mut self.contact);
            self.contact_ready = true;
        }
    }

    /// Makes the race net's base for the current parent's children, once.
    #[inline]
    fn ready_race(&mut self, net: &Net) {
        if !self.race_ready {
            net.set_base(&self.parent, &mut self.race_base, &mut self.race);
            self.race_ready = true;
        }
    }

    /// Makes the screen net's base for the current parent's children, once.
    #[inline]
    fn ready_screen(&mut self, net: &Net) {
        if !self.screen_ready {
            net.set_base(&self.parent, &mut self.screen_base, &mut self.screen);
            self.screen_ready = true;
        }
    }

    /// Makes the crashed net's base for the current parent's children, once.
    #[inline]
    fn ready_crashed(&mut self, net: &Net) {
        if !self.crashed_ready {
            net.set_base(&self.parent, &mut self.crashed_base, &mut self.crashed);
            self.crashed_ready = true;
        }
    }

    /// True when the buffers fit `eval`'s nets.
    fn fits(&self, eval: &NeuralEvaluator<'_>) -> bool {
        self.contact.fits(&eval.contact)
            && self.race.fits(&eval.race)
            && self
                .screen
                .fits(eval.screen.as_ref().unwrap_or(&eval.contact))
            && self
                .crashed
                .fits(eval.crashed.as_ref().unwrap_or(&eval.contact))
    }
}

impl Evaluator for NeuralEvaluator<'_> {
    fn evaluate(&self, pos: &Position) -> Probs {
        if let Some(p) = terminal_probs(pos) {
            return p;
        }
        if pos.has_contact() {
            if let Some(net) = self.crashed_net(pos) {
                return net.evaluate(pos);
            }
            return self.contact.evaluate(pos);
        }
        if let Some(p) = self.endgame.and_then(|e| e.probs(pos)) {
            return p;
        }
        self.refined(pos, self.race.evaluate(pos))
    }

    /// [`NeuralEvaluator::evaluate_moves`] with a per-thread scratch.
    fn evaluate_candidates(&self, parent: &Position, moves: &[Move], out: &mut Vec<Probs>) {
        with_thread_scratch(self, |scratch| {
            self.evaluate_moves(parent, moves, scratch, out)
        })
    }

    /// [`NeuralEvaluator::choose_move`] (the rollouts' 0-ply play) with a
    /// per-thread scratch.
    fn choose_index(&self, parent: &Position, moves: &[Move]) -> Option<usize> {
        let mut probs = Vec::with_capacity(moves.len());
        with_thread_scratch(self, |scratch| {
            self.choose_move(parent, moves, scratch, &mut probs)
                .map(|(i, _)| i)
        })
    }

    fn name(&self) -> String {
        self.contact
            .metadata
            .get("name")
            .cloned()
            .unwrap_or_else(|| "nets".into())
    }
}

/// Runs `f` with this thread's scratch for `eval` (made, or remade for other nets,
/// on demand).
fn with_thread_scratch<R>(eval: &NeuralEvaluator<'_>, f: impl FnOnce(&mut EvalScratch) -> R) -> R {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Option<EvalScratch>> =
            const { std::cell::RefCell::new(None) };
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let scratch = match s.as_mut() {
            Some(sc) if sc.fits(eval) => sc,
            _ => s.insert(eval.scratch()),
        };
        f(scratch)
    })
}

/// Raw outputs as an array, for training code.
pub fn to_array(p: Probs) -> [f32; OUTPUTS] {
    p.0
}

#[cfg(test)]
mod tests;
