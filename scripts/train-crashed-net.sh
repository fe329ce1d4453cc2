#!/usr/bin/env bash
# Makes the built-in crashed net (engine/nets/crashed.safetensors; the contact
# positions GNU Backgammon classes as crashed, engine/src/eval/crashed.rs) from the
# nets before it (`default-no-crashed`), and scores it next to them on GNU
# Backgammon's bench and on two larger crashed benches. What it measured:
# docs/research-log.md, "A crashed net" (issue 38).
#
# Usage: scripts/train-crashed-net.sh [WORK_DIR]   (default: crashed-net-work)
# Needs a release build (`cargo build --release -p bgfarm-lab --bin bgfarm-lab` and
# `--bin bgfarm`); GNU Backgammon's Python package (`pip install gnubg`) only for
# step 5's larger benches, which are skipped without it.
#
# 1. Positions: every crashed position of 60,000 games in which each game plays a
#    uniformly random legal move with a chance drawn from 0, 0, 0.05, 0.15, 0.3,
#    0.6, 1 (as GNU Backgammon's bench was drawn), else the nets' best, with the
#    candidates of 30% of the rolls (2,340,427 distinct, 32 s), shuffled.
# 2. 2-ply labels by the nets' own search for 500,000 of them (505 s).
# 3. A fit of the contact net's copy to them (`train fit --nets crashed`, 20 epochs,
#    Adam 0.001 -> 0.00003, 59 s).
# 4. 36-trial rollout labels (0-ply play by step 3's nets, variance reduction) for
#    30,000 other positions of step 1 (about 23 minutes), and a fit of step 3's
#    crashed net to them.
# 5. `bench hint --ply 0` on the oracle bench, and on 600 crashed decisions each from
#    other games (seed 98 with random moves as step 1, seed 99 greedy self-play),
#    scored by GNU Backgammon 0 and 2 ply (scripts/crashed-bench.py).
#
# About 45 minutes on 2 cores. THREADS=N sets the labelling threads;
# COORDINATOR=URL (and TOKEN_FILE=F for a coordinator with a client token) has a
# cluster's workers label instead (steps 2 and 4, the same labels: `train label
# --coordinator`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-crashed-net-work}
lab=${BGFARM_LAB:-$root/target/release/bgfarm-lab}
bgfarm=${BGFARM:-$root/target/release/bgfarm}
threads=()
if [[ -n ${THREADS:-} ]]; then threads=(--threads "$THREADS"); fi
labellers=("${threads[@]}")
if [[ -n ${COORDINATOR:-} ]]; then
    labellers=(--coordinator "$COORDINATOR")
    if [[ -n ${TOKEN_FILE:-} ]]; then labellers+=(--token-file "$TOKEN_FILE"); fi
fi
mix=0,0,0.05,0.15,0.3,0.6,1
base=default-no-crashed
mkdir -p "$work"
cd "$work"

"$lab" train positions --net "$base" --games 60000 --random-moves "$mix" --candidates 0.3 \
    --class crashed --seed 21 --out pos.txt "${threads[@]}"
shuf --random-source=<(yes) pos.txt >pos_shuf.txt
"$lab" train label --net "$base" --positions pos_shuf.txt --out ply2.txt --ply 2 \
    --limit 500000 "${labellers[@]}"
"$lab" train fit --data ply2.txt --init "$base" --nets crashed --epochs 20 \
    --lr-start 0.001 --lr-end 0.00003 --out fit-ply2
sed -n 1000001,1030000p pos_shuf.txt >pos_rollout.txt
"$lab" train label --net fit-ply2/nets.safetensors --positions pos_rollout.txt \
    --out rollout36.txt --rollout 36 "${labellers[@]}"
"$lab" train fit --data rollout36.txt --init fit-ply2/nets.safetensors --nets crashed \
    --epochs 10 --lr-start 0.0003 --lr-end 0.00003 --out fit-rollout
cmp fit-rollout/crashed.safetensors "$root/engine/nets/crashed.safetensors" &&
    echo "fit-rollout/crashed.safetensors is the built-in crashed net"

for nets in "$base" fit-ply2/nets.safetensors fit-rollout/nets.safetensors; do
    echo "== $nets: GNU Backgammon's bench"
    "$lab" bench hint --ply 0 --net "$nets" --file "$root/engine/testdata/oracle/bench.jsonl"
done
if python3 -c 'import gnubg' 2>/dev/null; then
    "$lab" train positions --net "$base" --games 5000 --random-moves "$mix" --class crashed \
        --seed 98 --out held_random.txt
    shuf --random-source=<(yes 7) held_random.txt >held_random_shuf.txt
    BGFARM=$bgfarm python3 "$root/scripts/crashed-bench.py" held_random_shuf.txt \
        bench-random600.jsonl --count 600 --seed 5
    "$lab" train positions --net "$base" --games 5000 --candidates 0 --class crashed \
        --seed 99 --out held.txt
    shuf --random-source=<(yes 7) held.txt >held_shuf.txt
    BGFARM=$bgfarm python3 "$root/scripts/crashed-bench.py" held_shuf.txt bench600.jsonl \
        --count 600 --seed 5
    for nets in "$base" fit-ply2/nets.safetensors fit-rollout/nets.safetensors; do
        for b in bench-random600.jsonl bench600.jsonl; do
            echo "== $nets: $b"
            "$lab" bench hint --ply 0 --net "$nets" --file "$b" --class crashed
        done
    done
else
    echo "the larger crashed benches need GNU Backgammon's Python package (pip install gnubg): skipped"
fi
