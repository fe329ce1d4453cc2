#!/usr/bin/env bash
# Prints the golden hashes of tests/golden.rs as the current build computes them:
# one line per user command, `golden NAME SHA256`. Record them before and after a
# change that must not move results; the test fails where they differ.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --test golden -- --nocapture --test-threads 1 2>&1 | grep '^golden ' || true
