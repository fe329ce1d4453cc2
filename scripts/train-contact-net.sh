#!/usr/bin/env bash
# The contact-net experiment of issue 45 (docs/research-log.md, "Bench-like contact
# positions"): contact positions drawn as the benches are drawn, labelled by the
# default nets' 2-ply search and by 12-trial rollouts, the deep contact net refitted
# to growing shares of them, each fit judged on the dev set (lab/benches/dev.jsonl)
# by its paired difference against the default nets. The learning curve it prints
# is what the research log reports; nothing here touches the test set.
#
# Usage: scripts/train-contact-net.sh [WORK_DIR]   (default: contact-net-work)
# Needs a release build (`cargo build --release -p bgfarm-lab`), not GNU Backgammon.
# THREADS=N sets the labelling threads; COORDINATOR=URL (and TOKEN_FILE=F) has a
# cluster's workers label instead (the same labels: `train label --coordinator`).
# SIZES (default "100000 200000 665000") and ROLLOUT_SIZES (default "10000 20000
# 40000") are the learning curve's points; the largest of each is labelled.
#
# 1. Positions: every contact position of 40,000 games in which each game plays a
#    uniformly random legal move with a chance drawn from 0, 0, 0.05, 0.15, 0.3,
#    0.6, 1 (as GNU Backgammon's bench was drawn), else the nets' best, with the
#    candidates of 10% of the rolls (6,198,040 distinct, 18 s), shuffled, the dev
#    and test sets' positions left out.
# 2. 2-ply labels for the first positions (about 1,100 a second on 2 idle cores).
# 3. 12-trial rollout labels (0-ply play, variance reduction) for positions
#    2,000,001 on (about 40 a second of a core).
# 4. For each size, `train fit --nets contact` from the default nets (10 epochs,
#    Adam 0.0003 -> 0.00003) and `bench hint --ply 0` on the dev set against them.
# 5. Sibling groups (`train siblings --ply 2`: every legal play of one roll, each
#    labelled by the 2-ply search) of 60,000 roots from the shuffled positions 3,000,001 on
#    (46,087 groups, 895 s on 2 cores); fits to the largest 2-ply set plus the first
#    GROUPS (default "20000 46087") groups, difference weight 32 (Adam 0.001 ->
#    0.00003), judged the same way.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-contact-net-work}
lab=${BGFARM_LAB:-$root/target/release/bgfarm-lab}
sizes=${SIZES:-100000 200000 665000}
rollout_sizes=${ROLLOUT_SIZES:-10000 20000 40000}
threads=()
if [[ -n ${THREADS:-} ]]; then threads=(--threads "$THREADS"); fi
labellers=("${threads[@]}")
if [[ -n ${COORDINATOR:-} ]]; then
    labellers=(--coordinator "$COORDINATOR")
    if [[ -n ${TOKEN_FILE:-} ]]; then labellers+=(--token-file "$TOKEN_FILE"); fi
fi
largest() { tr ' ' '\n' <<<"$1" | sort -n | tail -1; }
dev=$root/lab/benches/dev.jsonl
mkdir -p "$work"
cd "$work"

"$lab" train positions --net default --games 40000 --random-moves 0,0,0.05,0.15,0.3,0.6,1 \
    --candidates 0.1 --class contact --seed 31 --out pos.txt "${threads[@]}"
shuf --random-source=<(yes 31) pos.txt >pos_shuf.txt
python3 - "$root/lab/benches/dev.jsonl" "$root/lab/benches/test.jsonl" <<'EOF'
import json, sys
held = set()
for path in sys.argv[1:]:
    with open(path) as f:
        held |= {json.loads(line)["pos"] for line in f}
with open("pos_shuf.txt") as f, open("pos_train.txt", "w") as out:
    out.writelines(line for line in f if line.strip() not in held)
# Step 5's roots: the first 60,000 held-out-free positions after the 3,000,000th.
with open("pos_shuf.txt") as f, open("pos_siblings.txt", "w") as out:
    kept = 0
    for i, line in enumerate(f):
        if i >= 3_000_000 and line.strip() not in held and kept < 60_000:
            out.write(line)
            kept += 1
EOF
"$lab" train label --net default --positions pos_train.txt --out ply2.txt --ply 2 \
    --limit "$(largest "$sizes")" "${labellers[@]}"
sed -n '2000001,$p' pos_train.txt | head -n "$(largest "$rollout_sizes")" >pos_rollout.txt
"$lab" train label --net default --positions pos_rollout.txt --out rollout12.txt \
    --rollout 12 --seed 3 "${labellers[@]}"

judge() {
    local name=$1
    echo "== $name: dev set, paired against the default nets"
    "$lab" bench hint --ply 0 --file "$dev" --net "fit-$name/nets.safetensors" \
        --baseline default | sed -n '/^Paired/,/^all/p'
}
fit_and_judge() {
    local name=$1 data=$2
    "$lab" train fit --data "$data" --init default --nets contact --epochs 10 \
        --lr-start 0.0003 --lr-end 0.00003 --out "fit-$name" | tail -1
    judge "$name"
}
for n in $sizes; do
    head -n "$n" ply2.txt >"ply2-$n.txt"
    fit_and_judge "ply2-$n" "ply2-$n.txt"
done
for n in $rollout_sizes; do
    head -n "$n" rollout12.txt >"rollout12-$n.txt"
    fit_and_judge "rollout12-$n" "rollout12-$n.txt"
done

groups=${GROUPS:-20000 46087}
"$lab" train siblings --net default --positions pos_siblings.txt --out siblings.txt \
    --ply 2 --seed 7 "${threads[@]}"
ply2_all=ply2-$(largest "$sizes").txt
for n in $groups; do
    awk -v n="$n" 'BEGIN { RS = ""; ORS = "\n\n" } NR <= n' siblings.txt >"siblings-$n.txt"
    "$lab" train fit --data "$ply2_all" --siblings "siblings-$n.txt" --sibling-weight 32 \
        --init default --nets contact --epochs 10 --lr-start 0.001 --lr-end 0.00003 \
        --out "fit-siblings-$n" | tail -1
    judge "siblings-$n"
done
