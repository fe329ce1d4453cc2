#!/usr/bin/env bash
# Time `bgfarm analyse FILE --ply 2` against GNU Backgammon's `analyse match` at
# 2 plies (chequer play and cube, 2 threads) on the same match file, and print both
# programs' per-player error rates. Needs gnubg (skipped with a message without it)
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
echo "GNU Backgammon analyse match, 2-ply: ${gnubg_s} s; chequer / cube / overall error rates (mEMG):"
grep -E "Error rate mEMG" "$tmp/gnubg.out" | tr -s ' ' | sed 's/^/  /'
echo "bgfarm analyse --ply 2: ${bgfarm_s} s"
grep -E "Error rate mEMG" "$tmp/bgfarm.out" | sed 's/^/  /'
echo "time ratio bgfarm / GNU Backgammon: $(echo "scale=2; $bgfarm_s / $gnubg_s" | bc)"
