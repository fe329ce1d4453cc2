#!/usr/bin/env bash
# bgfarm plays a match against GNU Backgammon 0-ply through GNU Backgammon's
# external-player protocol, then GNU Backgammon analyses the match and the script
# prints the result and both players' error rates (mEMG per decision: chequer play,
# cube, overall).
#
# bgfarm: `bgfarm external --listen 127.0.0.1:0` (default settings: 1-ply chequer play
# with the normal filter, 1-ply cube; add options in BGFARM_ARGS), player 1.
# GNU Backgammon: player 0, chequer play and cube decisions at 0-ply; the match is
# analysed at ANALYSIS_PLIES (default 2, GNU Backgammon's usual analysis depth).
#
# Needs: cargo (or BGFARM=path/to/bgfarm); gnubg on PATH or in /usr/games (skipped
# with a message otherwise); `script` (util-linux), since gnubg -t writes its board
# only to a terminal.
# Usage: scripts/play-vs-gnubg.sh [POINTS]   (default 7)
# Environment: SEED (gnubg's dice seed, default 1), ANALYSIS_PLIES (default 2),
# BGFARM_ARGS (extra options for bgfarm external), RECORD=FILE (append every board
# line gnubg sends, as tests/data/external/ holds them), KEEP=DIR (keep the match,
# gnubg's output and bgfarm's log there).
set -euo pipefail
cd "$(dirname "$0")/.."

points=${1:-7}
case $points in '' | *[!0-9]*) echo "POINTS must be a number, got $points" >&2; exit 2 ;; esac
seed=${SEED:-1}
plies=${ANALYSIS_PLIES:-2}

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
    cargo build --release --quiet
    BGFARM=target/release/bgfarm
fi

tmp=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    if [ -n "${KEEP:-}" ]; then
        mkdir -p "$KEEP" && cp "$tmp"/* "$KEEP"/ || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

record=()
[ -n "${RECORD:-}" ] && record=(--record "$RECORD")
# shellcheck disable=SC2086 # BGFARM_ARGS is a list of options
"$BGFARM" external --listen 127.0.0.1:0 --port-file "$tmp/port" "${record[@]}" \
    ${BGFARM_ARGS:-} >"$tmp/bgfarm.out" 2>"$tmp/bgfarm.log" &
server=$!
for _ in $(seq 100); do
    [ -s "$tmp/port" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$tmp/bgfarm.log" >&2; exit 1; }
    sleep 0.1
done
[ -s "$tmp/port" ] || { echo "bgfarm external did not start" >&2; exit 1; }
port=$(cat "$tmp/port")
sed -n 's/^bgfarm external: /bgfarm: /p' "$tmp/bgfarm.log"

cat >"$tmp/commands" <<EOF
set threads $(nproc 2>/dev/null || echo 1)
set player 0 gnubg
set player 0 name gnubg
set player 0 chequerplay evaluation plies 0
set player 0 cubedecision evaluation plies 0
set player 1 external localhost:$port
set player 1 name bgfarm
set defaultnames gnubg bgfarm
set rng mersenne
set seed $seed
new match $points
save match "$tmp/match.sgf"
set analysis chequerplay evaluation plies $plies
set analysis cubedecision evaluation plies $plies
analyse match
show statistics match
quit
y
EOF
echo "== $points-point match: bgfarm (player 1) vs gnubg 0-ply (player 0), seed $seed"
start=$(date +%s)
script -q -c "\"$gnubg\" -t -q -r < \"$tmp/commands\"" /dev/null >"$tmp/gnubg.out" 2>&1 || true
end=$(date +%s)
tr -d '\r' <"$tmp/gnubg.out" >"$tmp/gnubg.txt"

if grep -q "^Error: \|Error: " "$tmp/bgfarm.log"; then
    echo "bgfarm reported errors:"
    grep "Error: " "$tmp/bgfarm.log" | head -5
fi
score=$(grep -ao "The score (after [0-9]* games\?) is: [^(]*(match to [0-9]* points\?[^)]*)" "$tmp/gnubg.txt" |
    tail -1 | sed 's/^The score (after \([0-9]*\) games\?) is: \(.*\) (match to \([0-9]*\) points\?[^)]*)/\2 after \1 game(s) of a \3-point match/' || true)
winner=$(grep -ao "[A-Za-z0-9]* has won the match" "$tmp/gnubg.txt" | tail -1 || true)
if [ -z "$winner" ]; then
    echo "the match did not finish; gnubg's last lines:"
    tail -20 "$tmp/gnubg.txt"
    exit 1
fi
echo "Result: $score; $winner ($((end - start)) s with the analysis)"

# The statistics table: one row per quantity, gnubg's column then bgfarm's.
row() { # row SECTION LABEL -> the numbers on that row of that section
    awk -v sec="$1" -v lab="$2" '
        $0 ~ sec { in_sec = 1 }
        in_sec && index($0, lab) == 1 { print substr($0, length(lab) + 1); exit }
    ' "$tmp/gnubg.txt"
}
nums() { grep -oE '[-+]?[0-9]+\.?[0-9]*' | tr '\n' ' '; }
report() { # report SECTION NAME [COUNT-LABEL]
    local count rate counts=
    rate=$(row "$1" "Error rate mEMG (MWC)" | nums)
    # rate: gnubg-mEMG gnubg-% bgfarm-mEMG bgfarm-%
    read -r -a r <<<"$rate"
    if [ -n "${3:-}" ]; then
        count=$(row "$1" "$3" | nums)
        read -r -a c <<<"$count"
        counts="(${c[0]:-?} / ${c[1]:-?} ${3,,})"
    fi
    printf '  %-8s gnubg %6s mEMG (%s%% MWC)   bgfarm %6s mEMG (%s%% MWC)   %s\n' \
        "$2" "${r[0]:-?}" "${r[1]:-?}" "${r[2]:-?}" "${r[3]:-?}" "$counts"
}
echo "Error rates per decision ($plies-ply analysis by gnubg; counts gnubg / bgfarm):"
report "^Chequerplay statistics" "chequer" "Unforced moves"
report "^Cube statistics" "cube" "Close or actual cube decisions"
report "^Overall statistics" "overall"
awk '/^Overall statistics/ { on = 1 } on && /^(Snowie error rate|Overall rating|Error based abs. FIBS rating)/' \
    "$tmp/gnubg.txt" | sed 's/^/  /'
