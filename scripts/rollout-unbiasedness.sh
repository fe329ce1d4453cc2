#!/usr/bin/env bash
# Checks that variance reduction does not bias rollouts: the opening position (before
# the roll), a contact middle game and a race, each rolled out with VR off and with
# both luck value functions, 20,736 trials (16 x 1296), cubeless, 0-ply chequer play.
# Prints each equity with its SE and the difference between VR on and off in
# combined standard errors (it should stay below 3). Takes a while: about
# 3 x (3 + 9 + 25) CPU-seconds per 1296 trials.
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-20736}
cargo build --release -q
BIN=./target/release/bgfarm
for pos in 4HPwATDgc/ABMA sM/BATBmzsIBMA dy0AANgKAAgAAA; do
    off=$($BIN rollout "$pos" --trials "$TRIALS" --vr off --seed 3 --json)
    for luck in ranked full; do
        on=$($BIN rollout "$pos" --trials "$TRIALS" --vr on --luck "$luck" --seed 3 --json)
        python3 - "$pos" "$luck" "$off" "$on" <<'PY'
import json, math, sys
pos, luck = sys.argv[1], sys.argv[2]
a = json.loads(sys.argv[3])["candidates"][0]
b = json.loads(sys.argv[4])["candidates"][0]
z = (b["equity"] - a["equity"]) / math.hypot(a["equity_se"], b["equity_se"])
print(f"{pos}  VR off {a['equity']:+.4f} ± {a['equity_se']:.4f}   VR {luck:<6} {b['equity']:+.4f} ± {b['equity_se']:.4f}   z = {z:+.2f}")
PY
    done
done
