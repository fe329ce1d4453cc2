//! Nets that carry a crashed net (`crashed.` in a bundle) through the built binary:
//! `bgfarm eval` answers a crashed position with it and says so, and every other
//! position exactly as the nets without one; the built-in nets carry one.

mod common;

use bgfarm_engine::eval::default_nets::{BYTES, DEEP_BYTES};
use bgfarm_engine::eval::net::format::{load_bundle, save_bundle};
use common::json;

/// A back game against a side with nine checkers on its ace point (the oracle
/// bench's /xmAoAQBIPjNEw after 5-5): crashed.
const CRASHED: &str = "AQPkmxP/GYCgBA";

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_bundle_with_a_crashed_net_answers_crashed_positions_with_it() {
    let dir = TempDir(std::env::temp_dir().join(format!("bgfarm-crashed-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("temp dir");
    // The built-in deep nets with the one-layer contact net as their crashed net,
    // so that a crashed position is valued as `--net fast` values it.
    let contact = load_bundle(DEEP_BYTES, "contact.").expect("built-in nets");
    let race = load_bundle(DEEP_BYTES, "race.").expect("built-in nets");
    let crashed = load_bundle(BYTES, "contact.").expect("built-in nets");
    let bundle = save_bundle(&[
        ("contact.", &contact),
        ("race.", &race),
        ("crashed.", &crashed),
    ])
    .expect("bundle");
    let path = dir.0.join("nets.safetensors");
    std::fs::write(&path, bundle).expect("write bundle");
    let nets = path.to_str().expect("utf-8 path");

    let with = json(&["eval", CRASHED, "--net", nets, "--json"]);
    assert_eq!(with["evaluator"], "crashed net");
    let fast = json(&["eval", CRASHED, "--net", "fast", "--json"]);
    assert_eq!(fast["evaluator"], "contact net");
    assert_eq!(with["probs"], fast["probs"]);

    // Not crashed: the contact net, as the built-in nets without a screen.
    let opening = "4HPwATDgc/ABMA";
    let with = json(&["eval", opening, "--net", nets, "--json"]);
    assert_eq!(with["evaluator"], "contact net");
    let default = json(&["eval", opening, "--json"]);
    assert_eq!(with["probs"], default["probs"]);
}

#[test]
fn the_default_nets_answer_crashed_positions_with_their_crashed_net() {
    let default = json(&["eval", CRASHED, "--json"]);
    assert_eq!(default["evaluator"], "crashed net");
    let without = json(&["eval", CRASHED, "--net", "default-no-crashed", "--json"]);
    assert_eq!(without["evaluator"], "contact net");
    assert_ne!(default["probs"], without["probs"]);
    // Elsewhere the crashed net changes nothing.
    let opening = "4HPwATDgc/ABMA";
    let default = json(&["eval", opening, "--json"]);
    let without = json(&["eval", opening, "--net", "default-no-crashed", "--json"]);
    assert_eq!(default["probs"], without["probs"]);
}
