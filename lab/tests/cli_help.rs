//! `bgfarm-lab --help` lists the training and research commands that left the
//! product binary.

mod common;

use common::commands;

#[test]
fn help_lists_the_research_commands() {
    let top = commands(&["--help"]);
    for c in ["train", "filter-study", "bench"] {
        assert!(top.iter().any(|t| t == c), "{c}: {top:?}");
    }
    let bench = commands(&["bench", "--help"]);
    for c in ["hint", "race-referee"] {
        assert!(bench.iter().any(|t| t == c), "{c}: {bench:?}");
    }
    let train = commands(&["train", "--help"]);
    for c in [
        "td",
        "positions",
        "races",
        "label",
        "siblings",
        "sides",
        "side-fit",
        "fit",
        "outcomes",
    ] {
        assert!(train.iter().any(|t| t == c), "{c}: {train:?}");
    }
}
