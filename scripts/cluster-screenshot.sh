#!/usr/bin/env bash
# Screenshots of the coordinator's web page: starts a coordinator (with a client
# token and the HTTP port) and one worker on 127.0.0.1, runs a small rollout and a
# small match simulation to the end, starts a longer rollout, and takes two PNGs
# with headless Chromium while it runs: the overview (DIR/bgfarm-page.png) and the
# finished rollout's table (DIR/bgfarm-job.png). Everything is stopped and the
# temporary directory removed on exit.
#
#   scripts/cluster-screenshot.sh [DIR]     # default: the current directory
#
# Needs: a Rust toolchain (it runs `cargo build --bin bgfarm`; BGFARM=PATH to use
# another binary), Debian's `chromium` (apt-get install chromium), od.
set -euo pipefail

out=${1:-.}
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v chromium >/dev/null 2>&1; then
    echo "needs chromium (apt-get install chromium)" >&2
    exit 2
fi
if [[ -z ${BGFARM:-} ]]; then
    cargo build --manifest-path "$root/Cargo.toml" --bin bgfarm >&2
    BGFARM=${CARGO_TARGET_DIR:-$root/target}/debug/bgfarm
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/bgfarm-screenshot.XXXXXX")
pids=()
cleanup() {
    trap - EXIT INT TERM
    # A throwaway cluster: SIGTERM, then SIGKILL what is left after 2 s (a worker
    # whose coordinator is gone keeps retrying).
    if ((${#pids[@]})); then
        kill -TERM "${pids[@]}" 2>/dev/null || true
        for _ in $(seq 10); do
            kill -0 "${pids[@]}" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "${pids[@]}" 2>/dev/null || true
    fi
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Hex: safe in a URL as it is.
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && echo "$token" >"$dir/client.token")
"$BGFARM" serve --listen 127.0.0.1:0 --data "$dir/data" --metrics-listen 127.0.0.1:0 \
    --client-token-file "$dir/client.token" >"$dir/serve.out" 2>"$dir/serve.log" &
pids+=($!)
for _ in $(seq 150); do
    grep -q '^metrics on ' "$dir/serve.out" 2>/dev/null && break
    sleep 0.2
done
url="http://$(sed -n 's/^listening on //p' "$dir/serve.out")"
page="http://$(sed -n 's/^metrics on //p' "$dir/serve.out")"
if [[ $page == http:// ]]; then
    echo "the coordinator did not start:" >&2
    cat "$dir/serve.log" >&2
    exit 1
fi
"$BGFARM" work --coordinator "$url" --threads 1 2>"$dir/worker.log" &
pids+=($!)

remote=(--coordinator "$url" --token-file "$dir/client.token")
"$BGFARM" rollout 4HPwATDgc/ABMA --dice 31 --moves top:5 --trials 648 --truncate 6 \
    --batch 36 --json "${remote[@]}" >/dev/null
"$BGFARM" match-sim --length 5 --a janowski-match:x=0.7 --b janowski-money:x=0.7 \
    --matches 64 --json "${remote[@]}" >/dev/null
"$BGFARM" rollout 4HPwATDgc/ABMA --dice 31 --moves top:5 --trials 100008 --truncate 6 \
    --batch 36 --json "${remote[@]}" >/dev/null 2>&1 &
pids+=($!)
sleep 3

shot() {
    chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$dir/chromium" --hide-scrollbars --window-size=1280,720 \
        --screenshot="$2" "$1" 2>/dev/null
    echo "$2"
}
shot "$page/?token=$token" "$out/bgfarm-page.png"
shot "$page/job/1?token=$token" "$out/bgfarm-job.png"
