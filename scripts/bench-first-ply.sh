#!/usr/bin/env bash
# Wall time of a 2-ply rollout on a local cluster with 1 and 2 workers, cold store
# (first job: the workers compute the first-move tables) and warm store (the same
# rollout again: every table comes from the coordinator's store), plus the
# embedded run for reference. Prints one line per run and the jobs' counters.
#
#   scripts/bench-first-ply.sh [TRIALS]      # default 324 (9 batches of 36)
#
# Trials play their first two plies at 2-ply (the cached ones) and the rest at
# 0-ply (--late-from 2 --late-ply 0), so the first-move tables are most of the
# work, as in a deep rollout's first plies. Needs a release build.
set -euo pipefail

trials=${1:-324}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CARGO_TARGET_DIR:-$root/target}/release/bgfarm
args=(rollout 4HPwATDgc/ABMA --dice 31 --moves top:3 --trials "$trials" --ply 2
    --late-from 2 --late-ply 0 --seed 7 --batch 36 --json)
dir=$(mktemp -d "${TMPDIR:-/tmp}/bgfarm-firstply.XXXXXX")
pids=()
cleanup() {
    if ((${#pids[@]})); then kill "${pids[@]}" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

secs() { # runs "$@", prints its wall seconds
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$dir/out.json"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

echo "embedded, 1 thread: $(secs "$bin" "${args[@]}" --threads 1) s"
for n in 1 2; do
    rm -rf "$dir/data"
    "$bin" serve --listen 127.0.0.1:0 --data "$dir/data" >"$dir/serve.out" 2>"$dir/serve.log" &
    spid=$!
    pids+=("$spid")
    for _ in $(seq 100); do grep -q listening "$dir/serve.out" && break; sleep 0.1; done
    url=http://$(sed -n 's/^listening on //p' "$dir/serve.out")
    wp=()
    for i in $(seq "$n"); do
        "$bin" work --coordinator "$url" --threads 1 2>"$dir/w$i.log" &
        wp+=($!)
        pids+=($!)
    done
    sleep 3 # the workers build their bear-off tables
    cold=$(secs "$bin" "${args[@]}" --coordinator "$url")
    warm=$(secs "$bin" "${args[@]}" --coordinator "$url")
    echo "$n worker(s): cold store $cold s, warm store $warm s"
    "$bin" jobs list --json --coordinator "$url" |
        sed -n 's/.*"id":\([0-9]*\).*"first_ply_computed":\([0-9]*\),"first_ply_served":\([0-9]*\).*/  job \1: tables computed \2, served \3/p'
    kill "${wp[@]}" "$spid" 2>/dev/null || true
    wait "${wp[@]}" "$spid" 2>/dev/null || true
    pids=()
done
