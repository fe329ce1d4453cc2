//! The match readers on real files written by GNU Backgammon 1.07 (see
//! tests/data/matches/README.md): both formats read, every move is a legal play,
//! and the `.sgf` and `.mat` files of one match give the same actions.

use bgfarm_engine::matchfile::{self, ActionKind, Format, GameEnd, Match};
use bgfarm_engine::MoveGenerator;

fn read(name: &str) -> String {
    let path = format!("{}/tests/data/matches/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse(name: &str) -> Match {
    let (format, m) = matchfile::parse(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = if name.ends_with(".sgf") {
        Format::Sgf
    } else {
        Format::Mat
    };
    assert_eq!(format, want);
    m
}

/// Everything but the line numbers.
fn actions(m: &Match) -> Vec<(usize, u8, String, ActionKind, u32, Option<u8>)> {
    m.games
        .iter()
        .enumerate()
        .flat_map(|(g, game)| {
            game.actions.iter().map(move |a| {
                (
                    g,
                    a.player,
                    bgfarm_engine::ids::position_id::encode(&a.position),
                    a.kind,
                    a.cube.value,
                    a.cube.owner,
                )
            })
        })
        .collect()
}

#[test]
fn sgf_and_mat_give_the_same_match() {
    for base in ["three-point", "five-point"] {
        let sgf = parse(&format!("{base}.sgf"));
        let mat = parse(&format!("{base}.mat"));
        assert_eq!(sgf.players, mat.players, "{base}");
        assert_eq!(sgf.length, mat.length, "{base}");
        assert_eq!(sgf.games.len(), mat.games.len(), "{base}");
        for (a, b) in sgf.games.iter().zip(&mat.games) {
            assert_eq!(a.score, b.score, "{base} game {}", a.number);
            assert_eq!(a.crawford, b.crawford, "{base} game {}", a.number);
            assert_eq!(a.end, b.end, "{base} game {}", a.number);
        }
        let (x, y) = (actions(&sgf), actions(&mat));
        assert_eq!(x.len(), y.len(), "{base}");
        for (i, (p, q)) in x.iter().zip(&y).enumerate() {
            assert_eq!(p, q, "{base}: action {i}");
        }
    }
}

#[test]
fn the_five_point_match() {
    let m = parse("five-point.sgf");
    assert_eq!(m.players, ["gnubg".to_string(), "root".to_string()]);
    assert_eq!((m.length, m.crawford_rule), (5, true));
    assert_eq!(m.games.len(), 6);
    let starts: Vec<[u32; 2]> = m.games.iter().map(|g| g.score).collect();
    assert_eq!(
        starts,
        [[0, 0], [1, 0], [1, 2], [3, 2], [4, 2], [4, 3]],
        "scores at each game's start"
    );
    let crawford: Vec<bool> = m.games.iter().map(|g| g.crawford).collect();
    assert_eq!(crawford, [false, false, false, false, true, false]);
    // Game 1 ends on a pass of the 2-cube.
    assert_eq!(
        m.games[0].end,
        Some(GameEnd::Dropped {
            winner: 0,
            points: 1
        })
    );
    let count = |f: &dyn Fn(&ActionKind) -> bool| {
        m.games
            .iter()
            .flat_map(|g| &g.actions)
            .filter(|a| f(&a.kind))
            .count()
    };
    assert_eq!(count(&|k| matches!(k, ActionKind::Double)), 6);
    assert_eq!(count(&|k| matches!(k, ActionKind::Take)), 3);
    assert_eq!(count(&|k| matches!(k, ActionKind::Drop)), 3);
    let last = m
        .games
        .last()
        .and_then(|g| g.end)
        .map(|e| e.winner_points());
    assert_eq!(last, Some((1, 4)));
}

#[test]
fn every_move_is_a_legal_play() {
    let mut gen = MoveGenerator::new();
    for name in [
        "three-point.sgf",
        "three-point.mat",
        "five-point.sgf",
        "five-point.mat",
    ] {
        let m = parse(name);
        let mut moves = 0;
        for a in m.games.iter().flat_map(|g| &g.actions) {
            if let ActionKind::Move { dice, played } = a.kind {
                let legal = gen.generate(&a.position, dice);
                match played {
                    Some(mv) => assert!(legal.contains(&mv), "{name} line {}", a.line),
                    None => assert!(legal.is_empty(), "{name} line {}", a.line),
                }
                moves += 1;
            }
        }
        assert!(moves > 40, "{name}: {moves} moves");
    }
}

#[test]
fn bad_files_name_the_line() {
    let mat = read("three-point.mat");
    // An illegal move: 13/8 13/11 with 52 becomes 13/7 13/11.
    let bad = mat.replacen("52: 13/8 13/11", "52: 13/7 13/11", 1);
    let err = matchfile::parse(&bad).unwrap_err();
    assert_eq!(err.line, 8, "{err}");
    assert!(err.message.contains("illegal"), "{err}");
    // Truncated inside a game.
    let cut: String = mat.lines().take(20).collect::<Vec<_>>().join("\n");
    let err = matchfile::parse(&cut).unwrap_err();
    assert!(err.message.contains("truncated"), "{err}");
    assert!(err.line > 0);
    // Garbage.
    let err = matchfile::parse("hello\nworld\n").unwrap_err();
    assert_eq!(err.line, 1, "{err}");
    let sgf = read("five-point.sgf");
    let err = matchfile::parse(&sgf[..sgf.len() / 2]).unwrap_err();
    assert!(err.message.contains("truncated"), "{err}");
    // A move the dice do not allow (62 played as 24/18 22/16 from the sgf's letters).
    let bad = sgf.replacen("W[62xvvp]", "W[62xrvp]", 1);
    let err = matchfile::parse(&bad).unwrap_err();
    assert_eq!(err.line, 3, "{err}");
    assert!(err.message.contains("illegal"), "{err}");
}
