//! The nets built into the binary, each a safetensors bundle with a contact net
//! (`contact.*`) and a race net (`race.*`), produced by `bgfarm-lab train` with the exact
//! commands recorded in `scripts/train-default-nets.sh` and in the files' metadata.
//!
//! The default evaluator ([`default_evaluator`], `--net default`, alias `deep`) is the
//! deeper contact net of [`DEEP_BYTES`] with the one-layer contact net of [`BYTES`] as
//! its screen ([`NeuralEvaluator::screen`]) and the crashed net of
//! [`CRASHED_BYTES`] for crashed positions; `--net fast` ([`fast_evaluator`]) is the
//! one-layer nets alone.
//!
//! Why the deeper net leads (GNU Backgammon's bench, loss x1000 per
//! decision at 0-ply; `bgfarm duel`): contact 5.1 against 6.9 (GNU Backgammon 0-ply
//! 3.9), crashed 8.4 against 12.3, +0.633 ppg against PubEval where the fast nets
//! make +0.611, and level with them head to head (+0.002 +- 0.004 over 100,000
//! games). Alone it costs 1.7x the CPU of a rollout trial; screened, 1.15x: the
//! opening rollout, 1296 trials on one thread, seeds 1-8, RMS SE 0.00811 in a
//! median 7.20 s of CPU against 0.00791 in 6.27 s for `fast` (17% less precision
//! per CPU-second; 42% less unscreened).

use super::bearoff::BearoffDb;
use super::endgame::Endgame;
use super::net::format::{load_bundle, NetError};
use super::neural::NeuralEvaluator;
use super::race::side_net::SideNet;
use super::race::side_race::SideRace;
use std::sync::OnceLock;

/// The one-sided race net (a 100-128-2x64 [`SideNet`] whose first-off head has a
/// hidden layer of its own), produced by `bgfarm-lab train sides` and
/// `side-fit` with the commands of `scripts/train-side-net.sh`.
pub const SIDE_BYTES: &[u8] = include_bytes!("../../nets/side.safetensors");

/// The built-in one-sided race net, read once.
pub fn side_net() -> Result<&'static SideNet, NetError> {
    static NET: OnceLock<Result<SideNet, NetError>> = OnceLock::new();
    NET.get_or_init(|| SideNet::from_safetensors(SIDE_BYTES).map_err(NetError))
        .as_ref()
        .map_err(Clone::clone)
}

