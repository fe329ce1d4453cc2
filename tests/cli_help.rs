//! `bgfarm --help` lists the user commands only: training and research commands
//! (`train`, `filter-study`, `bench hint`, `bench race-referee`) are
//! `bgfarm-lab`'s, and the product binary refuses them.

mod common;

use common::{bgfarm, commands};

#[test]
fn help_lists_no_research_command() {
    let top = commands(&["--help"]);
    for user in [
        "eval",
        "hint",
        "analyse",
        "rollout",
        "match-sim",
        "bench",
        "serve",
    ] {
        assert!(top.iter().any(|c| c == user), "{user}: {top:?}");
    }
    for lab in ["train", "filter-study"] {
        assert!(!top.iter().any(|c| c == lab), "{lab}: {top:?}");
    }
    let bench = commands(&["bench", "--help"]);
    assert!(bench.iter().any(|c| c == "cluster"), "{bench:?}");
    for lab in ["hint", "race-referee"] {
        assert!(!bench.iter().any(|c| c == lab), "{lab}: {bench:?}");
    }
    for args in [&["train", "td"][..], &["filter-study"], &["bench", "hint"]] {
        assert_eq!(bgfarm(args).status.code(), Some(2), "{args:?}");
    }
}
