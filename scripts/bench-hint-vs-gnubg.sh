#!/usr/bin/env bash
# Time per 2-ply hint on the first 100 contact positions of the oracle bench
# (engine/testdata/oracle/bench.jsonl), bgfarm next to GNU Backgammon.
#
# bgfarm: `bgfarm-lab bench hint --ply 2 --filter F --class contact --limit 100
# --threads 1` for F = normal and gnu-normal, which times each hint inside the process (nets loaded, bear-off
# tables built) and also reports how often the choice is GNU Backgammon's 2-ply best.
# GNU Backgammon: one `gnubg -t` process runs `hint` on the same positions and dice
# at 2-ply, cubeless, with its default (normal) move filter and pruning on, which is
# its "world class" chequer setting, on one thread; its start-up time (measured with
# the same script without the hints) is subtracted.
#
# Needs: cargo (or BGFARM_LAB=path/to/bgfarm-lab); gnubg on PATH or in /usr/games for the
# comparison (skipped with a message otherwise). Usage: scripts/bench-hint-vs-gnubg.sh [N_POSITIONS]
set -euo pipefail
cd "$(dirname "$0")/.."

n=${1:-100}
bench=engine/testdata/oracle/bench.jsonl
if [ -z "${BGFARM_LAB:-}" ]; then
    cargo build --release --quiet -p bgfarm-lab
    BGFARM_LAB=target/release/bgfarm-lab
fi

# bgfarm's default (normal: GNU Backgammon's ladder plus a 1-ply step) and GNU
# Backgammon's own ladder (gnu-normal), the one GNU Backgammon runs below.
ms_of=""
for filter in normal gnu-normal; do
    echo "== bgfarm: 2-ply hints ($filter filter, prune 8), $n contact positions, 1 thread"
    out=$("$BGFARM_LAB" bench hint --ply 2 --filter "$filter" --class contact --limit "$n" --threads 1 --json)
    ms=$(printf '%s' "$out" | sed -n 's/.*"all":{[^}]*"ms_per_hint":\([0-9.e+-]*\).*/\1/p')
    best=$(printf '%s' "$out" | sed -n 's/.*"all":{[^}]*"best_nply":\([0-9.e+-]*\).*/\1/p')
    printf 'bgfarm %s: %.1f ms per hint; GNU Backgammon 2-ply best play chosen in %.1f%%\n' \
        "$filter" "$ms" "$(awk -v b="$best" 'BEGIN { print 100 * b }')"
    ms_of="$ms_of $filter=$ms"
done

# Debian installs it as /usr/games/gnubg, which is not always on PATH.
gnubg=$(command -v gnubg || true)
[ -z "$gnubg" ] && [ -x /usr/games/gnubg ] && gnubg=/usr/games/gnubg
if [ -z "$gnubg" ]; then
    echo "gnubg is not installed: skipping the GNU Backgammon side (install it, e.g." \
        "apt-get install gnubg, and run this script again)"
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header() {
    cat <<'EOF'
set threads 1
set player 0 human
set player 1 human
set evaluation chequerplay evaluation cubeful off
set evaluation chequerplay evaluation plies 2
set evaluation chequerplay evaluation prune on
set evaluation chequerplay evaluation noise 0
new game
EOF
}
header >"$tmp/empty.gnubg"
echo quit >>"$tmp/empty.gnubg"
header >"$tmp/hints.gnubg"
sed -n 's/^{"pos":"\([^"]*\)","dice":\[\([1-6]\),\([1-6]\)\],"class":"contact".*/\1 \2 \3/p' "$bench" \
    >"$tmp/contact.txt"
head -n "$n" "$tmp/contact.txt" |
    while read -r pos d1 d2; do
        printf 'set board %s\nset dice %s %s\nhint\n' "$pos" "$d1" "$d2"
    done >>"$tmp/hints.gnubg"
echo quit >>"$tmp/hints.gnubg"

seconds() {
    local start end
    start=$(date +%s.%N)
    "$gnubg" -t -q <"$1" >"$2" 2>&1 || true
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}
echo "== GNU Backgammon: 2-ply hints (world class chequer play, cubeless), 1 thread"
base=$(seconds "$tmp/empty.gnubg" "$tmp/empty.out")
total=$(seconds "$tmp/hints.gnubg" "$tmp/hints.out")
hints=$(grep -c "^ *1\. " "$tmp/hints.out" || true)
awk -v t="$total" -v b="$base" -v n="$n" -v h="$hints" 'BEGIN {
    printf "gnubg: %.1f ms per hint (%.2f s for %d positions, start-up %.2f s subtracted; %d hint lists printed)\n",
        1000 * (t - b) / n, t - b, n, b, h
}'
for fm in $ms_of; do
    awk -v g="$total" -v b="$base" -v n="$n" -v f="${fm%%=*}" -v m="${fm#*=}" 'BEGIN {
        gms = 1000 * (g - b) / n
        if (m > 0) printf "bgfarm (%s) / gnubg time per hint: %.2f (below 1: bgfarm is faster)\n", f, m / gms
    }'
done