/// The default endgame: the tables, and race win and gammon chances from one-sided
/// distributions ([`SideRace`] with the built-in [`side_net`], no searches), as
/// every command and worker evaluates by default (win chances, and gammon chances
/// for every saver, sides with checkers back included); backgammon chances from the
/// race net and its escape tables. Why: on GNU Backgammon's 250 bench races, 0-ply
/// loss x1000 0.243 against 0.342 with the first one-sided net (gammon chances only
/// near home, no sides with checkers back) and the race net's 0.445, and the 0-ply
/// equities of GNU Backgammon 2-ply's best five plays off by 3.9 thousandths
/// against 7.4 and 10.6 (differences between them 2.4 against 5.7 and 9.3; GNU
/// Backgammon 0-ply: 0.133, 2.3 and 2.5). It costs one small net evaluation per
/// side not home, on top of the race net's, and one more for a saver whose
/// opponent could finish soon. The layer is made once, over the tables of the
/// first call (the process-wide ones in practice).
pub fn default_endgame(db: &'static BearoffDb) -> Result<&'static dyn Endgame, NetError> {
    static LAYER: OnceLock<SideRace<'static>> = OnceLock::new();
    let net = side_net()?;
    Ok(LAYER.get_or_init(|| SideRace::new(db, db.one_sided(), net, 0)))
}

/// Where the analysing commands' one-sided lookahead starts when not told
/// (`--side-lookahead`): savers 25 pips or more from home. From 0 the bench
/// races' equity error is 2.81 rather than 2.91 for 25% more time; the choices
/// and the referee's 0.067 are the same.
pub const ANALYSIS_LOOKAHEAD_PIPS: u32 = 25;

/// The analysing commands' default endgame (`bgfarm hint`, `cube`, `analyse`
/// without race options): [`default_endgame`]'s layer with one roll of
/// lookahead for savers [`ANALYSIS_LOOKAHEAD_PIPS`] or more from home. A worker
/// rating an analysis's units evaluates with it, so that a cluster analysis
/// equals the embedded one.
pub fn analysis_endgame(db: &'static BearoffDb) -> Result<&'static dyn Endgame, NetError> {
    static LAYER: OnceLock<SideRace<'static>> = OnceLock::new();
    let net = side_net()?;
    Ok(LAYER.get_or_init(|| {
        SideRace::new(db, db.one_sided(), net, 0)
            .with_first_off_lookahead(Some(ANALYSIS_LOOKAHEAD_PIPS))
    }))
}

/// The one-layer nets' bundle (`--net fast`): a 234-128-5 contact net (zero weights
/// on the features' third block, which it skips) and the race net. Its contact net
/// screens the default evaluator's choices.
pub const BYTES: &[u8] = include_bytes!("../../nets/default.safetensors");

/// The deeper nets' bundle: a 234-128-64-5 contact net (two hidden layers, the
/// features' third block) with the race net of [`BYTES`]; legs 36-38 of
/// `scripts/train-default-nets.sh`.
pub const DEEP_BYTES: &[u8] = include_bytes!("../../nets/deep.safetensors");

/// The crashed net (a 234-128-64-5 net, unprefixed tensors): the deeper contact
/// net's copy fitted to crashed positions ([`super::crashed`]) from games with
/// random moves mixed in as GNU Backgammon's bench draws them, labelled by the
/// built-in nets' 2-ply search; `scripts/train-crashed-net.sh`. It answers the
/// default evaluator's crashed positions instead of the contact net and its screen.
/// Why: on GNU Backgammon's bench its 0-ply choice loses 6.8 x1000 per crashed
/// decision where the contact net lost 8.4 (GNU Backgammon 0-ply 5.7), and its
/// equities of the best five plays are off by 75 thousandths against 146; on 600
/// more crashed decisions drawn the same way, 8.7 against 11.5 (GNU 6.9).
pub const CRASHED_BYTES: &[u8] = include_bytes!("../../nets/crashed.safetensors");

/// The default evaluator: [`DEEP_BYTES`]' nets, screened by [`BYTES`]' contact net,
/// with [`CRASHED_BYTES`]' net for crashed positions.
pub fn default_evaluator(endgame: Option<&dyn Endgame>) -> Result<NeuralEvaluator<'_>, NetError> {
    Ok(NeuralEvaluator {
        contact: load_bundle(DEEP_BYTES, "contact.")?,
        race: load_bundle(DEEP_BYTES, "race.")?,
        endgame,
        screen: Some(load_bundle(BYTES, "contact.")?),
        crashed: Some(load_bundle(CRASHED_BYTES, "")?),
    })
}

/// The one-layer nets of [`BYTES`] alone (`--net fast`).
pub fn fast_evaluator(endgame: Option<&dyn Endgame>) -> Result<NeuralEvaluator<'_>, NetError> {
    Ok(NeuralEvaluator {
        contact: load_bundle(BYTES, "contact.")?,
        race: load_bundle(BYTES, "race.")?,
        endgame,
        screen: None,
        crashed: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_deep_net_screened_by_the_fast_one() {
        let d = default_evaluator(None).expect("built-in nets");
        let f = fast_evaluator(None).expect("built-in nets");
        assert_eq!(d.contact.shape(), "234-128-64-5");
        assert_eq!(
            d.screen.as_ref().map(|s| s.shape()),
            Some(f.contact.shape())
        );
        assert_eq!(f.contact.mid(), 0);
        assert!(f.screen.is_none());
        assert_eq!(
            d.crashed.as_ref().map(|c| c.shape()),
            Some(d.contact.shape())
        );
        assert!(f.crashed.is_none());
        assert_ne!(d.hash(), f.hash());
    }

    /// The built-in one-sided race net against the exact one-sided search on GNU
    /// Backgammon's bench race `a21eAACzuwMGAA` 4-1 (77 pips against 79, both sides
    /// with checkers outside): every play's win chance within 0.035 of the
    /// search's, and the default endgame's 0-ply choice is the search's. (The
    /// built-in all-off head is off here by 0.019 on average, at most 0.032, where
    /// the previous all-off head was off by 0.005, at most 0.014; but on 40 long
    /// races it is off by 0.007 against 0.013, see
    /// [`long_races_near_the_exact_search`].)
    #[test]
    fn the_side_net_is_close_to_the_exact_search() {
        use crate::eval::race::distribution::race_win;
        use crate::eval::Evaluator;
        let db = BearoffDb::global();
        let parent = crate::ids::position_id::decode("a21eAACzuwMGAA").unwrap();
        let moves = crate::movegen::legal_moves(&parent, crate::dice::Dice::new(4, 1).unwrap());
        let eval = default_evaluator(Some(default_endgame(db).unwrap())).unwrap();
        let mut best_exact = (f64::MAX, 0);
        for (i, m) in moves.iter().enumerate() {
            let next = m.next_position();
            let exact = race_win(db.one_sided(), &next, u64::MAX).unwrap();
            let net = f64::from(eval.evaluate(&next).0[0]);
            assert!((net - exact).abs() < 0.035, "{i}: {net} {exact}");
            if exact < best_exact.0 {
                best_exact = (exact, i);
            }
        }
        assert_eq!(eval.choose_index(&parent, &moves), Some(best_exact.1));
    }

    /// Long races where the previous all-off head was furthest off among 40
    /// self-play races with both sides 65-110 pips (the first such from line 13001
    /// of `scripts/train-side-net.sh`'s `race.txt`, which no fit saw): the win
    /// chances of the side on roll by the
    /// exact one-sided searches (`bgfarm eval ID --exact-race 100000000`, about
    /// 70 s each, so not run here) against the default's. The previous all-off
    /// head gave 0.522, 0.221 and 0.786; the built-in net is within 0.03 (its mean
    /// error over the 40 is 0.0069 against 0.0129; the race net's 0.0058).
    #[test]
    fn long_races_near_the_exact_search() {
        use crate::eval::Evaluator;
        let db = BearoffDb::global();
        let eval = default_evaluator(Some(default_endgame(db).unwrap())).unwrap();
        for (id, exact) in [
            ("uH1HAQAbWyMHAA", 0.39255),
            ("22xOAQDWdnAGAA", 0.17562),
            ("6nYGBwBme5MBAA", 0.75414),
        ] {
            let pos = crate::ids::position_id::decode(id).unwrap();
            let win = f64::from(eval.evaluate(&pos).0[0]);
            assert!((win - exact).abs() < 0.03, "{id}: {win} against {exact}");
        }
    }

    /// A gammon the race net misses: GNU Backgammon's bench race `X90GAQCFBwAAAA`
    /// 2-1 after its best 2/off 1/off. The saver has one checker on its 12-point
    /// (6 pips from home) and 14 home, and is gammoned only if it misses its first
    /// checker off twice. GNU Backgammon 2-ply: 0.0106; the race net alone gave
    /// 0.001, so the choice fell to 6/4 1/off. The default takes it from the
    /// one-sided net's first-off distribution (the saver is near home) and picks
    /// 2/off 1/off.
    #[test]
    fn a_gammon_near_home_from_the_side_net() {
        use crate::eval::Evaluator;
        let db = BearoffDb::global();
        let eval = default_evaluator(Some(default_endgame(db).unwrap())).unwrap();
        // After 2/off 1/off, the saver on roll.
        let next = crate::ids::position_id::decode("4AEA4KvbIAAAAA").unwrap();
        let lose_gammon = eval.evaluate(&next).0[3];
        assert!((lose_gammon - 0.0106).abs() < 0.002, "{lose_gammon}");
        let parent = crate::ids::position_id::decode("X90GAQCFBwAAAA").unwrap();
        let moves = crate::movegen::legal_moves(&parent, crate::dice::Dice::new(2, 1).unwrap());
        let best = eval.choose_index(&parent, &moves).unwrap();
        let chosen = crate::ids::position_id::encode(&moves[best].next_position());
        assert_eq!(chosen, "4AEA4KvbIAAAAA");
    }

    /// Gammon saves with stragglers far back, which the first one-sided net,
    /// trusted only near home and refusing sides with checkers back, missed (see
    /// [`GammonTrust::DEFAULT`](crate::eval::race::side_race::GammonTrust::DEFAULT)).
    /// `vwEAANj2DYAQAA` 5-1 is a backgammon save: 18/13 7/6 leaves a checker on the
    /// 22-point, so a layer refusing such sides values it with the race net and
    /// 22/17 7/6 with the one-sided net, and chooses 18/13 7/6 by 0.04; the
    /// one-sided searches and GNU Backgammon 2-ply put 22/17 7/6 ahead by 0.021
    /// (-1.849 against -1.870). In `/w0AAHCvUCEJAA` 1-5 (the saver 30 pips from home) the exact gammon
    /// search gives 16/11 8/7 and 18/17 16/11 0.621 and 0.628 to lose the gammon;
    /// the first one-sided net gave 0.698 and 0.685, the wrong way round.
    #[test]
    fn gammon_saves_with_stragglers_far_back() {
        use crate::eval::Evaluator;
        let db = BearoffDb::global();
        let eval = default_evaluator(Some(default_endgame(db).unwrap())).unwrap();
        let after = |id: &str| eval.evaluate(&crate::ids::position_id::decode(id).unwrap());
        let choice = |id: &str, a: u8, b: u8| {
            let parent = crate::ids::position_id::decode(id).unwrap();
            let dice = crate::dice::Dice::new(a, b).unwrap();
            let moves = crate::movegen::legal_moves(&parent, dice);
            let best = eval.choose_index(&parent, &moves).unwrap();
            crate::ids::position_id::encode(&moves[best].next_position())
        };
        // 22/17 7/6 and 18/13 7/6, the opponent on roll: our equity is minus theirs.
        assert_eq!(choice("vwEAANj2DYAQAA", 5, 1), "bPsFoAC/AQAAAA");
        let gap = after("bPsFAgi/AQAAAA").equity() - after("bPsFoAC/AQAAAA").equity();
        assert!((gap - 0.021).abs() < 0.01, "{gap}");
        // 16/11 8/7 and 18/17 16/11: the opponent wins a gammon (its probs[1]).
        assert_eq!(choice("/w0AAHCvUCEJAA", 1, 5), "94pUhAD/DQAAAA");
        let (a, b) = (after("94pUhAD/DQAAAA").0[1], after("9wpVRAD/DQAAAA").0[1]);
        assert!(
            (a - 0.621).abs() < 0.003 && (b - 0.628).abs() < 0.003,
            "{a} {b}"
        );
    }
}
