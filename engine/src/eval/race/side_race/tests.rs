//! Unit tests of [`super`].

use super::*;
use crate::eval::bearoff::BearoffDb;
use crate::eval::race::exact::ExactRace;
use crate::ids::position_id;

/// With every side within the limit the net is never asked: the layer gives the
/// exact searches' chances, whatever its weights (here random ones).
#[test]
fn within_the_limit_it_is_the_exact_search() {
    let db = BearoffDb::global();
    let net = SideNet::random(8, 5);
    let side = SideRace::new(db, db.one_sided(), &net, u64::MAX);
    let exact = ExactRace::new(db, db.one_sided(), u64::MAX);
    // GNU Backgammon's bench race 768AAMB9IQARAA after its best 6-5 (see
    // `race_distribution`'s tests): 60 pips against 25.
    let pos = position_id::decode("94UQAuD9FQAAAA").unwrap();
    let start = Probs([0.5, 0.1, 0.0, 0.1, 0.0]);
    let a = side.refine_race(&pos, start).0;
    let b = exact.refine_race(&pos, start).0;
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-6, "{a:?} {b:?}");
    }
    // With no search allowed the random net answers, and the chances stay
    // ordered (backgammons within gammons within wins or losses).
    let guess = SideRace::new(db, db.one_sided(), &net, 0);
    let p = guess.refine_race(&pos, start).0;
    assert!((p[0] - a[0]).abs() > 1e-4, "{p:?} {a:?}");
    assert!(p[0] >= p[1] && p[1] >= p[2] && 1.0 - p[0] >= p[3] && p[3] >= p[4]);
}

/// The ramp by hand, its parsing, and that the two named ramps without back
/// checkers keep their fixed checksum tags, so recorded fingerprints stay valid.
#[test]
fn gammon_trust_ramps_and_parses() {
    let t: GammonTrust = "20:35".parse().unwrap();
    assert_eq!(t, GammonTrust { full: 20, none: 35 });
    assert_eq!(t.at(20), 1.0);
    assert_eq!(t.at(35), 0.0);
    assert!((t.at(26) - 0.6).abs() < 1e-6);
    assert_eq!("all".parse::<GammonTrust>().unwrap(), GammonTrust::ALL);
    assert_eq!(GammonTrust::ALL.at(270), 1.0);
    assert_eq!("10:25".parse::<GammonTrust>().unwrap(), GammonTrust::NEAR);
    assert_eq!(GammonTrust::DEFAULT, GammonTrust::ALL);
    for bad in ["25:10", "10:10", "10", "a:b", "-1:5", ""] {
        assert!(bad.parse::<GammonTrust>().is_err(), "{bad}");
    }
    let db = BearoffDb::global();
    let net = SideNet::random(8, 5);
    let sums = [
        GammonTrust::NEAR,
        GammonTrust::ALL,
        GammonTrust { full: 20, none: 35 },
    ]
    .map(|t| {
        let layer = SideRace::new(db, db.one_sided(), &net, 0).with_trust(t);
        layer.with_back_checkers(false).checksum()
    });
    let tagged = |tag: &[u8]| crate::eval::race::layer_checksum(db, tag, net.checksum());
    assert_eq!(sums[0], tagged(b"side-net+near-gammons"));
    assert_eq!(sums[1], tagged(b"side-net+gammons"));
    assert!(sums[0] != sums[1] && sums[1] != sums[2] && sums[0] != sums[2]);
    // The default takes back checkers, and says so in its checksum.
    let default = SideRace::new(db, db.one_sided(), &net, 0).checksum();
    assert_eq!(default, tagged(b"side-net+gammons+back"));
}

/// GNU Backgammon's bench race `unoAAMBubhgEAA` 6-5: the saver (121 pips, 0
/// off, checkers on its 18 and 13 points) against a finisher home with 5 off.
/// The exact search (`hint --exact-race 6000000`, 14 CPU-minutes) gives 18/12
/// 13/8 0.302 to lose a gammon and 18/12 9/4 0.310; GNU Backgammon 2-ply has
/// the same order (0.0096 apart). One roll of lookahead over the net finds that
/// play, and its values are nearer the search's than the net's alone.
#[test]
fn lookahead_finds_the_far_save() {
    let db = BearoffDb::global();
    let net = crate::eval::default_nets::side_net().unwrap();
    let layer = SideRace::new(db, db.one_sided(), net, 0).with_first_off_lookahead(Some(25));
    let plain = SideRace::new(db, db.one_sided(), net, 0);
    let every = SideRace::new(db, db.one_sided(), net, 0)
        .with_first_off_lookahead(Some(25))
        .with_lookahead_plays(0);
    assert_ne!(layer.checksum(), plain.checksum());
    assert_ne!(layer.checksum(), every.checksum());
    let parent = position_id::decode("unoAAMBubhgEAA").unwrap();
    let moves = crate::movegen::legal_moves(&parent, crate::dice::Dice::new(6, 5).unwrap());
    for l in [&layer, &every] {
        let mut eval = crate::testutil::default_nets();
        eval.endgame = Some(l);
        let best = crate::eval::Evaluator::choose_index(&eval, &parent, &moves).unwrap();
        let id = position_id::encode(&moves[best].next_position());
        assert_eq!(id, "2M0bBQC6egAAAA", "18/12 13/8");
    }
    // Seen by the finisher, on roll after the play: its gammon is the saver's loss.
    let gammon = |e: &dyn Endgame, id: &str| {
        let pos = position_id::decode(id).unwrap();
        e.refine_race(&pos, Probs([1.0, 0.5, 0.0, 0.0, 0.0])).0[1]
    };
    for (id, exact) in [("2M0bBQC6egAAAA", 0.302), ("uJuLBgC6egAAAA", 0.310)] {
        let (a, b) = (gammon(&layer, id), gammon(&plain, id));
        assert!(
            (a - exact).abs() < (b - exact).abs(),
            "{id}: {a} {b} {exact}"
        );
    }
}
