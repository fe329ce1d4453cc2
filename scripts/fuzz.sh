#!/usr/bin/env bash
# Fuzzes every parser of outside input and the coordinator's gRPC requests:
# `bgfarm-lab fuzz --inputs N` (lab/src/cli/fuzz/), N generated and mutated inputs
# per target, 0 panics and no input over 1 s expected; exit 1 otherwise, naming the
# input to replay. The tests run 10,000 per target (lab/tests/fuzz.rs).
#
# Usage: scripts/fuzz.sh [N] [SEED]   (default 1000000 inputs per target, seed 1)
# Needs a Rust toolchain (it builds bgfarm-lab in release).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
seed=${2:-1}
case $n$seed in *[!0-9]*) echo "usage: $0 [N] [SEED]" >&2; exit 2 ;; esac
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p bgfarm-lab
"${CARGO_TARGET_DIR:-$root/target}/release/bgfarm-lab" fuzz --inputs "$n" --seed "$seed"
