//! The crashed-position rule against GNU Backgammon's classes: every position of
//! the oracle's move-choice bench (1000: 670 contact, 80 crashed, 250 race) must be
//! crashed exactly when its tag says so.

use bgfarm_engine::eval::crashed::is_crashed;
use bgfarm_engine::ids::position_id;
use serde::Deserialize;

#[derive(Deserialize)]
struct Line {
    pos: String,
    class: String,
}

const BENCH: &str = include_str!("../testdata/oracle/bench.jsonl");

#[test]
fn every_bench_position_is_classed_as_gnu_backgammon_classes_it() {
    let (mut crashed, mut wrong) = (0, Vec::new());
    for raw in BENCH.lines() {
        let line: Line = serde_json::from_str(raw).expect("bench line parses");
        let pos = position_id::decode(&line.pos).expect("bench position decodes");
        let tagged = line.class == "crashed";
        crashed += usize::from(tagged);
        if is_crashed(&pos) != tagged {
            wrong.push(line.pos);
        }
    }
    assert_eq!(crashed, 80);
    assert!(
        wrong.is_empty(),
        "classed otherwise than the bench: {wrong:?}"
    );
}
