//! Helpers shared by the `bgfarm-lab` CLI tests: the root package's
//! [`binary::Binary`] (included by path, not copied) on the built `bgfarm-lab`.

#![allow(dead_code)]

#[path = "../../../tests/common/binary.rs"]
mod binary;

use binary::Binary;
use std::process::Output;

const LAB: Binary = Binary(env!("CARGO_BIN_EXE_bgfarm-lab"));

/// Runs `bgfarm-lab` with `args`.
pub fn lab(args: &[&str]) -> Output {
    LAB.run(args)
}

/// The subcommand names of a `--help` page.
pub fn commands(args: &[&str]) -> Vec<String> {
    LAB.commands(args)
}

/// Runs `bgfarm-lab args`, which must succeed, and returns what it printed.
pub fn ok(args: &[&str]) -> String {
    let out = lab(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Runs a command that must succeed and print one JSON object.
pub fn json(args: &[&str]) -> serde_json::Value {
    LAB.json(args)
}

/// Runs a command that must fail: exit code 2 and one line on stderr naming `needle`.
pub fn fails(args: &[&str], needle: &str) {
    LAB.fails(args, needle)
}

/// What `bgfarm eval ID --net NET [--side-net SIDE] --json` prints, as JSON
/// (`probs`, `evaluator`), computed in this process by the same code
/// ([`static_eval`]): the product binary is not built with this package.
pub fn try_eval(id: &str, net: &str, side_net: Option<&str>) -> Result<serde_json::Value, String> {
    use bgfarm_cli_common::engine_args::race_args::RaceArgs;
    use bgfarm_cli_common::engine_args::static_eval::static_eval;
    let pos = bgfarm_engine::ids::position_id::decode(id).map_err(|e| e.to_string())?;
    let race = RaceArgs {
        side_net: side_net.map(str::to_string),
        ..RaceArgs::default()
    };
    let e = static_eval(net, &race, &pos).map_err(|e| e.to_string())?;
    Ok(serde_json::json!({ "probs": e.probs.0, "evaluator": e.source }))
}

/// [`try_eval`], which must succeed.
pub fn eval(id: &str, net: &str, side_net: Option<&str>) -> serde_json::Value {
    try_eval(id, net, side_net).unwrap_or_else(|e| panic!("eval {id} --net {net}: {e}"))
}
