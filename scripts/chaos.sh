#!/usr/bin/env bash
# A soak under faults (issue 50, item 3): a coordinator and 3 workers on
# 127.0.0.1, a mixed queue of jobs (cubeless and cubeful rollouts, match
# simulations, studies, label jobs) resubmitted round after round, a random worker
# SIGKILLed every few seconds and the coordinator every minute or so, each
# restarted. At the end every job's output is compared with its embedded run
# (bit-identical, less timing fields), and it prints kills survived, jobs checked
# and batches recomputed. Exits 1 on any mismatch.
#
#   scripts/chaos.sh MINUTES            # e.g. 30; 2 for a quick look
#   CHAOS_SEED=7 scripts/chaos.sh 5     # another kill schedule
#
# Needs: a Rust toolchain (it builds the release binaries), python3, Linux.
# Takes MINUTES plus the embedded re-runs (about a third of the soak's CPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
minutes=${1:-}
if ! [[ $minutes =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "usage: $0 MINUTES" >&2
    exit 2
fi
cargo build --release --manifest-path "$root/Cargo.toml" --bin bgfarm --bin bgfarm-lab >&2
target=${CARGO_TARGET_DIR:-$root/target}/release
exec python3 "$root/scripts/chaos.py" --minutes "$minutes" --bin "$target/bgfarm" \
    --lab "$target/bgfarm-lab" --seed "${CHAOS_SEED:-1}"
