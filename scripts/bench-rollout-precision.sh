#!/usr/bin/env bash
# Rollout precision per CPU-second, 1 / (SE^2 x CPU seconds), on the cubeless equity
# of the opening position before the roll: 1296 trials, 0-ply chequer play, one
# thread, for each variance-reduction setting. When GNU Backgammon is installed
# (`apt-get install gnubg`; the CLI lands in /usr/games), it runs the same rollout
# with GNU Backgammon 0-ply, VR on, and prints the ratio. Nothing else needs gnubg.
#
# Usage: scripts/bench-rollout-precision.sh [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-1296}
cargo build --release -q
BIN=./target/release/bgfarm
printf '%-22s %10s %9s %10s %12s\n' setting equity SE cpu_s "1/(SE^2 s)"
for mode in "--vr off" "--vr on --luck full" "--vr on --luck ranked"; do
    # shellcheck disable=SC2086
    out=$( { /usr/bin/time -f '%U %S' $BIN rollout 4HPwATDgc/ABMA --trials "$TRIALS" --threads 1 $mode --json; } 2>&1 )
    json=$(echo "$out" | grep '^{')
    cpu=$(echo "$out" | tail -1 | awk '{print $1 + $2}')
    python3 - "$mode" "$json" "$cpu" <<'PY'
import json, sys
mode, j, cpu = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
c = j["candidates"][0]
se = c["equity_se"]
print(f"{mode:<22} {c['equity']:+10.4f} {se:9.4f} {cpu:10.1f} {1/(se*se*cpu):12.0f}")
PY
done
GNUBG=$(command -v gnubg || ls /usr/games/gnubg 2>/dev/null || true)
if [ -z "$GNUBG" ]; then
    echo "GNU Backgammon not installed: skipping the side-by-side run (apt-get install gnubg)"
    exit 0
fi
cmds=$(mktemp)
cat > "$cmds" <<EOC
set output digits 5
set rollout trials $TRIALS
set rollout cubeful off
set rollout varredn on
set rollout quasirandom on
set rollout chequerplay evaluation plies 0
set rollout chequerplay evaluation prune off
set rollout truncation off
set rollout bearofftruncation exact on
set threads 1
new game
set board 4HPwATDgc/ABMA
rollout
EOC
start=$(date +%s.%N)
script -q -c "$GNUBG -t -q < $cmds" /dev/null | tail -20
end=$(date +%s.%N)
echo "GNU Backgammon wall time: $(echo "$end - $start" | bc) s (read its equity and SE above)"
rm -f "$cmds"
