#!/usr/bin/env bash
# The contact nets' evaluations per second against one core's peak: builds and runs
# scripts/roofline/peak.c (single-precision AVX2 FMAs per second, the ceiling) and
# the engine's criterion benchmark of a full forward pass (`eval_contact/forward`,
# the one-layer net; `forward_deep`, the default). docs/nets.md, "Evaluation speed",
# turns them into the fraction of the ceiling with the multiply-adds of one pass.
# Needs gcc and a Rust toolchain; about 2 minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -mavx2 -mfma -o "$tmp/peak" "$root/scripts/roofline/peak.c"
for _ in 1 2 3; do "$tmp/peak"; done
cd "$root"
cargo bench -p bgfarm-engine --bench eval -- "eval_contact/forward" --warm-up-time 1 \
    --measurement-time 4 2>&1 | grep -E "^eval_contact|thrpt"
