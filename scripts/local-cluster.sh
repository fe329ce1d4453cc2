#!/usr/bin/env bash
# Starts a coordinator and N workers on 127.0.0.1 with fresh random tokens and a
# temporary data directory, prints how to submit jobs, and stops everything (and
# removes the directory) on exit: Ctrl-C, SIGTERM, or when any of them dies.
#
#   scripts/local-cluster.sh [N]          # N workers, default 2
#   BGFARM_THREADS=1 scripts/local-cluster.sh 4   # --threads for each worker
#
# Needs: a Rust toolchain (it runs `cargo build --release`), bash, od or openssl.
set -euo pipefail

n=${1:-2}
if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [N]   (N workers, at least 1)" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --manifest-path "$root/Cargo.toml" --bin bgfarm >&2
bin=${CARGO_TARGET_DIR:-$root/target}/release/bgfarm

dir=$(mktemp -d "${TMPDIR:-/tmp}/bgfarm-cluster.XXXXXX")
coordinator_pid=
worker_pids=()

cleanup() {
    trap - EXIT INT TERM
    # Workers first: the first SIGTERM lets them finish their held batches.
    if ((${#worker_pids[@]})); then
        kill -TERM "${worker_pids[@]}" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "${worker_pids[@]}" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "${worker_pids[@]}" 2>/dev/null || true
    fi
    if [[ -n $coordinator_pid ]]; then
        kill -TERM "$coordinator_pid" 2>/dev/null || true
    fi
    wait 2>/dev/null || true
    rm -rf "$dir"
    echo "local cluster stopped" >&2
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

new_token() {
    if command -v openssl >/dev/null 2>&1; then
        openssl rand -hex 32
    else
        head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'
        echo
    fi
}
(umask 077 && new_token >"$dir/client.token" && new_token >"$dir/worker.token")

"$bin" serve --listen 127.0.0.1:0 --data "$dir/data" \
    --client-token-file "$dir/client.token" --worker-token-file "$dir/worker.token" \
    >"$dir/serve.out" 2>"$dir/serve.log" &
coordinator_pid=$!

addr=
for _ in $(seq 150); do
    addr=$(sed -n 's/^listening on //p' "$dir/serve.out")
    [[ -n $addr ]] && break
    if ! kill -0 "$coordinator_pid" 2>/dev/null; then
        echo "the coordinator did not start:" >&2
        cat "$dir/serve.log" >&2
        exit 1
    fi
    sleep 0.2
done
if [[ -z $addr ]]; then
    echo "the coordinator did not say where it listens" >&2
    exit 1
fi
url="http://$addr"

threads=()
if [[ -n ${BGFARM_THREADS:-} ]]; then threads=(--threads "$BGFARM_THREADS"); fi
for i in $(seq "$n"); do
    "$bin" work --coordinator "$url" --token-file "$dir/worker.token" "${threads[@]}" \
        2>"$dir/worker-$i.log" &
    worker_pids+=($!)
done

cat <<MSG
coordinator: $url (pid $coordinator_pid), $n worker(s) (pids ${worker_pids[*]})
data and logs: $dir (removed on exit)
submit, e.g.:
  $bin rollout 4HPwATDgc/ABMA --dice 31 --moves top:3 --trials 1296 --coordinator $url --token-file $dir/client.token
  $bin jobs list --coordinator $url --token-file $dir/client.token
Ctrl-C stops the cluster.
MSG

# Until Ctrl-C / SIGTERM, or until one of them exits.
wait -n
echo "a cluster process exited: stopping" >&2
