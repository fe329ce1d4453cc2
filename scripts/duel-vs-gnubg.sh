#!/usr/bin/env bash
# Head to head: bgfarm 0-ply against GNU Backgammon 0-ply, cubeless money games.
#
# GNU Backgammon hosts the games; bgfarm plays as its external player
# (`bgfarm external --listen 127.0.0.1:0 --ply 0`). The games come in mirrored
# pairs: both games of pair i are played with GNU Backgammon's dice seed SEED+i,
# bgfarm as player 1 in the first and as player 0 in the second, so each side
# gets the other's dice and most of the luck cancels. The cube is off, the Jacoby
# rule off (gammons and backgammons count), beavers off.
#
# Prints the games, bgfarm's points per game with the SE over the pairs (and the
# SE the same games would have unpaired), wins, gammons and backgammons by each
# side, and the wall time.
#
# Needs: cargo (or BGFARM=path/to/bgfarm); gnubg on PATH or in /usr/games (skipped
# with a message otherwise); `script` (util-linux), since gnubg -t writes only to a
# terminal. GNU Backgammon is a separate program used as the opponent only.
# Usage: scripts/duel-vs-gnubg.sh [GAMES]   (default 200; rounded up to pairs)
# Environment: SEED (first pair's dice seed, default 1), JOBS (GNU Backgammon
# processes at once, default 1; the result does not depend on it), CHUNK (pairs
# per GNU Backgammon process, default 50), BGFARM_ARGS (more options for bgfarm
# external, e.g. "--net fast"), KEEP=DIR (keep the games, per-game results,
# both programs' output there).
set -euo pipefail
cd "$(dirname "$0")/.."

games=${1:-200}
case $games in '' | *[!0-9]* | 0) echo "GAMES must be a positive number, got '$games'" >&2; exit 2 ;; esac
seed=${SEED:-1}
jobs=${JOBS:-1}
chunk=${CHUNK:-50}
for v in seed jobs chunk; do
    case ${!v} in '' | *[!0-9]*) echo "${v^^} must be a number, got '${!v}'" >&2; exit 2 ;; esac
done
if [ "$jobs" -lt 1 ] || [ "$chunk" -lt 1 ]; then
    echo "JOBS and CHUNK must be at least 1" >&2
    exit 2
fi
pairs=$(((games + 1) / 2))

# Debian installs it as /usr/games/gnubg, which is not always on PATH.
gnubg=$(command -v gnubg || true)
[ -z "$gnubg" ] && [ -x /usr/games/gnubg ] && gnubg=/usr/games/gnubg
if [ -z "$gnubg" ]; then
    echo "gnubg is not installed: skipping (install it, e.g. apt-get install gnubg," \
        "and run this script again)"
    exit 0
fi
if ! command -v script >/dev/null; then
    echo "script (util-linux) is not installed: skipping (gnubg -t needs a terminal)"
    exit 0
fi
if [ -z "${BGFARM:-}" ]; then
    cargo build --release --quiet --bin bgfarm
    BGFARM=target/release/bgfarm
fi

tmp=$(mktemp -d)
server=
children=()
kill_tree() { # kill_tree PID: the process and its descendants, children first
    local c
    for c in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$c"; done
    kill "$1" 2>/dev/null || true
}
cleanup() {
    local pid
    for pid in "${children[@]}"; do kill_tree "$pid"; done
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    if [ -n "${KEEP:-}" ]; then
        { mkdir -p "$KEEP" && cp -r "$tmp"/. "$KEEP"/; } || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2086 # BGFARM_ARGS is a list of options
"$BGFARM" external --listen 127.0.0.1:0 --port-file "$tmp/port" --ply 0 \
    --jacoby off --beavers off ${BGFARM_ARGS:-} >"$tmp/bgfarm.out" 2>"$tmp/bgfarm.log" &
server=$!
for _ in $(seq 100); do
    [ -s "$tmp/port" ] && break
    kill -0 "$server" 2>/dev/null || { echo "bgfarm external failed to start:" >&2; cat "$tmp/bgfarm.log" >&2; exit 1; }
    sleep 0.1
done
[ -s "$tmp/port" ] || { echo "bgfarm external did not start" >&2; exit 1; }
port=$(cat "$tmp/port")

# seat SIDE-OF-BGFARM: GNU Backgammon's commands that put bgfarm in that seat and
# GNU Backgammon 0-ply in the other. Names must differ at every step, hence `tmp`.
seat() {
    local b=$1 g=$((1 - $1))
    cat <<EOF
set player $b name tmp
set player $g name gnubg
set player $b name bgfarm
set player $g gnubg
set player $g chequerplay evaluation plies 0
set player $g cubedecision evaluation plies 0
set player $b external localhost:$port
EOF
}

# One GNU Backgammon process plays pairs FIRST..LAST (0-based) and writes one
# result line per game to $tmp/chunk-FIRST.res: "pair seed bgfarm-seat winner kind points".
play_chunk() {
    local first=$1 last=$2 dir=$tmp/chunk-$1 i s
    mkdir -p "$dir"
    {
        echo "set threads 1"
        echo "set cube use off"
        echo "set jacoby off"
        echo "set beavers 0"
        echo "set automatic game off"
        echo "set display off"
        echo "set rng mersenne"
        for ((i = first; i <= last; i++)); do
            s=$((seed + i))
            seat 1
            echo "set seed $s"
            echo "new game"
            seat 0
            echo "set seed $s"
            echo "new game"
        done
        [ -n "${KEEP:-}" ] && echo "save match \"$dir/session.sgf\""
        echo "quit"
        echo "y"
    } >"$dir/commands"
    # A game takes well under a second or two; allow a minute a pair before
    # calling GNU Backgammon stuck (e.g. waiting on a dead external player).
    timeout $((60 + 60 * (last - first + 1))) \
        script -q -c "\"$gnubg\" -t -q -r < \"$dir/commands\"" /dev/null >"$dir/gnubg.out" 2>&1 || true
    tr -d '\r' <"$dir/gnubg.out" | tr '\033' '?' >"$dir/gnubg.txt"
    # "bgfarm wins a gammon and 2 points." (after a run of "Considering move..." on the same line)
    grep -aoE '(bgfarm|gnubg) wins a (single game|gammon|backgammon) and [0-9]+ points?\.' "$dir/gnubg.txt" |
        awk -v first="$first" -v seed="$seed" '{
            n = NR - 1; pair = first + int(n / 2); bseat = (n % 2 == 0) ? 1 : 0
            kind = ($4 == "single") ? "single" : $4
            pts = ($0 ~ /single game/) ? $7 : $6
            print pair, seed + pair, bseat, $1, kind, pts
        }' >"$tmp/chunk-$first.res"
    local want=$((2 * (last - first + 1))) got
    got=$(wc -l <"$tmp/chunk-$first.res")
    if [ "$got" -ne "$want" ]; then
        {
            echo "pairs $first..$last: GNU Backgammon finished $got of $want games; its last lines:"
            grep -av '^Considering' "$dir/gnubg.txt" | tail -15
        } >"$tmp/chunk-$first.err"
        return 1
    fi
}

