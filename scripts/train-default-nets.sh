#!/usr/bin/env bash
# Reproduces the nets built into bgfarm (engine/nets/default.safetensors).
#
# TD(lambda) self-play from random weights: 198-128-5 contact and race nets, lambda 0.7,
# learning rate 0.05 decaying geometrically to 0.005 over 1.5 million games, seed 1,
# exact bear-off tables as targets in races. Single-threaded and deterministic: the
# same commands give the same weights on the same CPU type.
#
# The shipped run was done in two legs (the first leg stopped at its 100,000-game
# checkpoint so the binary could be upgraded; the second leg resumes with the
# learning rate the schedule had reached, 0.05 * 0.1^(1/15) = 0.0428848, which gives
# the same geometric schedule). On one core of the 2-core development machine it
# trains 300-450 games per second (about 1 hour per million games).
#
# The file's metadata records how many games the shipped nets had seen
# (`contact.trained_games`); the README states the figure and the measured strength.
set -euo pipefail
OUT=${1:-nets-run}
mkdir -p "$OUT"
cargo build --release
./target/release/bgfarm train td --out "$OUT/leg1" --games 1500000 --hidden 128 \
    --lr-start 0.05 --lr-end 0.005 --lambda 0.7 --seed 1 --checkpoint 50000 2> "$OUT/leg1.log" &
LEG1=$!
# Stop the first leg at its 100,000-game checkpoint, as the shipped run did.
while ! grep -q "checkpoint after 100000 games" "$OUT/leg1.log" 2>/dev/null; do sleep 5; done
kill "$LEG1" || true
./target/release/bgfarm train td --init "$OUT/leg1" --out "$OUT/final" --first-game 100000 \
    --games 1400000 --lr-start 0.0428848 --lr-end 0.005 --lambda 0.7 --seed 1 --checkpoint 50000
cp "$OUT/final/nets.safetensors" engine/nets/default.safetensors
