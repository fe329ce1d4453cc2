#!/usr/bin/env bash
# Fits a crashed net (engine/src/eval/crashed.rs: the contact positions GNU
# Backgammon classes as crashed) from the built-in nets, and scores it next to them
# on GNU Backgammon's bench and on a larger crashed bench. Not yet built in: see
# docs/research-log.md, "A crashed net", for what it measured (issue 38).
#
# Usage: scripts/train-crashed-net.sh [WORK_DIR]   (default: crashed-net-work)
# Needs a release build (`cargo build --release -p bgfarm-lab --bin bgfarm-lab` and
# `--bin bgfarm`); GNU Backgammon's Python package (`pip install gnubg`) only for
# step 5's larger bench, which is skipped without it.
#
# 1. Positions: every crashed position of 40,000 self-play games of the built-in
#    nets, with the candidates of 30% of the rolls (771,337 distinct, 26 s), shuffled.
# 2. 2-ply labels by the built-in nets' own search for 400,000 of them (418 s).
# 3. A fit of the contact net's copy to them (`train fit --nets crashed`, 20 epochs,
#    Adam 0.001 -> 0.00003, 51 s): equity RMSE 0.0514 -> 0.0343 held out.
# 4. 72-trial rollout labels (0-ply play, variance reduction) for 24,001 of them
#    (958 s), and 10 more epochs on those alone from step 3's net (lr 0.0003).
# 5. `bench hint --ply 0` on the oracle bench, and on 600 crashed decisions from
#    other games (seed 99) scored by GNU Backgammon 0 and 2 ply
#    (scripts/crashed-bench.py).
#
# About 25 minutes on 2 cores. THREADS=N sets the labelling threads.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-crashed-net-work}
lab=${BGFARM_LAB:-$root/target/release/bgfarm-lab}
bgfarm=${BGFARM:-$root/target/release/bgfarm}
threads=()
if [[ -n ${THREADS:-} ]]; then threads=(--threads "$THREADS"); fi
mkdir -p "$work"
cd "$work"

"$lab" train positions --games 40000 --candidates 0.3 --class crashed --seed 11 \
    --out pos.txt "${threads[@]}"
shuf --random-source=<(yes) pos.txt >pos_shuf.txt
"$lab" train label --positions pos_shuf.txt --out ply2.txt --ply 2 --limit 400000 "${threads[@]}"
"$lab" train fit --data ply2.txt --init default --nets crashed --epochs 20 \
    --lr-start 0.001 --lr-end 0.00003 --out fit-ply2
sed -n 24000,48000p pos_shuf.txt >pos_rollout.txt
"$lab" train label --positions pos_rollout.txt --out rollout72.txt --rollout 72 "${threads[@]}"
"$lab" train fit --data rollout72.txt --init fit-ply2/nets.safetensors --nets crashed \
    --epochs 10 --lr-start 0.0003 --out fit-rollout

for nets in default fit-ply2/nets.safetensors fit-rollout/nets.safetensors; do
    echo "== $nets: GNU Backgammon's bench"
    "$lab" bench hint --ply 0 --net "$nets" --file "$root/engine/testdata/oracle/bench.jsonl"
done
if python3 -c 'import gnubg' 2>/dev/null; then
    "$lab" train positions --games 5000 --candidates 0 --class crashed --seed 99 --out held.txt
    shuf --random-source=<(yes 7) held.txt >held_shuf.txt
    BGFARM=$bgfarm python3 "$root/scripts/crashed-bench.py" held_shuf.txt bench600.jsonl \
        --count 600 --seed 5
    for nets in default fit-ply2/nets.safetensors fit-rollout/nets.safetensors; do
        echo "== $nets: 600 crashed decisions"
        "$lab" bench hint --ply 0 --net "$nets" --file bench600.jsonl
    done
else
    echo "the larger crashed bench needs GNU Backgammon's Python package (pip install gnubg): skipped"
fi