start=$(date +%s)
echo "== $((2 * pairs)) cubeless money games ($pairs mirrored pairs, seeds $seed..$((seed + pairs - 1))):" \
    "bgfarm 0-ply (external player${BGFARM_ARGS:+, $BGFARM_ARGS}) vs GNU Backgammon 0-ply"
failed=0
first=0
while [ "$first" -lt "$pairs" ] && [ "$failed" -eq 0 ]; do
    children=()
    for ((j = 0; j < jobs && first < pairs; j++)); do
        last=$((first + chunk - 1))
        [ "$last" -ge "$pairs" ] && last=$((pairs - 1))
        play_chunk "$first" "$last" &
        children+=($!)
        first=$((last + 1))
    done
    # Wait for the chunks, watching the external player: if it dies, GNU
    # Backgammon would wait for it until the timeout.
    while :; do
        if ! kill -0 "$server" 2>/dev/null; then
            echo "bgfarm external died; its last lines:" >&2
            tail -15 "$tmp/bgfarm.log" >&2
            exit 1
        fi
        running=0
        for pid in "${children[@]}"; do
            kill -0 "$pid" 2>/dev/null && running=1
        done
        [ "$running" -eq 0 ] && break
        sleep 0.5
    done
    for pid in "${children[@]}"; do
        wait "$pid" || failed=1
    done
    children=()
    done_games=$(cat "$tmp"/chunk-*.res | wc -l)
    echo "  $done_games games played ($(($(date +%s) - start)) s)"
done
if [ "$failed" -ne 0 ]; then
    cat "$tmp"/chunk-*.err >&2
    if grep -q "Error" "$tmp/bgfarm.log"; then
        echo "bgfarm external's errors:" >&2
        grep "Error" "$tmp/bgfarm.log" | head -5 >&2
    fi
    exit 1
fi
end=$(date +%s)
if grep -q "Error: " "$tmp/bgfarm.log"; then
    echo "warning: bgfarm external answered some lines with errors:" >&2
    grep "Error: " "$tmp/bgfarm.log" | head -5 >&2
fi

sort -n -k1,1 -k3,3r "$tmp"/chunk-*.res >"$tmp/games.txt"
awk -v secs=$((end - start)) '
    {
        pts = ($4 == "bgfarm") ? $6 : -$6
        pair[$1] += pts; n++; sum += pts; sq += pts * pts
        if ($4 == "bgfarm") { bw++; bk[$5]++ } else { gw++; gk[$5]++ }
    }
    END {
        np = 0; ps = 0; pq = 0
        for (p in pair) { np++; ps += pair[p]; pq += pair[p] * pair[p] }
        mean = ps / np
        se = (np > 1) ? sqrt((pq - np * mean * mean) / (np - 1) / np) / 2 : 0
        m1 = sum / n
        se1 = (n > 1) ? sqrt((sq - n * m1 * m1) / (n - 1) / n) : 0
        printf "bgfarm: %+.4f ± %.4f points per game (%d games, %d mirrored pairs; unpaired SE would be %.4f)\n", mean / 2, se, n, np, se1
        printf "wins: bgfarm %d (%.1f%%), gnubg %d; gammons: bgfarm %d, gnubg %d; backgammons: bgfarm %d, gnubg %d\n", \
            bw, 100 * bw / n, gw, bk["gammon"], gk["gammon"], bk["backgammon"], gk["backgammon"]
        printf "wall time: %d s (%.2f s per game)\n", secs, secs / n
    }' "$tmp/games.txt"
