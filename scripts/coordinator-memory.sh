#!/usr/bin/env bash
# Coordinator memory against job size (issue 50, item 6): starts `bgfarm serve` on
# a fresh store (no worker), submits one rollout of each size, reads the
# coordinator's resident set (VmRSS) once the job is queued, cancels it, and
# prints a line per size. A job's batches stay pending, as they would behind a
# busy queue: this is the memory of a job that has not started.
#
#   scripts/coordinator-memory.sh                 # 10^6, 10^8 and 10^9 trials
#   BGFARM_BIN=/path/to/bgfarm scripts/coordinator-memory.sh 1000000 100000000
#
# Batches: 144 trials up to 10^8 (694,445 batches at 10^8), 1008 at 10^9
# (992,064 batches; a job holds at most 10^6). Needs: Linux (/proc), bash.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${BGFARM_BIN:-} ]]; then
    cargo build --release --manifest-path "$root/Cargo.toml" --bin bgfarm >&2
    BGFARM_BIN=${CARGO_TARGET_DIR:-$root/target}/release/bgfarm
fi
sizes=("$@")
((${#sizes[@]})) || sizes=(1000000 100000000 1000000000)

dir=$(mktemp -d "${TMPDIR:-/tmp}/bgfarm-memory.XXXXXX")
pid=
cleanup() {
    [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM

rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# A free port: the coordinator prints none, so ask the kernel for one.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
"$BGFARM_BIN" serve --listen "127.0.0.1:$port" --data "$dir/store" 2>"$dir/serve.log" &
pid=$!
for _ in $(seq 100); do
    "$BGFARM_BIN" jobs --coordinator "$url" list >/dev/null 2>&1 && break
    sleep 0.1
done
printf '%-12s %9s %8s %10s %10s\n' trials batch batches "rss_MB" "idle_MB"
for n in "${sizes[@]}"; do
    batch=144
    ((n > 100000000)) && batch=1008
    idle=$(rss_mb "$pid")
    before=$("$BGFARM_BIN" jobs --coordinator "$url" list --json | grep -o "\"id\":" | wc -l || true)
    # The client follows the job; it is stopped once the job is listed.
    "$BGFARM_BIN" rollout 4HPwATDgc/ABMA --coordinator "$url" --trials "$n" --batch "$batch" >/dev/null 2>&1 &
    client=$!
    for _ in $(seq 600); do
        now=$("$BGFARM_BIN" jobs --coordinator "$url" list --json | grep -o "\"id\":" | wc -l || true)
        ((now > before)) && break
        sleep 0.1
    done
    kill "$client" 2>/dev/null; wait "$client" 2>/dev/null || true
    sleep 1
    rss=$(rss_mb "$pid")
    id=$("$BGFARM_BIN" jobs --coordinator "$url" list --json | grep -o "\"id\":[0-9]*" | tail -1 | grep -o "[0-9]*$")
    "$BGFARM_BIN" jobs --coordinator "$url" cancel "$id" >/dev/null
    printf '%-12s %9s %8s %10s %10s\n' "$n" "$batch" $(((n + batch - 1) / batch)) "$rss" "$idle"
done
