#!/usr/bin/env python3
"""How well bgfarm values race decisions, against GNU Backgammon 2-ply (the oracle bench).

Usage: scripts/race-rollout-check.py [DECISIONS] [TRIALS] [NET]
(defaults 80, 1296 and `default`; TRIALS 0 skips the rollouts, DECISIONS 0 takes all;
BGFARM_HINT_ARGS adds options to the 0-ply hints, e.g. "--exact-race 200000")

For the first DECISIONS race decisions of engine/testdata/oracle/bench.jsonl with at
least three plays, it takes GNU Backgammon 2-ply's five best plays and reports the
mean absolute error of their equity differences to the best (x1000) for bgfarm's
0-ply with nets NET (the race net), bgfarm's TRIALS-trial rollout of the five plays
(common dice) and GNU Backgammon 0-ply (from the bench file). Needs a release build
(`cargo build --release`) and Python 3; GNU Backgammon is not needed. Measured
2026-11-30: 80 decisions, 1296 trials: rollouts 2.43, 0-ply 18.08, GNU Backgammon
0-ply 2.66 (about a minute on 2 cores). All 210 decisions, no rollouts
(`0 0`): bgfarm 0-ply 14.54, GNU Backgammon 0-ply 2.62. Release 0.6.0 (race
inputs, exact backgammon chances, 13 rounds of 2-ply self-consistency for the race
net): 8.23.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "bgfarm")
BENCH = os.path.join(ROOT, "engine", "testdata", "oracle", "bench.jsonl")
# More `bgfarm hint` options for the 0-ply values, e.g. "--exact-race 200000".
HINT_ARGS = os.environ.get("BGFARM_HINT_ARGS", "").split()


def run(*args):
    out = subprocess.run([BIN, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    decisions = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    trials = sys.argv[2] if len(sys.argv) > 2 else "1296"
    net = sys.argv[3] if len(sys.argv) > 3 else "default"
    with open(BENCH) as f:
        bench = [json.loads(line) for line in f]
    races = [d for d in bench if d["class"] == "race" and len(d["moves"]) >= 3]
    races = races[:decisions] if decisions > 0 else races
    sums = {"rollout": 0.0, "0-ply": 0.0, "gnubg 0-ply": 0.0}
    n = 0
    for d in races:
        dice = f"{d['dice'][0]}{d['dice'][1]}"
        hint = run("hint", d["pos"], dice, "--ply", "0", "--json", "--net", net, *HINT_ARGS)
        notation = {m["result"]: m["move"] for m in hint["moves"]}
        ours = {m["result"]: m["equity"] for m in hint["moves"]}
        gnu2 = {m["result"]: m["eq2"] for m in d["moves"]}
        gnu0 = {m["result"]: m["eq0"] for m in d["moves"]}
        top = sorted(gnu2, key=gnu2.get, reverse=True)[:5]
        best = top[0]

        def err(values):
            return sum(abs((values[m] - values[best]) - (gnu2[m] - gnu2[best]))
                       for m in top[1:]) / (len(top) - 1)

        if trials != "0":
            moves = ",".join(notation[r] for r in top)
            rollout = run("rollout", d["pos"], "--dice", dice, "--moves", moves,
                          "--trials", trials, "--json")
            by_move = {c["move"]: c["equity"] for c in rollout["candidates"]}
            sums["rollout"] += err({r: by_move[notation[r]] for r in top})
        sums["0-ply"] += err(ours)
        sums["gnubg 0-ply"] += err(gnu0)
        n += 1
    print(f"{n} race decisions, top-5 equity differences against GNU Backgammon 2-ply, "
          f"mean absolute error x1000:")
    for k, v in sums.items():
        if k == "rollout" and trials == "0":
            continue
        label = f"bgfarm {trials}-trial rollouts" if k == "rollout" else (
            "bgfarm 0-ply" if k == "0-ply" else "GNU Backgammon 0-ply")
        print(f"  {label:<30} {1000 * v / n:6.2f}")


if __name__ == "__main__":
    main()
