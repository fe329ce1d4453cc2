//! Helpers shared by the CLI tests: run the built binary, read its JSON, check a
//! refusal (exit code 2, one line on stderr naming the problem, nothing on stdout).

#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs `bgfarm` with `args`.
pub fn bgfarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bgfarm"))
        .args(args)
        .output()
        .expect("run the bgfarm binary")
}

/// Runs a command that must succeed and print one JSON object.
pub fn json(args: &[&str]) -> serde_json::Value {
    let out = bgfarm(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// Runs a command that must fail: exit code 2 and one line on stderr naming `needle`.
pub fn fails(args: &[&str], needle: &str) {
    let out = bgfarm(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}
