#!/usr/bin/env bash
# What verification costs (issue 50, item 2): one rollout on a coordinator with 2
# workers (1 thread each), first without verification and then with
# `--verify-fraction F`, each on a fresh store; the workers' CPU-seconds are read
# once every sampled batch is verified (the checks run after the job is done).
#
#   scripts/verify-overhead.sh            # F = 0.02, 20,736 trials in 576 batches
#   scripts/verify-overhead.sh 0.1 10368
#
# Needs: Linux (/proc), bash, python3 (a free port), a Rust toolchain.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fraction=${1:-0.02}
trials=${2:-20736}
if [[ -z ${BGFARM_BIN:-} ]]; then
    cargo build --release --manifest-path "$root/Cargo.toml" --bin bgfarm >&2
    BGFARM_BIN=${CARGO_TARGET_DIR:-$root/target}/release/bgfarm
fi
source "$root/scripts/scratch.sh"
scratch_dir verify
cpu_s() { # utime + stime of the processes, in seconds
    local t=0
    for p in "$@"; do
        t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
    done
    echo "scale=2; $t / $(getconf CLK_TCK)" | bc
}
metric() { curl -s "http://127.0.0.1:$2/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

run() {
    local f=$1 port metrics
    port=$(free_port)
    metrics=$(free_port)
    rm -rf "$dir/store"
    "$BGFARM_BIN" serve --listen "127.0.0.1:$port" --metrics-listen "127.0.0.1:$metrics" \
        --data "$dir/store" --verify-fraction "$f" 2>"$dir/serve-$f.log" &
    pids=($!)
    sleep 1
    local workers=()
    for i in 1 2; do
        "$BGFARM_BIN" work --coordinator "http://127.0.0.1:$port" --threads 1 2>"$dir/work-$f-$i.log" &
        workers+=($!)
    done
    pids+=("${workers[@]}")
    local start=$SECONDS
    "$BGFARM_BIN" rollout 4HPwATDgc/ABMA --dice 31 --moves top:3 --trials "$trials" --batch 36 \
        --truncate 10 --seed 5 --json --coordinator "http://127.0.0.1:$port" >"$dir/out-$f.json"
    # Checks settle after the job: wait until no verification lease is out.
    local verified=0 last=-1
    while true; do
        verified=$(metric bgfarm_verified_total "$metrics")
        leases=$(metric bgfarm_verify_leases_total "$metrics")
        [[ $verified == "$leases" && $verified == "$last" ]] && break
        last=$verified
        sleep 2
    done
    local cpu
    cpu=$(cpu_s "${workers[@]}")
    printf '%-10s %8s %12s %10s %8s\n' "$f" "$(metric bgfarm_batches_accepted_total "$metrics")" \
        "$leases" "$cpu" $((SECONDS - start))
    kill "${pids[@]}" 2>/dev/null
    wait 2>/dev/null || true
    pids=()
    echo "$cpu" >"$dir/cpu-$f"
}

printf '%-10s %8s %12s %10s %8s\n' fraction accepted verify_leases worker_cpu_s wall_s
run 0
run "$fraction"
cmp -s "$dir/out-0.json" "$dir/out-$fraction.json" || python3 - "$dir/out-0.json" "$dir/out-$fraction.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    for k in ("seconds", "threads"):
        d.pop(k, None)
sys.exit(0 if a == b else "the results differ")
PY
echo "overhead: $(echo "scale=3; $(cat "$dir/cpu-$fraction") / $(cat "$dir/cpu-0")" | bc)x worker CPU (same results)"
