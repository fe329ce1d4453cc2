#!/usr/bin/env bash
# Rollout precision per CPU-second, 1 / (SE^2 x CPU seconds), on the cubeless equity
# of the opening position before the roll: 1296 trials, 0-ply chequer play, one
# thread, for each variance-reduction setting. When GNU Backgammon is installed
# (`apt-get install gnubg`; the CLI lands in /usr/games), it runs the same rollout
# with GNU Backgammon 0-ply, VR on, and prints the ratio. Nothing else needs gnubg.
#
# A 1296-trial SE depends on the dice: GNU Backgammon's ranged 0.00487..0.00547
# over seven seeds, so the default (auto) setting is run with SEEDS seeds (mean of
# SE^2, median CPU) and GNU Backgammon with GNU_SEEDS (about 110 s each). Runs
# alternate between the two programs, so a busy machine slows both alike.
#
# PLY=N (default 0) rolls out with N-ply chequer play on both sides (`bgfarm
# rollout --ply N`, GNU Backgammon's `set rollout chequerplay plies N`): the
# searched rollouts analysts also trust. GNU Backgammon prunes with its pruning
# nets from 2 plies on (`chequerplay prune on`, its world-class setting; our search
# prunes replies too), not at 1 ply; GNU_PRUNE=on|off overrides. The script checks
# that GNU Backgammon took every setting (an unknown keyword fails the run).
#
# Usage: [PLY=N] scripts/bench-rollout-precision.sh [TRIALS] [SEEDS] [GNU_SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-1296}
SEEDS=${2:-3}
GNU_SEEDS=${3:-3}
PLY=${PLY:-0}
if [ "$PLY" -ge 2 ]; then GNU_PRUNE=${GNU_PRUNE:-on}; else GNU_PRUNE=${GNU_PRUNE:-off}; fi
cargo build --release -q
BIN=./target/release/bgfarm
GNUBG=$(command -v gnubg || ls /usr/games/gnubg 2>/dev/null || true)
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# One rollout of ours: prints "ours MODE SEED EQUITY SE CPU".
ours() {
    local mode=$1 seed=$2 out json cpu
    # shellcheck disable=SC2086
    out=$( { /usr/bin/time -f '%U %S' $BIN rollout 4HPwATDgc/ABMA --trials "$TRIALS" --threads 1 --seed "$seed" --ply "$PLY" $mode --json; } 2>&1 )
    json=$(echo "$out" | grep '^{')
    cpu=$(echo "$out" | tail -1 | awk '{print $1 + $2}')
    python3 - "$mode" "$seed" "$json" "$cpu" <<'PY'
import json, sys
mode, seed, j, cpu = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4])
c = j["candidates"][0]
print(f"ours|{mode}|{seed}|{c['equity']}|{c['equity_se']}|{cpu}")
PY
}

# One rollout of GNU Backgammon's with dice seed $1: prints "gnubg SEED EQUITY SE CPU".
gnubg_run() {
    local seed=$1 cmds log cpu
    cmds=$(mktemp)
    log=$(mktemp)
    cat > "$cmds" <<EOC
set output digits 5
set rollout trials $TRIALS
set rollout seed $seed
set rollout cubeful off
set rollout varredn on
set rollout quasirandom on
set rollout chequerplay plies $PLY
set rollout chequerplay prune $GNU_PRUNE
set rollout truncation enable off
set rollout bearofftruncation exact on
set threads 1
new game
set board 4HPwATDgc/ABMA
rollout
EOC
    cpu=$( { /usr/bin/time -f '%U %S' script -q -c "$GNUBG -t -q < $cmds" "$log" > /dev/null; } 2>&1 | tail -1 | awk '{print $1 + $2}')
    python3 - "$seed" "$log" "$cpu" "$PLY" <<'PY'
import re, sys
seed, path, cpu, ply = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
text = open(path, errors="replace").read()
# GNU Backgammon says "Unknown keyword" and goes on with its defaults: a run that
# did not take every setting measures something else.
if "Unknown keyword" in text or ("Play: " in text and not re.search(rf"Play: .*\b{ply}-ply", text)):
    sys.exit(f"GNU Backgammon did not take the settings (seed {seed}): see its output\n{text[:3000]}")
se = re.findall(r'Estimated SE for "Current Position" after \d+ trials\s+([0-9.]+)', text)[-1]
eq = re.findall(r"CL\s+([+-][0-9.]+)", text)
eq = [e for e in eq if float(e) != 0.0]
print(f"gnubg||{seed}|{eq[0] if eq else 'nan'}|{se}|{cpu}")
PY
    rm -f "$cmds" "$log"
}

for mode in "--vr off" "--vr on --luck full"; do
    ours "$mode" 1 >> "$results"
done
for s in $(seq 1 "$(( SEEDS > GNU_SEEDS ? SEEDS : GNU_SEEDS ))"); do
    if [ "$s" -le "$SEEDS" ]; then ours "--vr on --luck auto" "$s" >> "$results"; fi
    if [ -n "$GNUBG" ] && [ "$s" -le "$GNU_SEEDS" ]; then gnubg_run "$s" >> "$results"; fi
done
[ -z "$GNUBG" ] && echo "GNU Backgammon not installed: no side-by-side run (apt-get install gnubg)"

python3 - "$results" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
groups = {}
for who, mode, seed, eq, se, cpu in rows:
    groups.setdefault((who, mode), []).append((int(seed), float(eq), float(se), float(cpu)))
print(f"{'program / setting':<32} {'runs':>4} {'equity':>8} {'SE':>8} {'cpu_s':>7} {'1/(SE^2 s)':>11}")
score = {}
for (who, mode), runs in groups.items():
    se2 = sum(r[2] ** 2 for r in runs) / len(runs)
    cpu = statistics.median(r[3] for r in runs)
    eq = sum(r[1] for r in runs) / len(runs)
    score[(who, mode)] = 1 / (se2 * cpu)
    name = f"{who} {mode}".strip()
    print(f"{name:<32} {len(runs):>4} {eq:+8.4f} {se2 ** 0.5:8.5f} {cpu:7.2f} {score[(who, mode)]:11.0f}")
g = score.get(("gnubg", ""))
o = score.get(("ours", "--vr on --luck auto"))
if g and o:
    print(f"bgfarm default (auto) / GNU Backgammon: {o / g:.1f}x (mean SE^2 over seeds, median CPU)")
PY
