#!/usr/bin/env python3
"""A larger move-choice bench of one position class, scored by GNU Backgammon.

The oracle bench (engine/testdata/oracle/bench.jsonl) holds only 80 crashed
decisions: bgfarm 0-ply's loss there has an SE of about 2.2 x1000 on 8.4, too wide to
judge a net by. This script writes more decisions in the same format, so that
`bgfarm-lab bench hint --file OUT` scores them as it scores the oracle's.

  scripts/crashed-bench.py POSITIONS OUT [--count N] [--seed S] [--class crashed]
  scripts/crashed-bench.py --check engine/testdata/oracle/bench.jsonl   # self-test

POSITIONS: position IDs, one per line (for example `bgfarm-lab train positions
--class crashed --seed S` from games not used in training). For each of the first
positions whose GNU Backgammon class is the one asked for, a roll is drawn (seeded)
until it has at least two legal plays; every play (`bgfarm moves --json`) is scored
by GNU Backgammon at 0 and 2 plies (cubeless money, deterministic, pruning on at
2 plies), as the oracle's README section 4 describes.

Needs: the Python package `gnubg` (pip install gnubg) and a release build of
bgfarm (BGFARM=path, default target/release/bgfarm).
"""
import argparse
import json
import os
import random
import subprocess
import sys

import gnubg

CLASS_NAMES = {9: "crashed", 10: "contact"}


def context(plies):
    # cubeful, plies, deterministic, prune, noise
    return gnubg.eval_context(0, plies, 1, 1 if plies else 0, 0.0)


def play_value(result_id, plies):
    """Cubeless equity and probabilities of a play for the side that made it:
    the position after it is evaluated for the opponent, then turned round."""
    board = gnubg.position_from_id(result_id)
    w, wg, wbg, lg, lbg, _ = gnubg.evaluate(board, gnubg.cube_info(), context(plies))
    # The mover's view: the opponent's wins are its losses.
    p = [1.0 - w, lg, lbg, wg, wbg]
    eq = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
    return eq, p


def legal_plays(bgfarm, pos, dice):
    out = subprocess.run(
        [bgfarm, "moves", pos, f"{dice[0]}{dice[1]}", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    return [m["result"] for m in json.loads(out)["moves"]]


def line_for(bgfarm, pos, dice, klass):
    moves = []
    for r in dict.fromkeys(legal_plays(bgfarm, pos, dice)):
        eq0, _ = play_value(r, 0)
        eq2, p2 = play_value(r, 2)
        moves.append({"result": r, "eq0": round(eq0, 6), "eq2": round(eq2, 6),
                      "p2": [round(x, 6) for x in p2]})
    moves.sort(key=lambda m: -m["eq2"])
    return {"pos": pos, "dice": list(dice), "class": klass,
            "nmoves": len(moves), "gnubg_choice": moves[0]["result"], "moves": moves}


def check(path):
    """Recomputes the first lines of the oracle bench: the values must agree."""
    worst = 0.0
    with open(path) as f:
        for i, raw in enumerate(f):
            if i >= 20:
                break
            line = json.loads(raw)
            for m in line["moves"][:4]:
                eq0, _ = play_value(m["result"], 0)
                eq2, _ = play_value(m["result"], 2)
                worst = max(worst, abs(eq0 - m["eq0"]), abs(eq2 - m["eq2"]))
    print(f"largest difference from {path}: {worst:.6f}")
    return worst < 2e-3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("positions", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--class", dest="klass", default="crashed", choices=sorted(CLASS_NAMES.values()))
    ap.add_argument("--check", metavar="BENCH")
    a = ap.parse_args()
    if a.check:
        sys.exit(0 if check(a.check) else 1)
    if not a.positions or not a.out:
        ap.error("give POSITIONS and OUT (or --check BENCH)")
    bgfarm = os.environ.get("BGFARM", "target/release/bgfarm")
    rng = random.Random(a.seed)
    written = 0
    with open(a.positions) as f, open(a.out, "w") as out:
        for raw in f:
            pos = raw.strip()
            if not pos:
                continue
            if CLASS_NAMES.get(gnubg.classify(gnubg.position_from_id(pos))) != a.klass:
                continue
            for _ in range(20):
                d = sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)
                if len(set(legal_plays(bgfarm, pos, d))) >= 2:
                    break
            else:
                continue
            out.write(json.dumps(line_for(bgfarm, pos, d, a.klass)) + "\n")
            written += 1
            if written % 50 == 0:
                print(f"{written} / {a.count}", file=sys.stderr)
            if written >= a.count:
                break
    print(f"{written} {a.klass} decisions -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
