#!/usr/bin/env bash
# A match analysis on a local cluster (issue 47, item 7): a coordinator and N
# workers of one thread each on 127.0.0.1, `bgfarm analyse FILE --ply P
# --coordinator`, then the wall time, how the units split over the workers (each
# worker's units from the coordinator's /metrics) and whether the report equals
# the embedded analysis's (JSON, timing aside).
#
#   scripts/analyse-cluster.sh [FILE] [WORKERS] [PLY]
#   (defaults: tests/data/matches/seven-point.sgf, 2 workers, 2 plies)
#
# Needs: Linux, bash, python3, curl, a Rust toolchain.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
file=$(realpath "${1:-$root/tests/data/matches/seven-point.sgf}")
workers=${2:-2}
ply=${3:-2}
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin bgfarm
bin=${CARGO_TARGET_DIR:-$root/target}/release/bgfarm
source "$root/scripts/scratch.sh"
scratch_dir analyse
port=$(free_port)
metrics=$(free_port)
"$bin" serve --listen "127.0.0.1:$port" --metrics-listen "127.0.0.1:$metrics" \
    --data "$dir/store" >/dev/null 2>"$dir/serve.log" &
pids+=($!)
sleep 1
for i in $(seq "$workers"); do
    "$bin" work --coordinator "http://127.0.0.1:$port" --threads 1 2>"$dir/work-$i.log" &
    pids+=($!)
done
sleep 1
start=$(date +%s.%N)
"$bin" analyse "$file" --ply "$ply" --json --coordinator "http://127.0.0.1:$port" >"$dir/remote.json"
wall=$(echo "$(date +%s.%N) - $start" | bc)
echo "cluster: $workers workers x 1 thread, $ply-ply: ${wall} s wall"
curl -s "http://127.0.0.1:$metrics/metrics" | awk '/^bgfarm_worker_trials_total\{/ { print "  " $0 }'
start=$(date +%s.%N)
"$bin" analyse "$file" --ply "$ply" --json --threads "$workers" >"$dir/local.json"
wall=$(echo "$(date +%s.%N) - $start" | bc)
echo "embedded: $workers threads: ${wall} s wall"
python3 - "$dir/local.json" "$dir/remote.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    for k in ("seconds", "threads", "luck_seconds"):
        d.pop(k, None)
print("reports identical" if a == b else "REPORTS DIFFER")
sys.exit(0 if a == b else 1)
PY
