#!/usr/bin/env bash
# Time `bgfarm analyse FILE --ply 2` against GNU Backgammon's `analyse match` at
# 2 plies (chequer play and cube, 2 threads) on the same match file, and print both
# programs' per-player error rates, luck (totals, rates, marked rolls) and actual and
# luck-adjusted results; with LUCK_ROLLS=1 also the rolls whose luck differs by more
# than 0.05 EMG (GNU Backgammon's per-roll luck, `LU[...]` in the analysed match it
# saves, next to bgfarm's `luck` of each chequer decision in --json). Needs gnubg (skipped with a message without it)
# and `script` (gnubg -t writes to a terminal only); builds bgfarm in release.
# Usage: scripts/analyse-vs-gnubg.sh [MATCH.sgf]   (default tests/data/matches/five-point.sgf)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
file=$(realpath "${1:-$root/tests/data/matches/five-point.sgf}")
gnubg=$(command -v gnubg || true)
[ -z "$gnubg" ] && [ -x /usr/games/gnubg ] && gnubg=/usr/games/gnubg
if [ -z "$gnubg" ] || ! command -v script >/dev/null; then
    echo "gnubg or script is not installed: skipping"
    exit 0
fi
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin bgfarm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/cmds" <<CMDS
set analysis chequerplay evaluation plies 2
set analysis cubedecision evaluation plies 2
set analysis threads 2
load match $file
analyse match
save match $tmp/analysed.sgf
show statistics match
quit
y
CMDS
start=$(date +%s.%N)
script -q -c "$gnubg -t -q < $tmp/cmds" /dev/null >"$tmp/gnubg.out" 2>&1
gnubg_s=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
"$root/target/release/bgfarm" analyse "$file" --ply 2 >"$tmp/bgfarm.out"
bgfarm_s=$(echo "$(date +%s.%N) - $start" | bc)
echo "GNU Backgammon analyse match, 2-ply: ${gnubg_s} s; chequer / cube / overall error rates (mEMG), luck, results:"
tr -d '\r' <"$tmp/gnubg.out" |
    grep -E "Error rate mEMG|Rolls marked|Luck (total|rate)|Actual result|Luck adjusted result" |
    tr -s ' ' | sed 's/^/  /'
echo "bgfarm analyse --ply 2: ${bgfarm_s} s"
grep -E "Error rate mEMG|Rolls|Luck (total|rate)|Actual result|Luck-adjusted result" \
    "$tmp/bgfarm.out" | sed 's/^/  /'
echo "time ratio bgfarm / GNU Backgammon: $(echo "scale=2; $bgfarm_s / $gnubg_s" | bc)"
if [ "${LUCK_ROLLS:-0}" = 1 ]; then
    "$root/target/release/bgfarm" analyse "$file" --ply 0 --json >"$tmp/bgfarm.json"
    python3 - "$tmp/analysed.sgf" "$tmp/bgfarm.json" <<'PY'
import json, re, sys
sgf, ours = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
mine = {(d["game"], d["move"]): d["luck"] for d in ours["decisions"] if d["kind"] == "chequer"}
diffs, n = [], 0
for g, text in enumerate(sgf.split("(;")[1:], 1):
    move = 0
    for m in re.finditer(r";([BW])\[(\d\d)[^\]]*\]((?:[A-Z]+(?:\[[^\]]*\])+)*)", text):
        move += 1
        lu = re.search(r"LU\[([^\]]*)\]", m.group(3))
        if lu and (g, move) in mine:
            n += 1
            a, b = float(lu.group(1)), mine[(g, move)]
            diffs.append((abs(a - b), g, move, m.group(2), a, b))
print(f"per-roll luck (EMG), {n} played rolls: mean |gnubg - bgfarm| {sum(d[0] for d in diffs) / max(n, 1):.3f}")
for d, g, move, dice, a, b in sorted(diffs, reverse=True):
    if d > 0.05:
        print(f"  game {g} move {move} {dice}: gnubg {a:+.3f} bgfarm {b:+.3f}")
PY
fi
